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

// Samples and stored representations as the implementation with one enum for all models gave
// them, before each model moved to a file of its own. The measurement seeds its delays, so the
// same seed must keep drawing the same delays, and plans stored in records headers must keep
// reading back; reorganising the code may change neither. The pins hold for the rand and
// rand_distr versions in Cargo.lock: an upgrade that changes their streams updates them
// deliberately.

/// The stored form of the trace model (the file's values travel with it).
const TRACE_JSON: &str = r#"{"model":"trace","path":"delays.txt","values_s":[1e-5,3e-5,2e-5]}"#;

fn pinned_model(spec: &str) -> DelayModel {
    if spec == "trace" {
        serde_json::from_str(TRACE_JSON).unwrap()
    } else {
        spec.parse().unwrap()
    }
}

/// `sample(StdRng::seed_from_u64(2024), i)` for i = 0..4, as bit patterns.
const PINNED_SAMPLES: [(&str, [u64; 4]); 10] = [
    (
        "50us",
        [
            0x3f0a36e2eb1c432d,
            0x3f0a36e2eb1c432d,
            0x3f0a36e2eb1c432d,
            0x3f0a36e2eb1c432d,
        ],
    ),
    (
        "uniform:20us..80us",
        [
            0x3f122a4f0f301757,
            0x3f0a893e6e7a840e,
            0x3f0d80b813cb157e,
            0x3f01fda76d05a8b0,
        ],
    ),
    (
        "normal:50us,10us",
        [
            0x3f0f24535d3a1dfc,
            0x3f0a705ad9c99008,
            0x3f0b127f274e8ff1,
            0x3f06e9de90a0568e,
        ],
    ),
    (
        "normal:0us,10us",
        [
            0x3ee3b5c1c8776b3b,
            0x3e9cbbf756a66dae,
            0x3ebb738786499872,
            0x3ee1b027f6ab7200,
        ],
    ),
    (
        "exp:20us",
        [
            0x3efa77d60cb415bb,
            0x3efe77a923512b94,
            0x3edbbafc5e6a0f69,
            0x3ed638e1912f4f05,
        ],
    ),
    (
        "lognormal:50us,20us",
        [
            0x3f117ac21702ea45,
            0x3f08be893602f09c,
            0x3f09ec5113b1ab2c,
            0x3f0318eab0af1c13,
        ],
    ),
    (
        "gamma:2,10us",
        [
            0x3f00c4a0193e3d4d,
            0x3ef3c93f9733859e,
            0x3ee5d9b166579d4b,
            0x3ed760bad2d4ebd3,
        ],
    ),
    (
        "gamma:0.5,10us",
        [
            0x3ee12dacc60d4026,
            0x3e992f212ecca308,
            0x3ea975200cf171f2,
            0x3eeaa6e432dbd328,
        ],
    ),
    (
        "pareto:10us,2.5",
        [
            0x3ee6afc479f6d569,
            0x3eeb72e99ee7ad4e,
            0x3ee9a600d4bde6c1,
            0x3ef299f759178d52,
        ],
    ),
    (
        "trace",
        [
            0x3ee4f8b588e368f1,
            0x3eff75104d551d69,
            0x3ef4f8b588e368f1,
            0x3ee4f8b588e368f1,
        ],
    ),
];

#[test]
fn samples_match_the_pinned_draws() {
    use rand::SeedableRng;
    for (spec, bits) in PINNED_SAMPLES {
        let model = pinned_model(spec);
        let mut rng = rand::rngs::StdRng::seed_from_u64(2024);
        let got: Vec<u64> = (0..4)
            .map(|i| model.sample(&mut rng, i).to_bits())
            .collect();
        let want: Vec<f64> = bits.iter().map(|b| f64::from_bits(*b)).collect();
        let got_s: Vec<f64> = got.iter().map(|b| f64::from_bits(*b)).collect();
        assert_eq!(got, bits, "{spec}: drew {got_s:?}, pinned {want:?}");
    }
}

/// `delay_matrix(model, random:2, p = 6, nrep = 3, seed 11, stream 5)`, as bit patterns.
const PINNED_MATRICES: [(&str, [u64; 18]); 2] = [
    (
        "exp:20us",
        [
            0x0000000000000000,
            0x3f01796f7194c12b,
            0x0000000000000000,
            0x0000000000000000,
            0x0000000000000000,
            0x3ecc1841041c7071,
            0x0000000000000000,
            0x3eb5c1cc719bbeac,
            0x3f018ffa9f3d7b16,
            0x0000000000000000,
            0x0000000000000000,
            0x0000000000000000,
            0x3ee34177312f17e3,
            0x0000000000000000,
            0x3ece8489e4319d9f,
            0x0000000000000000,
            0x0000000000000000,
            0x0000000000000000,
        ],
    ),
    (
        "gamma:0.5,10us",
        [
            0x0000000000000000,
            0x3ee7b174a550de06,
            0x0000000000000000,
            0x0000000000000000,
            0x0000000000000000,
            0x3e5b8bd07a3b47e6,
            0x3ea3a8c3eb33cd3e,
            0x0000000000000000,
            0x3edf9eaa47c9303b,
            0x0000000000000000,
            0x0000000000000000,
            0x0000000000000000,
            0x3ed8e13fb28c2a36,
            0x0000000000000000,
            0x0000000000000000,
            0x0000000000000000,
            0x3ec8487e2f32fa56,
            0x0000000000000000,
        ],
    ),
];

#[test]
fn delay_matrices_match_the_pinned_ones() {
    let hosts = vec!["node0".to_string(); 6];
    let sel: RankSelection = "random:2".parse().unwrap();
    for (spec, bits) in PINNED_MATRICES {
        let m = delay_matrix(&spec.parse().unwrap(), &sel, 6, &hosts, 3, 11, 5);
        let got: Vec<u64> = m.iter().map(|v| v.to_bits()).collect();
        assert_eq!(got, bits, "{spec}: {m:?}");
    }
}

/// Each model as serde_json writes it into a plan, and as CBOR (hex) in a records header.
const STORED: [(&str, &str, &str); 10] = [
    (
        "50us",
        r#"{"model":"fixed","delay_s":0.00005}"#,
        "a2656d6f64656c6566697865646764656c61795f73fb3f0a36e2eb1c432d",
    ),
    (
        "uniform:20us..80us",
        r#"{"model":"uniform","low_s":0.00002,"high_s":0.00008}"#,
        "a3656d6f64656c67756e69666f726d656c6f775f73fb3ef4f8b588e368f166686967685f73fb3f14f8b588e368f1",
    ),
    (
        "normal:50us,10us",
        r#"{"model":"normal","mean_s":0.00005,"sd_s":0.00001}"#,
        "a3656d6f64656c666e6f726d616c666d65616e5f73fb3f0a36e2eb1c432d6473645f73fb3ee4f8b588e368f1",
    ),
    (
        "normal:0us,10us",
        r#"{"model":"normal","mean_s":0.0,"sd_s":0.00001}"#,
        "a3656d6f64656c666e6f726d616c666d65616e5f73f900006473645f73fb3ee4f8b588e368f1",
    ),
    (
        "exp:20us",
        r#"{"model":"exp","mean_s":0.00002}"#,
        "a2656d6f64656c63657870666d65616e5f73fb3ef4f8b588e368f1",
    ),
    (
        "lognormal:50us,20us",
        r#"{"model":"lognormal","mean_s":0.00005,"sd_s":0.00002}"#,
        "a3656d6f64656c696c6f676e6f726d616c666d65616e5f73fb3f0a36e2eb1c432d6473645f73fb3ef4f8b588e368f1",
    ),
    (
        "gamma:2,10us",
        r#"{"model":"gamma","shape":2.0,"scale_s":0.00001}"#,
        "a3656d6f64656c6567616d6d61657368617065f94000677363616c655f73fb3ee4f8b588e368f1",
    ),
    (
        "gamma:0.5,10us",
        r#"{"model":"gamma","shape":0.5,"scale_s":0.00001}"#,
        "a3656d6f64656c6567616d6d61657368617065f93800677363616c655f73fb3ee4f8b588e368f1",
    ),
    (
        "pareto:10us,2.5",
        r#"{"model":"pareto","scale_s":0.00001,"shape":2.5}"#,
        "a3656d6f64656c6670617265746f677363616c655f73fb3ee4f8b588e368f1657368617065f94100",
    ),
    (
        "trace",
        r#"{"model":"trace","path":"delays.txt","values_s":[0.00001,0.00003,0.00002]}"#,
        "a3656d6f64656c65747261636564706174686a64656c6179732e7478746876616c7565735f7383fb3ee4f8b588e368f1fb3eff75104d551d69fb3ef4f8b588e368f1",
    )
];

#[test]
fn stored_representations_read_back_and_are_written_alike() {
    for (spec, json, cbor_hex) in STORED {
        let model = pinned_model(spec);
        let cbor: Vec<u8> = (0..cbor_hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&cbor_hex[i..i + 2], 16).unwrap())
            .collect();
        let from_json: DelayModel = serde_json::from_str(json).unwrap();
        let from_cbor: DelayModel = ciborium::from_reader(&cbor[..]).unwrap();
        assert_eq!(from_json, model, "{spec}");
        assert_eq!(from_cbor, model, "{spec}");
        assert_eq!(serde_json::to_string(&model).unwrap(), json, "{spec}");
        let mut written = Vec::new();
        ciborium::into_writer(&model, &mut written).unwrap();
        assert_eq!(written, cbor, "{spec}: CBOR bytes differ");
    }
}
