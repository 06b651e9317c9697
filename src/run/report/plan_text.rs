//! The plan as people read it: what `--dry-run` and `--verbose` print before a run.

use crate::plan::checks::Estimate;
use crate::plan::Plan;
use crate::units::{format_bytes, format_duration};

/// The plan as people read it, one item per line, with the block count and estimated
/// duration ([`Estimate`]): what `--dry-run` and `--verbose` print.
pub fn describe_plan(plan: &Plan, world_size: u32) -> String {
    let list = |items: Vec<String>| items.join(", ");
    let window = match plan.window_s {
        Some(w) => format_duration(w),
        None => "auto (sized from the warm-up)".into(),
    };
    let rows = [
        ("world size", world_size.to_string()),
        (
            "ops",
            list(plan.ops.iter().map(|o| o.to_string()).collect()),
        ),
        (
            "sizes",
            list(plan.sizes.iter().map(|&b| format_bytes(b)).collect()),
        ),
        (
            "P",
            list(plan.procs.iter().map(|p| p.to_string()).collect()),
        ),
        ("late ranks", plan.delay_ranks.to_string()),
        (
            "delays",
            list(plan.delays.iter().map(|d| d.label()).collect()),
        ),
        (
            "repetitions",
            format!("{} (+{} warm-up)", plan.nrep, plan.warmup),
        ),
        (
            "process sync",
            format!("{:?}, window {window}", plan.sync).to_lowercase(),
        ),
        ("clock sync", plan.clock_sync.name().to_string()),
        (
            "detours",
            match (&plan.detour, &plan.detour_noise_file) {
                (Some(d), _) => d.to_string(),
                (None, Some(t)) => format!(
                    "{t} ({} recorded ranks, {} s, CRC-32C {:08x})",
                    t.recorded_ranks, t.period_s, t.crc32c
                ),
                (None, None) => "none".into(),
            },
        ),
        ("seed", plan.seed.to_string()),
        ("estimate", Estimate::of(plan).to_string()),
    ];
    rows.iter()
        .map(|(k, v)| (*k, v.clone()))
        .chain(plan.delays.iter().filter_map(|d| replay_line(plan, d)))
        .map(|(k, v)| format!("delaybench: plan: {k:<13} {v}\n"))
        .collect()
}

/// The plan's line for a replayed capture site: its operation and size, how its ranks map,
/// and whether the run measures its operation. None for other delays.
fn replay_line(plan: &Plan, d: &crate::delay::DelayModel) -> Option<(&'static str, String)> {
    let r = crate::delay::models::replay::Replay::of(d)?;
    let calls = r.lateness_s.len() / r.recorded_size.max(1);
    let measured = match crate::plan::replay_choice::site_kernels(&r.op) {
        _ if r.op.is_empty() => String::new(),
        None => format!("; {} has no kernel: replayed on the ops above", r.op),
        Some(k) if plan.ops.iter().any(|o| k.contains(o)) => {
            format!("; the site's {} is measured", r.op)
        }
        Some(_) => format!("; the site's {} is NOT among the ops", r.op),
    };
    let counts = match r.capture_op() {
        Some(op) if op.has_count_vector() && r.counts.is_empty() => {
            "; no count vectors in the capture: uniform counts"
        }
        Some(op) if op.has_count_vector() => "; counts from the capture",
        _ => "",
    };
    Some((
        "replay",
        format!(
            "{} ({} {}, {calls} calls of {} ranks, map {}{measured}{counts})",
            r.site,
            if r.op.is_empty() { "op unknown" } else { &r.op },
            format_bytes(r.bytes),
            r.recorded_size,
            if r.map.is_empty() { "first" } else { &r.map },
        ),
    ))
}
