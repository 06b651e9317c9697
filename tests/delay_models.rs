//! Delay models drawn through `delay_matrix`: sample moments against the model, determinism,
//! and the errors of bad specs.

use delaybench::delay::{delay_matrix, DelayModel, DelayModelError, RankSelection};
use std::io::Write;

const P: u32 = 20;
const NREP: u32 = 1000; // 20 000 draws with `all`

fn hosts() -> Vec<String> {
    vec!["node0".to_string(); P as usize]
}

fn draws(model: &DelayModel, seed: u64) -> Vec<f64> {
    delay_matrix(model, &RankSelection::all(), P, &hosts(), NREP, seed, 0)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn sd(v: &[f64]) -> f64 {
    let m = mean(v);
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    0.5 * (s[s.len() / 2 - 1] + s[s.len() / 2])
}

fn within(value: f64, expected: f64, rel: f64) -> bool {
    (value - expected).abs() <= rel * expected.abs() + 1e-15
}

/// Checks 20 000 draws of `spec` against its mean and spread, and against `expect_mean_s`,
/// `expect_sd_s` computed by hand in the test (so a wrong `mean_s` cannot hide a wrong
/// sampler).
fn check_moments(spec: &str, expect_mean_s: f64, expect_sd_s: f64, sd_rel: f64) -> Vec<f64> {
    let model: DelayModel = spec.parse().unwrap();
    assert!(
        within(model.mean_s(), expect_mean_s, 1e-4),
        "{spec}: mean_s {} expected {expect_mean_s}",
        model.mean_s()
    );
    assert!(
        within(model.sd_s(), expect_sd_s, 1e-4),
        "{spec}: sd_s {} expected {expect_sd_s}",
        model.sd_s()
    );
    let v = draws(&model, 42);
    assert_eq!(v.len(), (P * NREP) as usize);
    assert!(
        v.iter().all(|&x| x.is_finite() && x >= 0.0),
        "{spec}: negative draw"
    );
    let (m, s) = (mean(&v), sd(&v));
    assert!(
        within(m, expect_mean_s, 0.03),
        "{spec}: sample mean {m:e} vs {expect_mean_s:e}"
    );
    assert!(
        within(s, expect_sd_s, sd_rel),
        "{spec}: sample sd {s:e} vs {expect_sd_s:e}"
    );
    v
}

#[test]
fn fixed() {
    let v = check_moments("50us", 50e-6, 0.0, 0.0);
    assert!(v.iter().all(|&x| x == 50e-6));
    let v = check_moments("fixed:1ms", 1e-3, 0.0, 0.0);
    assert!(v.iter().all(|&x| x == 1e-3));
}

#[test]
fn uniform() {
    let v = check_moments("uniform:20us..80us", 50e-6, 60e-6 / 12f64.sqrt(), 0.05);
    assert!(v.iter().all(|&x| (20e-6..80e-6).contains(&x)));
    // Both halves of the range are hit about equally.
    let low = v.iter().filter(|&&x| x < 50e-6).count() as f64 / v.len() as f64;
    assert!(within(low, 0.5, 0.05), "{low}");
}

#[test]
fn normal_far_from_zero() {
    check_moments("normal:50us,10us", 50e-6, 10e-6, 0.05);
}

#[test]
fn normal_truncated_by_resampling() {
    // mean 10 us, sd 10 us: alpha = -1, lambda = phi(1) / Phi(1) = 0.241971 / 0.841345.
    let lambda: f64 = 0.241_970_724_519_143_37 / 0.841_344_746_068_542_9;
    let mean = 10e-6 * (1.0 + lambda);
    let sd = 10e-6 * (1.0 - lambda - lambda * lambda).sqrt();
    let v = check_moments("normal:10us,10us", mean, sd, 0.05);
    // Resampling, not clamping: no pile of exact zeros.
    assert!(v.iter().filter(|&&x| x == 0.0).count() < 5);
}

#[test]
fn exponential() {
    let v = check_moments("exp:20us", 20e-6, 20e-6, 0.05);
    assert!(within(median(&v), 20e-6 * std::f64::consts::LN_2, 0.05));
}

#[test]
fn lognormal_takes_mean_and_sd() {
    let v = check_moments("lognormal:50us,20us", 50e-6, 20e-6, 0.08);
    // median = mean / sqrt(1 + cv^2)
    let expect = 50e-6 / (1.0f64 + 0.4 * 0.4).sqrt();
    assert!(within(median(&v), expect, 0.03), "{}", median(&v));
}

#[test]
fn gamma() {
    check_moments("gamma:2,10us", 20e-6, 2f64.sqrt() * 10e-6, 0.05);
}

#[test]
fn pareto() {
    // scale 10 us, shape 5: mean 12.5 us, sd = 10/4 * sqrt(5/3) us; minimum 10 us.
    let v = check_moments(
        "pareto:10us,5",
        12.5e-6,
        2.5e-6 * (5.0f64 / 3.0).sqrt(),
        0.15,
    );
    assert!(v.iter().all(|&x| x >= 10e-6));
}

#[test]
fn trace_file_cycles_in_order() {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    writeln!(file, "# three delays\n10us\n0.00003 # seconds\n\n20us").unwrap();
    let path = file.path().to_str().unwrap().to_string();
    let model: DelayModel = format!("trace:{path}").parse().unwrap();
    assert_eq!(model.label(), format!("trace:{path}"));
    assert!(within(model.mean_s(), 20e-6, 1e-9));
    // The values travel with the model: the file is not needed any more.
    drop(file);
    let json = serde_json::to_string(&model).unwrap();
    let back: DelayModel = serde_json::from_str(&json).unwrap();
    let v = draws(&back, 1);
    assert!(within(mean(&v), 20e-6, 1e-3));
    let expected: Vec<f64> = [10e-6, 30e-6, 20e-6].repeat(7)[..20].to_vec();
    for (a, b) in v[..20].iter().zip(&expected) {
        assert!((a - b).abs() < 1e-15, "{:?}", &v[..6]);
    }
}

#[test]
fn same_seed_same_matrix_other_seed_or_stream_differs() {
    let model: DelayModel = "exp:20us".parse().unwrap();
    let sel: RankSelection = "random:3".parse().unwrap();
    let m = |seed, stream| delay_matrix(&model, &sel, P, &hosts(), 200, seed, stream);
    assert_eq!(m(7, 1), m(7, 1));
    assert_ne!(m(7, 1), m(8, 1));
    assert_ne!(m(7, 1), m(7, 2));
    // (seed, stream) pairs are keyed apart, not combined by xor.
    assert_ne!(m(1, 2), m(2, 1));
    assert_ne!(m(3, 0), m(0, 3));
}

#[test]
fn bad_specs_give_documented_errors() {
    let err = |s: &str| s.parse::<DelayModel>().unwrap_err();
    let cases: [(&str, &str); 9] = [
        ("50", "has no unit"),
        ("-50us", "negative"),
        ("poisson:5us", "unknown delay model 'poisson'"),
        ("normal:50us", "normal takes MEAN,SD"),
        ("uniform:80us..20us", "lower bound is above the upper bound"),
        ("gamma:two,10us", "shape 'two' is not a positive number"),
        ("pareto:10us,0.8", "infinite mean"),
        ("exp:0", "must be greater than 0"),
        ("trace:/nonexistent/delays.txt", "cannot read delay trace"),
    ];
    for (spec, says) in cases {
        let msg = err(spec).to_string();
        assert!(msg.contains(says), "{spec}: {msg}");
        // Every message names the spec or the file and shows a correct example or the rule.
        assert!(
            msg.contains(spec.split(':').next_back().unwrap()) || msg.contains(spec),
            "{spec}: {msg}"
        );
    }
    assert!(matches!(
        err("lognormal:0,1us"),
        DelayModelError::Zero { .. }
    ));
    let mut bad = tempfile::NamedTempFile::new().unwrap();
    writeln!(bad, "10us\n20us\n-5us").unwrap();
    let path = bad.path().to_str().unwrap();
    match err(&format!("trace:{path}")) {
        DelayModelError::TraceValue { line, .. } => assert_eq!(line, 3),
        other => panic!("{other}"),
    }
}
