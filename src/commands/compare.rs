//! `delaybench compare`: the same configurations of two records files side by side.

use super::reading::{analysis_of, launches, read_matched, refuse_repeated_runs};
use super::{finish, Run};
use crate::analysis::arrivals::report;
use crate::analysis::capture_compare::compare_captures;
use crate::analysis::{compare, Analysis, CompareSide, LaunchDigest};
use crate::exit::BadInput;

use crate::cli::CompareArgs;
use crate::export::{write_capture_compare, write_compare};
use crate::plot::{
    capture_side, write_capture_compare_page, write_compare_figures, write_compare_page, Side,
};
use crate::timeline::{GlobalTimes, Timeline};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

impl Run for CompareArgs {
    fn run(self) -> ExitCode {
        let (a, b) = (side_files(&self.a), side_files(&self.b));
        let (a, b) = match (a, b) {
            (Some(a), Some(b)) => (a, b),
            _ => return finish(compare_captures_of(self)),
        };
        let files: Vec<PathBuf> = a.iter().chain(&b).cloned().collect();
        finish(
            refuse_repeated_runs(&files)
                .map_err(anyhow::Error::from)
                .and_then(|()| compare_files(self, a, b)),
        )
    }
}

/// The records files of one side: the file itself, or the launches of a series
/// (`delaybench launches`' folder: its `launch-K.cbor`, in launch order); `None` for a
/// folder without them (a capture folder).
fn side_files(path: &Path) -> Option<Vec<PathBuf>> {
    if !path.is_dir() {
        return Some(vec![path.to_path_buf()]);
    }
    let mut launches: Vec<(u32, PathBuf)> = std::fs::read_dir(path)
        .ok()?
        .filter_map(|e| {
            let p = e.ok()?.path();
            Some((super::launches::launch_number(&p)?, p))
        })
        .collect();
    launches.sort();
    (!launches.is_empty()).then(|| launches.into_iter().map(|(_, p)| p).collect())
}

/// Two capture folders (`libdelaybench_capture.so`'s `DELAYBENCH_CAPTURE_DIR`): the time in
/// each call site's collectives before (A) and after (B).
fn compare_captures_of(args: CompareArgs) -> Result<()> {
    let CompareArgs {
        a,
        b,
        format,
        figures,
        html,
        bootstrap,
        ..
    } = args;
    for p in [&a, &b] {
        if !p.is_dir() {
            return Err(BadInput(format!(
                "{} is not a capture folder while the other side is: compare two records \
                 files, or two capture folders (DELAYBENCH_CAPTURE_DIR of each run)",
                p.display()
            ))
            .into());
        }
    }
    if figures.is_some() {
        return Err(BadInput(
            "--figures draws records comparisons only; two captures are compared as a table \
             and a page (--html FILE; draw each capture with `delaybench arrivals`)"
                .into(),
        )
        .into());
    }
    if let Some(page) = &html {
        check_page_path(page)?;
    }
    let boot = bootstrap.bootstrap();
    let read =
        |dir: &PathBuf| read_matched(std::slice::from_ref(dir), &format!("{}: ", dir.display()));
    let ((ca, ma), (cb, mb)) = (read(&a)?, read(&b)?);
    if ca.first().map(|c| &c.header.capture_id) == cb.first().map(|c| &c.header.capture_id) {
        return Err(BadInput(format!(
            "{} and {} hold the same capture: compare two runs of the application",
            a.display(),
            b.display()
        ))
        .into());
    }
    let (ra, rb) = (report(&ma, None), report(&mb, None));
    let compared = compare_captures((&ma, &ra), (&mb, &rb), &boot);
    if compared.sites.is_empty() {
        return Err(BadInput(format!(
            "{} and {} share no call site (site, operation, P, bytes): compare two runs of \
             the same binary",
            a.display(),
            b.display()
        ))
        .into());
    }
    write_capture_compare(&compared, &boot, format, &mut std::io::stdout().lock())?;
    if let Some(page) = html {
        let (side_a, side_b) = (capture_side(&a, &ca, &ma), capture_side(&b, &cb, &mb));
        write_capture_compare_page(&compared, &boot, &side_a, &side_b, &page)?;
        eprintln!("delaybench: comparison page: {}", page.display());
    }
    Ok(())
}

/// Records files of A against those of B: one file a side, or a series of launches a side
/// (each side's launches resampled as the unit, `analysis::over_launches`).
fn compare_files(args: CompareArgs, a: Vec<PathBuf>, b: Vec<PathBuf>) -> Result<()> {
    let CompareArgs {
        format,
        figures,
        html,
        bootstrap,
        times,
        ..
    } = args;
    if let Some(page) = &html {
        check_page_path(page)?;
    }
    let boot = bootstrap.bootstrap();
    let times = times.global_times;
    // Each side's digests stay: the intervals of the differences resample their t_globals.
    let read = |files: &Vec<PathBuf>| -> Result<(Vec<LaunchDigest>, Analysis)> {
        let launches = launches(files, times)?;
        let analysis = analysis_of(files, &launches, boot)?;
        Ok((launches, analysis))
    };
    let (la, lb) = (read(&a)?, read(&b)?);
    let (sa, sb) = (&la.1, &lb.1);
    for (side, x) in [("A", sa), ("B", sb)] {
        // A series' warnings name their launch's file themselves.
        let file = match &x.files[..] {
            [one] => format!(" ({one})"),
            _ => String::new(),
        };
        for w in &x.warnings {
            eprintln!("delaybench: warning: {side}{file}: {w}");
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
    if figures.is_none() && html.is_none() {
        return Ok(());
    }
    // The headers name each side's library, hosts and date under every figure.
    let side = |path: &Path| -> Result<Side> {
        let t = Timeline::open(path, GlobalTimes::Online)
            .with_context(|| format!("reading {}", path.display()))?;
        Ok(Side::of(path, t.header()))
    };
    // A series is labelled by its first launch's header.
    let (side_a, side_b) = (side(&a[0])?, side(&b[0])?);
    if let Some(dir) = figures {
        for p in write_compare_figures(&rows, &side_a, &side_b, &dir)? {
            eprintln!("delaybench: figure {}", p.display());
        }
    }
    if let Some(page) = html {
        write_compare_page(&rows, &boot, &side_a, &side_b, &page)?;
        eprintln!("delaybench: comparison page: {}", page.display());
    }
    Ok(())
}

/// `--html FILE` before anything is read: a file (not a folder) in a folder that exists.
///
/// Errors: [`BadInput`] saying which.
fn check_page_path(page: &Path) -> Result<(), BadInput> {
    if page.is_dir() {
        return Err(BadInput(format!(
            "--html {}: a folder; give the page's file name",
            page.display()
        )));
    }
    match page.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) if !dir.is_dir() => Err(BadInput(format!(
            "--html {}: the folder {} does not exist",
            page.display(),
            dir.display()
        ))),
        _ => Ok(()),
    }
}
