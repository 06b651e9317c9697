//! Lists of delay models as `--delay` takes them: comma-separated, where the two-parameter
//! models (`normal:50us,10us`) keep their own comma.

use super::{DelayModel, DelayModelError};

/// Models whose parameters are two comma-separated values.
const TWO_PARAMETERS: [&str; 4] = ["normal", "lognormal", "gamma", "pareto"];

/// Parses `50us,100us` or `normal:50us,10us,exp:20us` into models, in order.
///
/// Errors: the [`DelayModelError`] of the first item that does not parse.
pub fn parse_delay_list(text: &str) -> Result<Vec<DelayModel>, DelayModelError> {
    let mut items: Vec<String> = Vec::new();
    let mut pieces = text.split(',');
    while let Some(piece) = pieces.next() {
        let name = piece
            .split_once(':')
            .map(|(n, _)| n.trim().to_ascii_lowercase());
        let takes_two = name.is_some_and(|n| TWO_PARAMETERS.contains(&n.as_str()));
        match pieces.clone().next() {
            Some(second) if takes_two && !second.contains(':') => {
                items.push(format!("{piece},{second}"));
                pieces.next();
            }
            _ => items.push(piece.to_string()),
        }
    }
    items.iter().map(|item| item.parse()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_parameter_models_keep_their_comma() {
        let list = parse_delay_list("50us,normal:50us,10us,exp:20us,gamma:2,10us").unwrap();
        let labels: Vec<String> = list.iter().map(|m| m.label()).collect();
        assert_eq!(labels.len(), 4, "{labels:?}");
        assert!(list[0].is_fixed());
        assert!((list[1].mean_s() - 50e-6).abs() < 2e-6);
        assert!((list[2].mean_s() - 20e-6).abs() < 1e-12);
        assert!((list[3].mean_s() - 20e-6).abs() < 1e-12);
    }

    #[test]
    fn bad_items_are_errors() {
        assert!(parse_delay_list("50us,50").is_err());
        assert!(parse_delay_list("normal:50us").is_err());
    }
}
