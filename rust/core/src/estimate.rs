//! Progress-rate estimation (LATE §4): rate = ProgressScore / T, time left = (1 − score) / rate.

use crate::model::{Attempt, Millis};

/// Progress per second of an attempt at `now`: its score over the time it has run
/// (for a finished attempt, over its whole run). Zero for an attempt that has not run yet.
pub fn progress_rate(a: &Attempt, now: Millis) -> f64 {
    let secs = a.elapsed(now) as f64 / 1000.0;
    if secs <= 0.0 {
        return 0.0;
    }
    a.progress / secs
}

/// Estimated seconds until the attempt finishes at its rate so far; infinite with no progress.
pub fn time_left_s(a: &Attempt, now: Millis) -> f64 {
    let rate = progress_rate(a, now);
    if rate <= 0.0 {
        return f64::INFINITY;
    }
    (1.0 - a.progress).max(0.0) / rate
}
