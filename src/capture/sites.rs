//! A capture's instances by call site: the groups `arrivals` reports one row each, the waiting
//! at each, and the lateness vectors of one site that `--delay replay:CAPTURE@SITE` replays;
//! and the sites as a developer reads code ([`site_names`]).

use super::instance::Instance;
use super::matching::Matched;
use super::op::CaptureOp;
use super::reader::RankCapture;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// What identifies one call-site group: the site key (`module+0xoffset`), the communicator
/// identity and the operation.
pub type SiteKey = (String, u64, CaptureOp);

/// The instances grouped by (site, communicator, operation), in key order, each group in
/// instance order (of first entry): the rows of `arrivals`.
pub fn by_site(m: &Matched) -> BTreeMap<SiteKey, Vec<&Instance>> {
    let mut groups: BTreeMap<SiteKey, Vec<&Instance>> = BTreeMap::new();
    for inst in &m.instances {
        groups
            .entry((inst.site.clone(), inst.comm, inst.op))
            .or_default()
            .push(inst);
    }
    groups
}

/// Waiting time lost at a group of instances ([`Instance::waits`]), summed over the calls in
/// their order and over the ranks, seconds.
pub fn wait_total(insts: &[&Instance]) -> f64 {
    let mut total = 0.0;
    for inst in insts {
        total += inst.waits().iter().sum::<f64>();
    }
    total
}

/// The site key of the group with the most waiting ([`wait_total`]), the first in key order
/// among equal ones (the first row of `arrivals`); None without instances.
pub fn busiest_site(m: &Matched) -> Option<String> {
    let mut best: Option<(f64, String)> = None;
    for ((site, _, _), insts) in by_site(m) {
        let total = wait_total(&insts);
        // Strictly more: an equal total keeps the earlier key, as a stable sort would.
        if best
            .as_ref()
            .is_none_or(|(b, _)| total.total_cmp(b).is_gt())
        {
            best = Some((total, site));
        }
    }
    best.map(|(_, site)| site)
}

/// The lateness vectors of one site's calls, in call order, by communicator rank (seconds):
/// what `--delay replay:FILE@SITE` replays. `site` matches a site key, a label, or a
/// prefix of either; None takes the site with the most waiting ([`busiest_site`]).
pub fn site_lateness<'a>(
    m: &'a Matched,
    site: Option<&str>,
) -> Option<(&'a Instance, Vec<Vec<f64>>)> {
    let chosen = match site {
        Some(s) => m
            .instances
            .iter()
            .find(|i| i.site == s || i.site_label == s || i.site_label.starts_with(s))?
            .site
            .clone(),
        None => busiest_site(m)?,
    };
    let insts: Vec<&Instance> = m.instances.iter().filter(|i| i.site == chosen).collect();
    Some((insts[0], insts.iter().map(|i| i.lateness()).collect()))
}

/// Readable names of a capture's call sites, by site key (`module+0xoffset`), resolved
/// offline after the run (never in the shim's hot path):
/// - `function (file.c:42)` when the module is found and has debug information (DWARF,
///   read with the `addr2line` crate at the return address minus one, the call
///   instruction; the innermost, possibly inlined, function);
/// - else the symbol `dladdr` recorded, C++ names demangled (`cpp_demangle`, without the
///   parameters), with its offset and the key: `ns::f+0x1c (app+0x11c0)`;
/// - else the key.
///
/// A module is looked for as the application's `argv[0]` (`CaptureHeader::command`) and
/// in `search` (files, matched by file name, or directories holding the module). The
/// capture records module file names and offsets from the load address, so a file:line
/// needs a position-independent module (PIE executables, the default of Debian's
/// compilers, and shared libraries); a non-PIE executable keeps its symbol name.
pub fn site_names(captures: &[RankCapture], search: &[PathBuf]) -> HashMap<String, String> {
    let mut loaders: HashMap<String, Option<addr2line::Loader>> = HashMap::new();
    let mut names = HashMap::new();
    for c in captures {
        let argv0 = c.header.command.first().map(PathBuf::from);
        for site in &c.sites {
            let key = site.key();
            if names.contains_key(&key) {
                continue;
            }
            // A site read from an OTF2 archive is a region, named as the archive names it.
            if let (super::items::OTF2_MODULE, Some(symbol)) = (site.module.as_str(), &site.symbol)
            {
                names.insert(key, symbol.clone());
                continue;
            }
            let loader = loaders
                .entry(site.module.clone())
                .or_insert_with(|| {
                    module_file(&site.module, argv0.as_deref(), search)
                        .and_then(|p| addr2line::Loader::new(p).ok())
                })
                .as_ref();
            let line = loader.and_then(|l| line_of(l, site.offset.saturating_sub(1)));
            let name = match (line, &site.symbol) {
                (Some((Some(f), at)), _) => format!("{} ({at})", demangle(&f)),
                (Some((None, at)), Some(s)) => format!("{} ({at})", demangle(s)),
                (Some((None, at)), None) => format!("{key} ({at})"),
                (None, Some(s)) => {
                    format!("{}+{:#x} ({key})", demangle(s), site.symbol_offset)
                }
                (None, None) => key.clone(),
            };
            names.insert(key, name);
        }
    }
    names
}

/// A C++ symbol demangled without its parameters; any other name as it is.
pub fn demangle(symbol: &str) -> String {
    cpp_demangle::Symbol::new(symbol)
        .ok()
        .and_then(|s| {
            s.demangle_with_options(&cpp_demangle::DemangleOptions::new().no_params())
                .ok()
        })
        .unwrap_or_else(|| symbol.to_owned())
}

/// The file of `module` (a file name): `argv0` when it has that name, else the first
/// `search` entry that is that file or a directory holding it.
fn module_file(module: &str, argv0: Option<&Path>, search: &[PathBuf]) -> Option<PathBuf> {
    if module.is_empty() {
        return None;
    }
    let named = |p: &Path| p.file_name().is_some_and(|n| n == module) && p.is_file();
    argv0
        .filter(|p| named(p))
        .map(Path::to_path_buf)
        .or_else(|| {
            search.iter().find_map(|s| {
                if s.is_dir() {
                    Some(s.join(module)).filter(|p| p.is_file())
                } else {
                    named(s).then(|| s.clone())
                }
            })
        })
}

/// The function (innermost frame) and `file:line` of address `probe` in a module, None
/// without line information there.
fn line_of(loader: &addr2line::Loader, probe: u64) -> Option<(Option<String>, String)> {
    let loc = loader.find_location(probe).ok()??;
    let file = Path::new(loc.file?)
        .file_name()?
        .to_string_lossy()
        .into_owned();
    let at = format!("{file}:{}", loc.line?);
    let function = loader.find_frames(probe).ok().and_then(|mut frames| {
        let f = frames.next().ok()??;
        Some(f.function?.raw_name().ok()?.into_owned())
    });
    Some((function, at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::match_calls;
    use crate::capture::testdata::rank;
    use CaptureOp::*;

    #[test]
    fn site_lateness_gives_the_vectors_in_call_order() {
        let caps = vec![
            rank(
                0,
                2,
                0.0,
                &[(Allreduce, -1, 1.0, 2.0), (Allreduce, -1, 3.2, 4.0)],
            ),
            rank(
                1,
                2,
                0.0,
                &[(Allreduce, -1, 1.25, 2.0), (Allreduce, -1, 3.0, 4.0)],
            ),
        ];
        let m = match_calls(&caps).unwrap();
        let (first, v) = site_lateness(&m, Some("step")).unwrap();
        assert_eq!(first.op, Allreduce);
        assert_eq!(v.len(), 2);
        assert!((v[0][1] - 0.25).abs() < 1e-12 && (v[1][0] - 0.2).abs() < 1e-9);
        assert!(site_lateness(&m, Some("nope")).is_none());
    }

    #[test]
    fn sites_read_as_code_when_they_can() {
        assert_eq!(
            demangle("_ZN9LAMMPS_NS6Verlet3runEi"),
            "LAMMPS_NS::Verlet::run"
        );
        assert_eq!(demangle("main"), "main");
        let mut caps = vec![rank(0, 1, 0.0, &[(Allreduce, -1, 1.0, 2.0)])];
        caps[0].sites[0].symbol = Some("_ZN2ns4stepEv".into());
        let names = site_names(&caps, &[]);
        assert_eq!(names["app+0x10"], "ns::step+0x4 (app+0x10)");
        caps[0].sites[0].symbol = None;
        assert_eq!(site_names(&caps, &[])["app+0x10"], "app+0x10");
    }
}
