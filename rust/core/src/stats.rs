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

/// The Kaplan–Meier estimate of the median of durations of which some are only known to be at
/// least a value (right-censored): `observations` are (time, ended) pairs, `ended` false for a
/// censored one. The median is the first ended time at which the estimated survival falls to one
/// half or below; `None` while it has not (fewer than about half have ended, or the ones that have
/// were the longest). Sorts `observations` by time, ended before censored at equal times.
pub fn km_median(observations: &mut [(f64, bool)]) -> Option<f64> {
    observations.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut at_risk = observations.len() as f64;
    let mut survival = 1.0;
    for &(t, ended) in observations.iter() {
        if ended {
            survival *= 1.0 - 1.0 / at_risk;
            if survival <= 0.5 + 1e-12 {
                return Some(t);
            }
        }
        at_risk -= 1.0;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{km_median, percentile};

    /// Without censoring it is the lower median; a censored value counts only as "at least".
    #[test]
    fn kaplan_meier_median() {
        assert_eq!(km_median(&mut []), None);
        assert_eq!(km_median(&mut [(3.0, true), (1.0, true), (2.0, true), (4.0, true)]), Some(2.0));
        assert_eq!(km_median(&mut [(5.0, true), (1.0, true), (3.0, true)]), Some(3.0));
        // One of seven has ended and six are still running at 7.8: no median yet.
        let mut wave = vec![(6.9, true)];
        wave.extend([(7.8, false); 6]);
        assert_eq!(km_median(&mut wave), None);
        // Four of six ended; the two running count as at least 7.6.
        assert_eq!(km_median(&mut [(3.7, true), (7.0, true), (7.2, true), (7.5, true), (7.6, false), (7.6, false)]), Some(7.2));
        // Young second-wave attempts leave the risk set without pulling the median down.
        let mut waves = vec![(10.0, true); 4];
        waves.extend([(1.0, false), (2.0, false), (3.0, false), (4.0, false)]);
        assert_eq!(km_median(&mut waves), Some(10.0));
    }

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
