//! Small statistics helpers shared by the policies.

/// The `q`-quantile (0 ≤ q ≤ 1) of `values`, interpolating linearly between order statistics.
/// Returns `None` for an empty slice. NaNs must be filtered out by the caller.
pub fn percentile(values: &mut [f64], q: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let pos = q.clamp(0.0, 1.0) * (values.len() - 1) as f64;
    let lo = pos.floor() as usize;
    // Selection, not a full sort: the two order statistics around `pos` are all that is needed.
    let (_, &mut at_lo, above) = values.select_nth_unstable_by(lo, f64::total_cmp);
    let at_hi = if pos > lo as f64 { above.iter().copied().fold(f64::INFINITY, f64::min) } else { at_lo };
    Some(at_lo + (at_hi - at_lo) * (pos - lo as f64))
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn interpolates_between_order_statistics() {
        assert_eq!(percentile(&mut [], 0.5), None);
        assert_eq!(percentile(&mut [3.0], 0.25), Some(3.0));
        assert_eq!(percentile(&mut [4.0, 1.0, 3.0, 2.0], 0.0), Some(1.0));
        assert_eq!(percentile(&mut [4.0, 1.0, 3.0, 2.0], 1.0), Some(4.0));
        assert_eq!(percentile(&mut [1.0, 2.0, 3.0, 4.0, 5.0], 0.25), Some(2.0));
        assert_eq!(percentile(&mut [1.0, 2.0], 0.25), Some(1.25));
    }
}
