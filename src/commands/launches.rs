//! `delaybench launches N -- LAUNCHER...`: N launches of one measurement into one folder,
//! then the summary and figures decided over the launches.
//!
//! Launches, not repetitions, are the unit of replication (Hunold and Carpen-Amarie 2016,
//! §4: ReproMPI takes the median over `mpirun` calls): each launch is a whole `mpirun` (or
//! `srun`, or any launcher), so it draws its own process placement, buffers and library
//! state. The launches run one after the other, each into `DIR/launch-K.cbor`; a launch
//! that fails stops the series, and the records of the launches that finished stay, with
//! the command that analyses them.

use super::{dispatch, finish, Run};
use crate::cli::{Cli, LaunchesArgs};
use crate::exit::{BadInput, NO_VALID_EXIT};
use crate::output_name::check_fresh_dir;
use anyhow::{anyhow, Context, Result};
use clap::Parser;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

impl Run for LaunchesArgs {
    fn run(self) -> ExitCode {
        match launches(self) {
            Ok(files) => report(&files),
            Err(e) => finish(Err(e)),
        }
    }
}

/// Options that `launches` sets on every launch itself: given in the launcher's command line
/// they would name one file for all launches, or clash with the ones appended.
const SET_PER_LAUNCH: [&str; 5] = [
    "--output",
    "--figures",
    "--no-figures",
    "--no-summary",
    "--rotate",
];

/// The records file of launch `k` (from 1) in a series' folder: `DIR/launch-K.cbor`.
pub(super) fn launch_file(dir: &Path, k: u32) -> PathBuf {
    dir.join(format!("launch-{k}.cbor"))
}

/// The launch number of a series' records file named by [`launch_file`], `None` for any
/// other name.
pub(super) fn launch_number(file: &Path) -> Option<u32> {
    file.file_name()?
        .to_str()?
        .strip_prefix("launch-")?
        .strip_suffix(".cbor")?
        .parse()
        .ok()
}

/// Runs the launches; returns the records files written, in launch order.
fn launches(args: LaunchesArgs) -> Result<Vec<PathBuf>> {
    let LaunchesArgs {
        count,
        dir,
        launcher,
    } = args;
    if let Some(given) = launcher.iter().find(|a| {
        SET_PER_LAUNCH
            .iter()
            .any(|o| a == o || a.starts_with(&format!("{o}=")))
    }) {
        return Err(BadInput(format!(
            "{given} is set by `launches` on every launch (each writes DIR/launch-K.cbor, the \
             figures are drawn once over all launches): leave it out of the launcher's command \
             line, and choose the folder with --dir"
        ))
        .into());
    }
    let dir = dir.unwrap_or_else(|| {
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.6fZ");
        PathBuf::from(format!("results/launches-{stamp}-{}", std::process::id()))
    });
    check_fresh_dir(&dir, "--dir").map_err(BadInput)?;
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut files = Vec::new();
    let start = Instant::now();
    for k in 1..=count {
        let file = launch_file(&dir, k);
        let mut command = Command::new(&launcher[0]);
        command.args(&launcher[1..]).args([
            "--output".as_ref(),
            file.as_os_str(),
            "--tag".as_ref(),
            format!("launch={k}").as_ref(),
            "--no-figures".as_ref(),
            "--no-summary".as_ref(),
            // Launch K starts from the K-th configuration: a configuration measured first
            // in every launch would carry whatever the start of a run does to it.
            "--rotate".as_ref(),
            (k - 1).to_string().as_ref(),
        ]);
        eprintln!(
            "launches: launch {k} of {count} ({:.0} s so far): {}",
            start.elapsed().as_secs_f64(),
            shown(&command)
        );
        let status = command
            .status()
            .with_context(|| format!("starting {}", launcher[0]))?;
        match status.code() {
            Some(0) => files.push(file),
            // Some block had no valid repetition; the launch's other blocks stand, as at the
            // end of a single run.
            Some(c) if c == i32::from(NO_VALID_EXIT) && file.exists() => {
                eprintln!(
                    "launches: launch {k} ended with a block without a valid repetition (see \
                     above); its other blocks count"
                );
                files.push(file);
            }
            _ => return Err(stopped(k, count, status, &files, &dir)),
        }
    }
    eprintln!(
        "launches: {count} launches in {:.0} s, records in {}",
        start.elapsed().as_secs_f64(),
        dir.display()
    );
    Ok(files)
}

/// The error of a launch that failed or was interrupted: which, how, and what of the series
/// is kept and how to analyse it.
fn stopped(
    k: u32,
    count: u32,
    status: std::process::ExitStatus,
    done: &[PathBuf],
    dir: &Path,
) -> anyhow::Error {
    let kept = match done.len() {
        0 => "no launch finished".to_string(),
        n => format!(
            "the {n} launch(es) that finished are kept: delaybench analyze {}",
            done.iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ),
    };
    anyhow!(
        "launch {k} of {count} stopped ({status}); {kept}; {} holds the series",
        dir.display()
    )
}

/// The launcher's command line as a user would type it.
fn shown(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The summary over `files` on standard output and the figures in the folder's `report/`,
/// through `analyze` and `plot` themselves, so the series reads exactly as those commands
/// read it given the same files.
fn report(files: &[PathBuf]) -> ExitCode {
    let dir = files[0].parent().unwrap_or(Path::new("."));
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let report = dir.join("report");
    let commands = [
        [vec!["analyze".to_string()], names.clone()].concat(),
        [
            vec![
                "plot".to_string(),
                "--figures".into(),
                report.display().to_string(),
            ],
            names,
        ]
        .concat(),
    ];
    for args in commands {
        let cli = Cli::try_parse_from(std::iter::once("delaybench".to_string()).chain(args))
            .expect("analyze and plot take records files");
        let code = dispatch(cli, None);
        if code != ExitCode::SUCCESS {
            return code;
        }
    }
    eprintln!("launches: report in {}", report.display());
    ExitCode::SUCCESS
}
