//! The LogGOPS engine's noise semantics (Hoefler, Schneider and Lumsdaine, SC 2010): a
//! detour lengthens only what the CPU is busy with, and co-scheduled noise costs less
//! (Beckman et al. 2008).

use delaybench::simulate::loggops::noise::Phase;
use delaybench::simulate::loggops::{
    collective, DetourTrace, Noise, Params, ScheduleBuilder, Simulator,
};

/// Rank r's detours `detours[r]` (start, duration in ns), at phase 0, repeating after 1 s.
fn detours_per_rank(detours: Vec<Vec<(f64, f64)>>) -> Noise {
    Noise::Detours {
        traces: detours
            .into_iter()
            .map(|d| DetourTrace::new(d, 1e9))
            .collect(),
        phase_ns: vec![0.0],
    }
}

/// Rank 0 sends 1 B to rank 1 and then computes 100 ns; rank 1 receives and then computes
/// 100 ns. Returns both ranks' end times under `noise`.
fn send_then_calc(noise: &mut Noise) -> Vec<f64> {
    let mut b = ScheduleBuilder::new(2);
    let send = b.send(0, 1, 1, 0);
    let after_send = b.calc(0, 100);
    b.requires(after_send, send);
    let recv = b.recv(1, 0, 1, 0);
    let after_recv = b.calc(1, 100);
    b.requires(after_recv, recv);
    let s = b.build().unwrap();
    Simulator::new(&Params::default())
        .run(&s, &[0.0, 0.0], noise)
        .unwrap()
}

// Without noise: rank 0's o is [0, 1500), its calc [1500, 1600); the message arrives at
// 1500 + 2500 = 4000, rank 1 takes it in [4000, 5500) and computes until 5600.
const QUIET: [f64; 2] = [1_600.0, 5_600.0];

#[test]
fn without_noise_the_model_gives_the_hand_computed_times() {
    assert_eq!(send_then_calc(&mut Noise::None), QUIET);
}

#[test]
fn a_detour_inside_a_sends_o_delays_the_senders_next_operation_but_not_the_message() {
    let mut noise = detours_per_rank(vec![vec![(500.0, 1_000.0)], vec![]]);
    let end = send_then_calc(&mut noise);
    assert_eq!(end[0], QUIET[0] + 1_000.0, "the sender's calc starts later");
    assert_eq!(end[1], QUIET[1], "the message arrives as without noise");
}

#[test]
fn a_detour_inside_a_receives_o_delays_the_receiver_and_what_depends_on_it() {
    let mut noise = detours_per_rank(vec![vec![], vec![(4_500.0, 1_000.0)]]);
    assert_eq!(send_then_calc(&mut noise), [QUIET[0], QUIET[1] + 1_000.0]);
    // The same detour already running when the message is taken costs its rest.
    let mut noise = detours_per_rank(vec![vec![], vec![(3_800.0, 1_000.0)]]);
    assert_eq!(send_then_calc(&mut noise), [QUIET[0], QUIET[1] + 800.0]);
}

#[test]
fn a_detour_while_a_rank_waits_costs_nothing() {
    // Rank 1 waits for the message from 0 to 4000; rank 0 is idle after 1600.
    let mut noise = detours_per_rank(vec![vec![(2_000.0, 5_000.0)], vec![(1_000.0, 2_900.0)]]);
    assert_eq!(send_then_calc(&mut noise), QUIET);
}

#[test]
fn a_detour_inside_a_calc_lengthens_it_by_the_detour() {
    let mut b = ScheduleBuilder::new(1);
    b.calc(0, 10_000);
    let s = b.build().unwrap();
    let mut sim = Simulator::new(&Params::default());
    let mut noise = detours_per_rank(vec![vec![(2_000.0, 300.0), (9_000.0, 200.0)]]);
    assert_eq!(sim.run(&s, &[0.0], &mut noise).unwrap(), [10_500.0]);
    // A calc that starts late (a late arrival) meets the detours of its own time.
    assert_eq!(sim.run(&s, &[5_000.0], &mut noise).unwrap(), [15_200.0]);
}

#[test]
fn a_trace_repeats_after_its_span_and_a_long_interval_meets_every_period() {
    let t = DetourTrace::new(vec![(100.0, 10.0)], 1_000.0);
    assert_eq!(t.extra_ns(1_050.0, 100.0), 10.0);
    assert_eq!(t.extra_ns(1_105.0, 10.0), 5.0);
    assert_eq!(t.extra_ns(0.0, 3_000.0), 30.0);
    assert_eq!(t.extra_ns(200.0, 50.0), 0.0);
}

#[test]
fn loggopsim_trace_format_reads_and_refuses_by_line() {
    let t = DetourTrace::parse("# start duration\n100\t20\n\n50 5\n", "n.txt").unwrap();
    assert_eq!(t.starts_ns, [50.0, 100.0]);
    assert_eq!(t.durations_ns, [5.0, 20.0]);
    let e = DetourTrace::parse("# x\n100 20\n7 seven\n", "n.txt")
        .unwrap_err()
        .to_string();
    assert!(e.contains("n.txt") && e.contains("line 3"), "{e}");
    assert!(DetourTrace::parse("# only a comment\n", "e.txt").is_err());
}

#[test]
fn synthetic_specifications_read_and_bad_ones_are_refused_naming_them() {
    for spec in [
        "periodic:10Hz:2.5ms",
        "poisson:1kHz:25us",
        "periodic:1MHz:100ns",
    ] {
        assert!(
            Noise::from_spec(spec, 4, Phase::Random(1)).is_ok(),
            "{spec}"
        );
    }
    for (spec, why) in [
        ("periodic:10:2.5ms", "no frequency"),
        ("periodic:10Hz:2500", "no unit"),
        ("wobbly:10Hz:1ms", "unknown source"),
        ("periodic:10Hz", "expected periodic"),
        ("periodic:1kHz:2ms", "no time"),
    ] {
        let e = Noise::from_spec(spec, 4, Phase::Random(1))
            .unwrap_err()
            .to_string();
        assert!(e.contains(spec) && e.contains(why), "{spec}: {e}");
    }
}

#[test]
fn co_scheduled_noise_never_ends_later_than_the_same_noise_at_random_phases() {
    let p = 4096;
    let params = Params::default();
    let s = collective("allreduce", Some("recursive_doubling"), p, 8).unwrap();
    let mut sim = Simulator::new(&params);
    let start = vec![0.0; p];
    let quiet = sim.run(&s, &start, &mut Noise::None).unwrap()[0];
    for spec in [
        "periodic:1kHz:25us",
        "periodic:10Hz:2.5ms",
        "poisson:1kHz:25us",
    ] {
        let (mut costlier, mut random_total, mut cosched_total) = (0, 0.0, 0.0);
        for seed in 0..20 {
            let mut at = |phase| {
                let mut noise = Noise::from_spec(spec, p, phase).unwrap();
                let end = sim.run(&s, &start, &mut noise).unwrap();
                end.into_iter().fold(0.0, f64::max)
            };
            let random = at(Phase::Random(seed));
            let cosched = at(Phase::CoScheduled(seed));
            assert!(cosched >= quiet && random >= quiet);
            costlier += usize::from(cosched > random);
            random_total += random;
            cosched_total += cosched;
        }
        assert_eq!(
            costlier, 0,
            "{spec}: co-scheduled ended later at some seeds"
        );
        assert!(cosched_total < random_total, "{spec}");
    }
}
