//! `delaybench tune`: the library's tuning file for an arrival pattern, the table it was
//! decided from, and (`--verify`) whether the library obeys it.

use super::{finish, Run};
use crate::analysis::tuning::{
    annotate, check_rules, choose, mpich_json, mpich_json_for_probe, openmpi_rules,
    openmpi_rules_for_probe, probes_needed, read_sweep, rules_of, Choice, RuleCheck, RuleSet,
    Sweep, TuneError, TuneLibrary, Tuning, Verdict, BALANCED,
};
use crate::cli::TuneArgs;
use crate::exit::BadInput;
use crate::export::{write_table, Format};
use crate::units::format_bytes;
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

impl Run for TuneArgs {
    fn run(self) -> ExitCode {
        finish(tune(self))
    }
}

/// A [`TuneError`] about the input is bad input (exit 2); a file that cannot be read is
/// classified by its own error.
fn classify(e: TuneError) -> anyhow::Error {
    match e {
        TuneError::Read { .. } => anyhow::Error::new(e),
        other => BadInput(other.to_string()).into(),
    }
}

fn tune(args: TuneArgs) -> Result<()> {
    if args.output.exists() {
        return Err(BadInput(format!(
            "{} exists and tuning files are never overwritten: remove it or name another \
             with --output",
            args.output.display()
        ))
        .into());
    }
    let mut sweep = read_sweep(&args.files, args.times.global_times).map_err(classify)?;
    if !args.ops.is_empty() {
        sweep.measured.retain(|m| args.ops.contains(&m.op));
    }
    let name = args.library.version_name();
    if !sweep.simulated && !sweep.libraries.iter().any(|l| l.contains(name)) {
        let other = if sweep.libraries.iter().any(|l| l.contains("Open MPI")) {
            "openmpi"
        } else {
            "mpich"
        };
        return Err(BadInput(format!(
            "the records were measured under {}, not {name}: their algorithm numbers and \
             fingerprints are that library's; tune them with --library {other}, or sweep {name}",
            sweep.libraries.join(" | ")
        ))
        .into());
    }
    let boot = args.bootstrap.bootstrap();
    let mut tuning = choose(&sweep, args.pattern.as_deref(), &boot).map_err(classify)?;
    let mut warnings = Vec::new();
    let sets = rules_of(&tuning, args.outside, &mut warnings);
    annotate(&mut tuning, &sets);
    for w in &warnings {
        eprintln!("delaybench: warning: {w}");
    }
    let text = file_text(args.library, &sets, &tuning, sweep.simulated).map_err(classify)?;
    std::fs::write(&args.output, text)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    let out = &mut std::io::stdout().lock();
    write_table(&tuning.choices, args.format, &HEADERS, cells, out)?;
    if args.format.exporter().is_markup() {
        for line in notes(&tuning) {
            writeln!(out, "{line}")?;
        }
    }
    out.flush()?;
    eprintln!(
        "delaybench: wrote {} for {} ({}); launch with {}",
        args.output.display(),
        name,
        tuning.pattern,
        launch_env(args.library, &args.output).join(" ")
    );
    if args.verify {
        let checks = verify(&args, &sweep, &tuning, &sets)?;
        let shown = if args.format.exporter().is_markup() {
            args.format
        } else {
            Format::Table
        };
        if args.format.exporter().is_markup() {
            writeln!(out)?;
            write_table(&checks, shown, &CHECK_HEADERS, check_cells, out)?;
        } else {
            let mut err = std::io::stderr().lock();
            write_table(&checks, shown, &CHECK_HEADERS, check_cells, &mut err)?;
        }
        let ignored: Vec<&RuleCheck> = checks
            .iter()
            .filter(|c| c.verdict == Verdict::Ignored)
            .collect();
        if !ignored.is_empty() {
            bail!(
                "{} of {} rules were not obeyed (see the table: why)",
                ignored.len(),
                checks.len()
            );
        }
    }
    Ok(())
}

/// The tuning file of `library`.
fn file_text(
    library: TuneLibrary,
    sets: &[RuleSet],
    tuning: &Tuning,
    simulated: bool,
) -> Result<String, TuneError> {
    match library {
        TuneLibrary::Openmpi => openmpi_rules(sets, tuning, simulated),
        TuneLibrary::Mpich => mpich_json(sets, tuning, simulated),
    }
}

/// The environment that makes `library` read the tuning file `file`.
fn launch_env(library: TuneLibrary, file: &Path) -> Vec<String> {
    let abs = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    match library {
        TuneLibrary::Openmpi => vec![
            "OMPI_MCA_coll_tuned_use_dynamic_rules=1".into(),
            format!(
                "OMPI_MCA_coll_tuned_dynamic_rules_filename={}",
                abs.display()
            ),
        ],
        TuneLibrary::Mpich => vec![format!(
            "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={}",
            abs.display()
        )],
    }
}

const HEADERS: [&str; 10] = [
    "op",
    "P",
    "size range",
    "chosen",
    "median\nchosen (us)",
    "median\ndefault (us)",
    "fastest: gain\n[CI] (us)",
    "p",
    "kept default because",
    "balanced\nchooses",
];

fn range<T: std::fmt::Display>(lo: Option<T>, hi: Option<T>, show: impl Fn(T) -> String) -> String {
    match (lo, hi) {
        (Some(lo), Some(hi)) => format!("{}..{}", show(lo), show(hi)),
        (Some(lo), None) => format!("{}..", show(lo)),
        _ => "-".into(),
    }
}

fn us(s: Option<f64>) -> String {
    s.map_or_else(|| "-".into(), |s| format!("{:.2}", s * 1e6))
}

fn cells(c: &Choice) -> Vec<String> {
    vec![
        c.op.name().into(),
        range(c.p_lo, c.p_hi, |p| p.to_string()),
        range(c.size_lo, c.size_hi, format_bytes),
        c.chosen.clone(),
        us(c.chosen_median_s),
        us(c.default_median_s),
        match (c.gain_s, c.gain_ci_lo_s, c.gain_ci_hi_s) {
            (Some(g), Some(lo), Some(hi)) => format!(
                "{} {} [{}, {}]",
                c.fastest,
                us(Some(g)),
                us(Some(lo)),
                us(Some(hi))
            ),
            (Some(g), ..) => format!("{} {}", c.fastest, us(Some(g))),
            _ => "-".into(),
        },
        c.p_value.map_or_else(|| "-".into(), |p| format!("{p:.3}")),
        if c.kept_default_because.is_empty() {
            "-".into()
        } else {
            c.kept_default_because.clone()
        },
        if c.balanced_choice.is_empty() {
            "-".into()
        } else {
            c.balanced_choice.clone()
        },
    ]
}

/// What the table means, and how the choice under the pattern differs from balanced.
fn notes(t: &Tuning) -> Vec<String> {
    let mut out = vec![
        format!(
            "pattern {} (records hold: {}); median t_global; gain: median(default) - median(fastest)",
            t.pattern,
            t.patterns.join(", ")
        ),
        format!(
            "  with its bootstrap interval; chosen only when that interval lies above 0 and the \
             comparison is a discovery at FDR {} over all {} comparisons with default.",
            t.fdr, t.comparisons
        ),
    ];
    if t.pattern != BALANCED {
        let differ: Vec<String> = t
            .choices
            .iter()
            .filter(|c| !c.balanced_choice.is_empty() && c.balanced_choice != c.chosen)
            .map(|c| {
                format!(
                    "{} P={} {}: {} (balanced: {})",
                    c.op,
                    c.nprocs,
                    format_bytes(c.bytes),
                    c.chosen,
                    c.balanced_choice
                )
            })
            .collect();
        out.push(if differ.is_empty() {
            format!(
                "the choice under {} is the same as under balanced arrivals everywhere",
                t.pattern
            )
        } else {
            format!("differs from balanced: {}", differ.join("; "))
        });
    }
    out
}

const CHECK_HEADERS: [&str; 8] = [
    "op",
    "P",
    "size range",
    "rule",
    "launch",
    "expected",
    "observed",
    "verdict / why",
];

fn check_cells(c: &RuleCheck) -> Vec<String> {
    let verdict = serde_json::to_value(c.verdict)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    vec![
        c.op.name().into(),
        c.nprocs.to_string(),
        range(Some(c.size_lo), c.size_hi, format_bytes),
        c.algorithm.clone(),
        c.launch.clone(),
        c.expected.clone().unwrap_or_else(|| "-".into()),
        c.observed.clone().unwrap_or_else(|| "-".into()),
        if c.why.is_empty() {
            verdict
        } else {
            format!("{verdict}: {}", c.why)
        },
    ]
}

/// Launches delaybench under the file as written and under one probe file per rule, and
/// checks every rule.
fn verify(
    args: &TuneArgs,
    sweep: &Sweep,
    tuning: &Tuning,
    sets: &[RuleSet],
) -> Result<Vec<RuleCheck>> {
    let launcher = args.launcher.clone().unwrap_or_else(|| {
        std::env::var("DELAYBENCH_MPIEXEC").unwrap_or_else(|_| match args.library {
            TuneLibrary::Openmpi => "mpirun".into(),
            TuneLibrary::Mpich => "mpiexec.mpich".into(),
        })
    });
    let exe = match &args.verify_exe {
        Some(p) => p.clone(),
        None => std::env::current_exe().context("cannot find this delaybench binary")?,
    };
    let work = std::env::temp_dir().join(format!("delaybench-tune-{}", std::process::id()));
    std::fs::create_dir_all(&work).with_context(|| format!("cannot create {}", work.display()))?;
    let mut ops: Vec<&str> = Vec::new();
    let mut procs: Vec<u32> = Vec::new();
    for c in &tuning.choices {
        if !ops.contains(&c.op.name()) {
            ops.push(c.op.name());
        }
        if !procs.contains(&c.nprocs) {
            procs.push(c.nprocs);
        }
    }
    procs.sort_unstable();
    let np = *procs.last().context("nothing to verify")?;
    let mut checks = Vec::new();
    let launches: Vec<Option<usize>> = std::iter::once(None)
        .chain((0..probes_needed(sets)).map(Some))
        .collect();
    for probe in launches {
        let file = match probe {
            None => args.output.clone(),
            Some(k) => {
                let (text, _) = match args.library {
                    TuneLibrary::Openmpi => {
                        openmpi_rules_for_probe(sets, tuning, sweep.simulated, k)
                    }
                    TuneLibrary::Mpich => mpich_json_for_probe(sets, tuning, sweep.simulated, k),
                }
                .map_err(classify)?;
                let f = work.join(format!("probe-{}.rules", k + 1));
                std::fs::write(&f, text)?;
                f
            }
        };
        let records = work.join(format!("launch-{}.cbor", probe.map_or(0, |k| k + 1)));
        let procs: Vec<String> = procs.iter().map(u32::to_string).collect();
        let mut cmd = Command::new(&launcher);
        cmd.arg("-np")
            .arg(np.to_string())
            .arg(&exe)
            .args([
                "--ops",
                &ops.join(","),
                "--sizes",
                "8",
                "--procs",
                &procs.join(","),
            ])
            .args([
                "--nrep",
                "2",
                "--warmup",
                "1",
                "--algorithm-from-env",
                "--no-noise-check",
            ])
            .args(["--no-figures", "--no-summary", "--quiet", "--output"])
            .arg(&records)
            .current_dir(&work)
            .stdin(Stdio::null());
        // A forced algorithm in the environment would be recorded instead of the file's.
        for (k, _) in std::env::vars() {
            if k.starts_with("OMPI_MCA_coll_tuned_") || k.starts_with("MPIR_CVAR_") {
                cmd.env_remove(k);
            }
        }
        for kv in launch_env(args.library, &file) {
            let (k, v) = kv.split_once('=').expect("KEY=VALUE");
            cmd.env(k, v);
        }
        eprintln!(
            "delaybench: verify: {} ({})",
            file.display(),
            probe.map_or_else(
                || "the file as written".to_string(),
                |k| format!("probe {}", k + 1)
            )
        );
        run_with_deadline(cmd, Duration::from_secs(600))?;
        let rec = crate::records::read_records(&records)
            .with_context(|| format!("cannot read the verification run {}", records.display()))?;
        let observed: Vec<(crate::plan::Op, u32, Option<String>)> = rec
            .blocks
            .iter()
            .map(|b| {
                (
                    b.op,
                    b.nprocs,
                    b.algorithm_check
                        .as_ref()
                        .and_then(|c| c.fingerprint.clone()),
                )
            })
            .collect();
        checks.extend(check_rules(sweep, tuning, sets, probe, &observed));
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(checks)
}

/// Runs `cmd`, its output captured, and fails with its stderr when it fails or outlives
/// `deadline` (then it is killed: it is this process's own child).
fn run_with_deadline(mut cmd: Command, deadline: Duration) -> Result<()> {
    let err_path: PathBuf =
        std::env::temp_dir().join(format!("delaybench-tune-{}-stderr.txt", std::process::id()));
    let err_file = std::fs::File::create(&err_path)?;
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(err_file)
        .spawn()
        .context("cannot start the MPI launcher (--launcher)")?;
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break Some(s);
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let _ = std::fs::remove_file(&err_path);
    match status {
        // 4: a block without a valid repetition; its fingerprint was still taken.
        Some(s) if s.success() || s.code() == Some(4) => Ok(()),
        Some(s) => bail!("the verification launch failed ({s}):\n{stderr}"),
        None => bail!(
            "the verification launch ran longer than {} s and was stopped:\n{stderr}",
            deadline.as_secs()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tuning::TUNE_SCHEMA_VERSION;
    use crate::plan::Op;

    fn choice(chosen: &str, balanced: &str) -> Choice {
        Choice {
            schema_version: TUNE_SCHEMA_VERSION,
            op: Op::Allreduce,
            nprocs: 4,
            bytes: 8,
            pattern: "50us@0".into(),
            p_lo: Some(3),
            p_hi: Some(4),
            size_lo: Some(8),
            size_hi: Some(90),
            chosen: chosen.into(),
            chosen_value: None,
            fastest: chosen.into(),
            algorithms: 2,
            chosen_median_s: Some(50e-6),
            default_median_s: Some(60e-6),
            valid_fastest: 30,
            valid_default: 30,
            gain_s: Some(10e-6),
            gain_ci_lo_s: Some(9e-6),
            gain_ci_hi_s: Some(11e-6),
            p_value: Some(0.001),
            significant: chosen != "default",
            kept_default_because: String::new(),
            balanced_choice: balanced.into(),
            chosen_fingerprint: None,
            default_fingerprint: None,
            run_ids: "r".into(),
        }
    }

    fn tuning(choices: Vec<Choice>) -> Tuning {
        Tuning {
            pattern: "50us@0".into(),
            patterns: vec!["balanced".into(), "50us@0".into()],
            choices,
            fdr: 0.05,
            comparisons: 3,
        }
    }

    #[test]
    fn the_notes_say_where_the_pattern_changes_the_choice() {
        let n = notes(&tuning(vec![choice("ring", "default")]));
        assert!(
            n.last()
                .unwrap()
                .contains("allreduce P=4 8B: ring (balanced: default)"),
            "{n:?}"
        );
        let n = notes(&tuning(vec![choice("ring", "ring")]));
        assert!(
            n.last().unwrap().contains("the same as under balanced"),
            "{n:?}"
        );
        let c = cells(&choice("ring", "default"));
        assert_eq!(c[1], "3..4");
        assert_eq!(c[2], "8B..90B");
        assert_eq!(c[6], "ring 10.00 [9.00, 11.00]");
    }
}
