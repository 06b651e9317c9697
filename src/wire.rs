//! Small typed records sent between ranks as fixed-length runs of f64 values: clock models,
//! probes, shared-clock checks, per-repetition times. One encoding per type, written next to
//! the type, instead of hand-packed arrays indexed by magic column numbers at every gather.
//!
//! f64 carries every field exactly: times and offsets are f64 already, and the integers sent
//! (ranks, counts, flag bits, repetition indices) are far below 2^53.

/// A value with a fixed-length f64 encoding.
pub trait Wire: Sized {
    /// Number of f64 values of one encoded value.
    const LEN: usize;
    /// Appends the encoding (exactly [`Wire::LEN`] values) to `out`.
    fn put(&self, out: &mut Vec<f64>);
    /// Decodes one value from `xs` (exactly [`Wire::LEN`] values).
    fn take(xs: &[f64]) -> Self;
}

/// Encodes `values` one after the other.
pub fn encode<T: Wire>(values: &[T]) -> Vec<f64> {
    let mut out = Vec::with_capacity(values.len() * T::LEN);
    for v in values {
        v.put(&mut out);
    }
    out
}

/// Decodes every value of `xs` (a multiple of [`Wire::LEN`] values).
pub fn decode<T: Wire>(xs: &[f64]) -> Vec<T> {
    xs.chunks_exact(T::LEN).map(T::take).collect()
}

impl Wire for f64 {
    const LEN: usize = 1;
    fn put(&self, out: &mut Vec<f64>) {
        out.push(*self);
    }
    fn take(xs: &[f64]) -> Self {
        xs[0]
    }
}

/// A fixed group of plain numbers (a repetition's exit time and verdict, counters).
impl<const N: usize> Wire for [f64; N] {
    const LEN: usize = N;
    fn put(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(self);
    }
    fn take(xs: &[f64]) -> Self {
        std::array::from_fn(|i| xs[i])
    }
}

/// `None` as a leading 0 and `T::LEN` NaNs, `Some` as a leading 1 and the value.
impl<T: Wire> Wire for Option<T> {
    const LEN: usize = 1 + T::LEN;
    fn put(&self, out: &mut Vec<f64>) {
        match self {
            Some(v) => {
                out.push(1.0);
                v.put(out);
            }
            None => {
                out.push(0.0);
                out.extend(std::iter::repeat_n(f64::NAN, T::LEN));
            }
        }
    }
    fn take(xs: &[f64]) -> Self {
        (xs[0] == 1.0).then(|| T::take(&xs[1..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_and_plain_values_round_trip() {
        let xs = encode(&[Some(1.5), None, Some(-0.0)]);
        assert_eq!(xs.len(), 3 * 2);
        let back: Vec<Option<f64>> = decode(&xs);
        assert_eq!(back, vec![Some(1.5), None, Some(-0.0)]);
    }
}
