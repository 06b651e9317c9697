//! Reading delay trace files for `trace:FILE` (format documented on
//! [`super::DelayModel::Trace`]).

use super::DelayModelError;
use crate::units::parse_duration_s;

/// Reads the values of the trace file at `path`, in seconds, in file order.
///
/// Errors: [`DelayModelError::TraceRead`] (cannot open or not UTF-8),
/// [`DelayModelError::TraceValue`] (a line that is not a non-negative duration, with its
/// 1-based number), [`DelayModelError::TraceEmpty`].
pub(crate) fn read_file(path: &str) -> Result<Vec<f64>, DelayModelError> {
    let text = std::fs::read_to_string(path).map_err(|e| DelayModelError::TraceRead {
        path: path.to_string(),
        cause: e.to_string(),
    })?;
    parse_values(path, &text)
}

/// Parses the text of a trace file; `path` is only used in error messages.
pub(crate) fn parse_values(path: &str, text: &str) -> Result<Vec<f64>, DelayModelError> {
    let mut values = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let item = line.split('#').next().unwrap_or("").trim();
        if item.is_empty() {
            continue;
        }
        let bad = |cause: String| DelayModelError::TraceValue {
            path: path.to_string(),
            line: i + 1,
            cause,
        };
        // Scripts usually write seconds as plain numbers, so those are accepted without a unit
        // here, unlike on the command line where `50` is ambiguous. But a plain 1 or more is
        // far more likely microseconds than a delay of seconds per repetition: it
        // needs its unit.
        let value = match item.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 1.0 => {
                return Err(bad(format!(
                    "'{item}' has no unit and would be {item} seconds per repetition: write it \
                     with a unit, e.g. {item}us, {item}ms or {item}s"
                )))
            }
            Ok(v) if v.is_finite() && v >= 0.0 => v,
            Ok(_) => return Err(bad(format!("'{item}' is not a finite duration >= 0"))),
            Err(_) => parse_duration_s(item).map_err(|e| bad(e.to_string()))?,
        };
        values.push(value);
    }
    if values.is_empty() {
        return Err(DelayModelError::TraceEmpty {
            path: path.to_string(),
        });
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_numbers_of_a_second_or_more_need_a_unit() {
        let err = parse_values("t.txt", "50us\n50\n").unwrap_err();
        assert!(err.to_string().contains("50us, 50ms or 50s"), "{err}");
        assert!(
            err.to_string().contains("line 2") || err.to_string().contains(":2"),
            "{err}"
        );
        assert!(parse_values("t.txt", "50s\n0.5\n").is_ok());
    }

    #[test]
    fn units_plain_seconds_and_comments() {
        let text = "# measured on node7\n50us\n\n  1.5ms  # a long one\n5e-5\n0\n";
        let v = parse_values("t.txt", text).unwrap();
        assert_eq!(v.len(), 4);
        assert!((v[0] - 50e-6).abs() < 1e-15 && (v[1] - 1.5e-3).abs() < 1e-15);
        assert!((v[2] - 5e-5).abs() < 1e-15 && v[3] == 0.0);
    }

    #[test]
    fn bad_lines_are_located() {
        assert_eq!(
            parse_values("t.txt", "50us\n-3\n"),
            Err(DelayModelError::TraceValue {
                path: "t.txt".into(),
                line: 2,
                cause: "'-3' is not a finite duration >= 0".into()
            })
        );
        assert!(matches!(
            parse_values("t.txt", "50us\nfast\n"),
            Err(DelayModelError::TraceValue { line: 2, .. })
        ));
        assert!(matches!(
            parse_values("t.txt", "# nothing\n\n"),
            Err(DelayModelError::TraceEmpty { .. })
        ));
        assert!(matches!(
            read_file("/nonexistent/delays.txt"),
            Err(DelayModelError::TraceRead { .. })
        ));
    }
}
