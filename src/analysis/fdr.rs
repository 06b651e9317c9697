//! Control of the false discovery rate over the rows of one analysis: Benjamini and
//! Hochberg (1995, "Controlling the false discovery rate: a practical and powerful approach
//! to multiple testing", J. R. Statist. Soc. B 57(1), 289-300).
//!
//! An analysis tests the benefit of every delayed row at once, often hundreds; at 5 % each,
//! about one in twenty rows without any benefit would be called significant by chance alone.
//! Hoefler and Belli (2015, *Scientific benchmarking of parallel computing systems*) ask
//! for such comparisons to be controlled. No crate the project keeps does this; it is ten
//! lines.

/// Which of the hypotheses with p-values `p` the Benjamini-Hochberg step-up procedure
/// rejects at false discovery rate `q` (e.g. 0.05): sort the m p-values that are `Some`,
/// find the largest rank k with p_(k) ≤ k · q / m, and reject the k smallest. `None` stays
/// `None` (no test: it does not count in m). Valid for independent tests and for
/// positively dependent ones (Benjamini and Yekutieli 2001, Theorem 1.2), which rows sharing
/// one baseline are.
pub fn benjamini_hochberg(p: &[Option<f64>], q: f64) -> Vec<Option<bool>> {
    let mut order: Vec<(usize, f64)> = p
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|p| (i, p)))
        .collect();
    order.sort_by(|a, b| a.1.total_cmp(&b.1));
    let m = order.len() as f64;
    let k = order
        .iter()
        .enumerate()
        .rposition(|(rank, &(_, p))| p <= (rank + 1) as f64 * q / m)
        .map_or(0, |r| r + 1);
    let mut out: Vec<Option<bool>> = p.iter().map(|p| p.map(|_| false)).collect();
    for &(i, _) in &order[..k] {
        out[i] = Some(true);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worked_example_of_benjamini_and_hochberg() {
        // Their worked example: 15 p-values; at q = 0.05 the 4 smallest are rejected (p_(4) = 0.0095
        // <= 4 * 0.05 / 15 = 0.0133, p_(5) = 0.0201 > 0.0167, and none above passes).
        let p = [
            0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262,
            0.5719, 0.6528, 0.7590, 1.0,
        ];
        let p: Vec<Option<f64>> = p.iter().rev().map(|&x| Some(x)).collect();
        let r = benjamini_hochberg(&p, 0.05);
        let rejected: Vec<f64> = p
            .iter()
            .zip(&r)
            .filter(|(_, r)| **r == Some(true))
            .map(|(p, _)| p.unwrap())
            .collect();
        assert_eq!(rejected, [0.0095, 0.0019, 0.0004, 0.0001]);
        // Uncorrected, 9 of them are below 0.05.
        assert_eq!(p.iter().filter(|p| p.unwrap() < 0.05).count(), 9);
    }

    #[test]
    fn step_up_and_untested_rows() {
        // p_(2) = 0.04 <= 2 * 0.05 / 2: both rejected, though p_(1) = 0.03 > 0.05 / 2.
        assert_eq!(
            benjamini_hochberg(&[Some(0.04), None, Some(0.03)], 0.05),
            [Some(true), None, Some(true)]
        );
        assert_eq!(
            benjamini_hochberg(&[Some(0.2), Some(0.03)], 0.05),
            [Some(false), Some(false)]
        );
        assert!(benjamini_hochberg(&[], 0.05).is_empty());
    }
}
