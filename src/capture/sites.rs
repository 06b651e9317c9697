//! A capture's instances by call site: the groups `arrivals` reports one row each, the waiting
//! at each, and the lateness vectors of one site that `--delay replay:CAPTURE@SITE` replays.

use super::instance::Instance;
use super::matching::Matched;
use super::op::CaptureOp;
use std::collections::BTreeMap;

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
}
