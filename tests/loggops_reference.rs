//! The LogGOPS engine against the reference values: LogGOPSim's documented results for
//! Schedgen's 16-rank dissemination barrier and 8-rank binomial reduce, the closed form
//! k(L + 2o) of dissemination and recursive doubling at P = 2^k, and a late rank's delay
//! passed on whole by a recursive-doubling allreduce.

use delaybench::simulate::loggops::{
    collective, parse_goal, write_goal, Noise, Params, Schedule, ScheduleBuilder, Simulator,
};

fn ends(schedule: &Schedule, params: &Params, start: &[f64]) -> Vec<f64> {
    Simulator::new(params)
        .run(schedule, start, &mut Noise::None)
        .unwrap()
}

fn at_zero(schedule: &Schedule, params: &Params) -> Vec<f64> {
    ends(schedule, params, &vec![0.0; schedule.num_ranks()])
}

/// The same schedule after a trip through GOAL text, which is what LogGOPSim reads.
fn through_goal(schedule: &Schedule) -> Schedule {
    let mut text = Vec::new();
    write_goal(schedule, &mut text).unwrap();
    parse_goal(std::str::from_utf8(&text).unwrap(), "emitted.goal").unwrap()
}

#[test]
fn schedgen_dissemination_of_16_ranks_ends_at_22000_ns_on_every_rank() {
    // LogGOPSim's defaults: L=2500, o=1500, g=1000, G=6, O=0, S=65535 (ns, ns/B, B).
    let params = Params::from_spec("L=2.5us,o=1.5us,g=1us,G=6ns,O=0,S=65535").unwrap();
    assert_eq!(params, Params::default());
    let s = collective("barrier", Some("dissemination"), 16, 1).unwrap();
    assert_eq!(at_zero(&s, &params), vec![22_000.0; 16]);
    assert_eq!(at_zero(&through_goal(&s), &params), vec![22_000.0; 16]);
}

#[test]
fn schedgen_binomial_reduce_of_8_ranks_and_1024_bytes_ends_as_documented() {
    let s = collective("reduce", Some("binomial"), 8, 1024).unwrap();
    let want = [
        34_914.0, 24_776.0, 13_138.0, 13_138.0, 1_500.0, 1_500.0, 1_500.0, 1_500.0,
    ];
    assert_eq!(at_zero(&s, &Params::default()), want);
    assert_eq!(at_zero(&through_goal(&s), &Params::default()), want);
}

/// Schedgen's GOAL text of the 4-rank dissemination, as its `Goal` class writes it (labels
/// numbered through the file, a requires line after the operations it joins).
#[test]
fn schedgen_shaped_goal_text_gives_the_closed_form() {
    let mut text = String::from("num_ranks 4\n");
    let mut id = 0;
    for r in 0..4 {
        text += &format!("\nrank {r} {{\n");
        let (s1, v1, s2, v2) = (id, id + 1, id + 2, id + 3);
        id += 4;
        text += &format!("l{s1}: send 1b to {} tag 0\n", (r + 1) % 4);
        text += &format!("l{v1}: recv 1b from {} tag 0\n", (r + 3) % 4);
        text += &format!("l{s2}: send 1b to {} tag 0\n", (r + 2) % 4);
        text += &format!("l{s2} requires l{v1}\n");
        text += &format!("l{v2}: recv 1b from {} tag 0\n}}\n", (r + 2) % 4);
    }
    let s = parse_goal(&text, "dissemination-4.goal").unwrap();
    assert_eq!(at_zero(&s, &Params::default()), vec![2.0 * 5_500.0; 4]);
}

#[test]
fn one_byte_dissemination_and_recursive_doubling_end_at_k_times_l_plus_2o() {
    for spec in ["", "L=1us,o=300ns,g=200ns,G=1ns", "L=700ns,o=2us,g=3us,G=0"] {
        let params = Params::from_spec(spec).unwrap();
        for k in 1..=10u32 {
            let p = 1usize << k;
            let want = k as f64 * (params.l_ns + 2.0 * params.o_ns);
            for (op, alg) in [
                ("barrier", "dissemination"),
                ("barrier", "recursive_doubling"),
                ("allreduce", "recursive_doubling"),
            ] {
                let s = collective(op, Some(alg), p, 1).unwrap();
                let got = at_zero(&s, &params);
                assert!(
                    got.iter().all(|&t| t == want),
                    "{op} {alg} P={p} [{spec}]: {:?} != {want}",
                    &got[..2]
                );
            }
        }
    }
}

/// A late rank's delay is never hidden by a recursive-doubling allreduce, and at P = 2, and
/// at P = 4 for small messages, it is passed on exactly: t0 + δ. Beyond, a rank late by more
/// than a few steps finds its partners' messages already there and takes them one after
/// another (each o + (s-1)G of CPU) before its second send, which then starts later than in
/// the undelayed pattern: when all k were there, the allreduce takes
/// t0 + δ + max(0, k(o + (s-1)G) - (L + o + (s-1)G)). LogGOPSim 76451de
/// gives the same end times for rank 0 behind a 50 µs calc at P = 8: 67,000 ns for 1 B and
/// 67,210 ns for 8 B (scripts/eval/loggopsim.sh, docs/simulate.md).
#[test]
fn a_late_rank_delays_a_recursive_doubling_allreduce_by_at_least_its_delay() {
    let params = Params::default();
    let latest = |p: usize, bytes: u64, start: &[f64]| {
        let s = collective("allreduce", Some("recursive_doubling"), p, bytes).unwrap();
        ends(&s, &params, start).into_iter().fold(0.0, f64::max)
    };
    for p in [2usize, 4, 8, 64, 1024] {
        for bytes in [1u64, 8, 4096] {
            let t0 = latest(p, bytes, &vec![0.0; p]);
            let k = p.trailing_zeros() as f64;
            let taken = params.o_ns + (bytes - 1) as f64 * params.big_g_ns;
            for late in [0, p / 2, p - 1] {
                for delta in [100.0, 50_000.0] {
                    let mut start = vec![0.0; p];
                    start[late] = delta;
                    let end = latest(p, bytes, &start);
                    let what = format!("P={p} {bytes} B rank {late} late by {delta} ns");
                    if p <= 4 && k * taken <= params.l_ns + taken {
                        assert_eq!(end, t0 + delta, "{what}");
                    }
                    assert!(end >= t0 + delta, "{what}: {end} < {t0} + {delta}");
                }
            }
        }
    }
    let mut start = vec![0.0; 8];
    start[0] = 50_000.0;
    assert_eq!(latest(8, 1, &start), 67_000.0);
    assert_eq!(latest(8, 8, &start), 67_210.0);
}

/// Rank 0 sends `bytes` to rank 1 and computes 100 ns once the send is done; rank 1
/// receives. Both ranks' end times.
fn send_then_calc(params: &Params, bytes: u64) -> Vec<f64> {
    let mut b = ScheduleBuilder::new(2);
    let send = b.send(0, 1, bytes, 0);
    let calc = b.calc(0, 100);
    b.requires(calc, send);
    b.recv(1, 0, bytes, 0);
    at_zero(&b.build().unwrap(), params)
}

#[test]
fn a_send_above_s_completes_at_the_match_and_one_at_s_when_it_starts() {
    let p = Params::default();
    let taken = |bytes: u64| 4_000.0 + 1_500.0 + (bytes - 1) as f64 * 6.0;
    // Eager: the calc follows the send's o; the receiver takes o + (s-1)G from 4000.
    assert_eq!(send_then_calc(&p, 65_535), [1_600.0, taken(65_535)]);
    // Rendezvous: the send is done when the message meets the posted receive at 4000.
    assert_eq!(send_then_calc(&p, 65_536), [4_100.0, taken(65_536)]);
}

#[test]
fn the_nic_gap_spaces_two_sends_and_o_per_byte_charges_the_cpu() {
    let p = Params::from_spec("g=5us").unwrap();
    let mut b = ScheduleBuilder::new(2);
    b.send(0, 1, 1, 0);
    b.send(0, 1, 1, 1);
    b.recv(1, 0, 1, 0);
    b.recv(1, 0, 1, 1);
    // The second send waits for the gap (5000); its message arrives at 9000.
    assert_eq!(at_zero(&b.build().unwrap(), &p), [6_500.0, 10_500.0]);
    let p = Params::from_spec("O=2ns,G=1ns").unwrap();
    // The sender's CPU: o + (s-1)O; the receiver's: o + max((s-1)O, (s-1)G).
    assert_eq!(send_then_calc(&p, 1_001), [3_600.0, 7_500.0]);
}

#[test]
fn a_receive_no_send_matches_is_refused_naming_rank_and_operation() {
    let mut b = ScheduleBuilder::new(3);
    b.send(0, 1, 8, 0);
    b.recv(1, 0, 8, 0);
    b.recv(2, 0, 8, 5);
    let s = b.build().unwrap();
    let e = Simulator::new(&Params::default())
        .run(&s, &[0.0; 3], &mut Noise::None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("receives no send matches") && e.contains("rank 2 op 0 (recv 8 B from 0 tag 5)"),
        "{e}"
    );
}
