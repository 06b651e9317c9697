//! `delaybench compare`: the same configurations of two records files side by side.

use super::reading::{analysis_of, launches, refuse_repeated_runs};
use super::{finish, Run};
use crate::analysis::{compare, Analysis, CompareSide, LaunchDigest};

use crate::cli::CompareArgs;
use crate::export::write_compare;
use crate::plot::{write_compare_figures, Side};
use crate::timeline::{GlobalTimes, Timeline};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

impl Run for CompareArgs {
    fn run(self) -> ExitCode {
        let files = [self.a.clone(), self.b.clone()];
        finish(
            refuse_repeated_runs(&files)
                .map_err(anyhow::Error::from)
                .and_then(|()| compare_files(self)),
        )
    }
}

fn compare_files(args: CompareArgs) -> Result<()> {
    let CompareArgs {
        a,
        b,
        format,
        figures,
        bootstrap,
        times,
    } = args;
    let boot = bootstrap.bootstrap();
    let times = times.global_times;
    // Each side's digests stay: the intervals of the differences resample their t_globals.
    let read = |file: &PathBuf| -> Result<(Vec<LaunchDigest>, Analysis)> {
        let files = std::slice::from_ref(file);
        let launches = launches(files, times)?;
        let analysis = analysis_of(files, &launches, boot)?;
        Ok((launches, analysis))
    };
    let (la, lb) = (read(&a)?, read(&b)?);
    let (sa, sb) = (&la.1, &lb.1);
    for (side, x) in [("A", sa), ("B", sb)] {
        for w in &x.warnings {
            eprintln!("delaybench: warning: {side} ({}): {w}", x.files[0]);
        }
    }
    let side_a = CompareSide {
        rows: &sa.rows,
        launches: &la.0,
    };
    let side_b = CompareSide {
        rows: &sb.rows,
        launches: &lb.0,
    };
    let (rows, unmatched) = compare(side_a, side_b, &boot);
    for (side, lone) in [("A", &unmatched.only_a), ("B", &unmatched.only_b)] {
        if !lone.is_empty() {
            eprintln!(
                "delaybench: note: {} configurations only in {side}, not compared: {}",
                lone.len(),
                lone.join("; ")
            );
        }
    }
    if rows.is_empty() {
        return Err(crate::exit::BadInput(format!(
            "{} and {} share no configuration (op, size, P, delay model): compare runs \
             of the same plan",
            sa.files[0], sb.files[0]
        ))
        .into());
    }
    write_compare(&rows, &boot, format, &mut std::io::stdout().lock())?;
    if let Some(dir) = figures {
        // The headers name each side's library, hosts and date under every figure.
        let side = |path: &Path| -> Result<Side> {
            let t = Timeline::open(path, GlobalTimes::Online)
                .with_context(|| format!("reading {}", path.display()))?;
            Ok(Side::of(path, t.header()))
        };
        for p in write_compare_figures(&rows, &side(&a)?, &side(&b)?, &dir)? {
            eprintln!("delaybench: figure {}", p.display());
        }
    }
    Ok(())
}
