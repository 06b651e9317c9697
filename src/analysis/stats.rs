//! Order statistics over repetitions, through `statrs`.

use statrs::statistics::{Data, Median, Min};

/// Smallest value, or `None` for an empty slice (no valid repetitions).
pub fn minimum(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| Data::new(values.to_vec()).min())
}

/// Median (mean of the two middle values for even counts), or `None` for an empty slice.
pub fn median(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| Data::new(values.to_vec()).median())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_statistics() {
        assert_eq!(minimum(&[3.0, 1.0, 2.0]), Some(1.0));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert_eq!(minimum(&[]), None);
    }
}
