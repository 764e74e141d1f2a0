//! Jobs and the model that turns a task into an attempt's duration.
//!
//! A task has a nominal amount of work (ms on a nominal node) that follows from its data, and an
//! input size the AM would know (the split). Every attempt — the first one and every copy — draws
//! its own duration: nominal work × an attempt noise factor × (an outlier factor if the node it lands
//! on produces an outlier), run at the node's speed. That a copy draws afresh is what makes copies
//! useful, as in all five papers' models.

use rein_core::Millis;

use crate::rng::{BoundedPareto, Rng};

#[derive(Clone, Debug, PartialEq)]
pub struct TaskSpec {
    /// Nominal work in ms on a node of speed 1, before attempt noise.
    pub work_ms: f64,
    /// Bytes the task reads: the split of a map, the shuffle share of a reduce.
    pub input_bytes: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    pub submit_ms: Millis,
    pub maps: Vec<TaskSpec>,
    pub reduces: Vec<TaskSpec>,
}

impl JobSpec {
    pub fn tasks(&self) -> usize {
        self.maps.len() + self.reduces.len()
    }
}

/// A multiplicative factor drawn per attempt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Factor {
    One,
    Uniform { lo: f64, hi: f64 },
    LogNormal { sigma: f64 },
    /// A bounded Pareto, divided by its mean so that it averages 1.
    Pareto(BoundedPareto),
}

impl Factor {
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match *self {
            Factor::One => 1.0,
            Factor::Uniform { lo, hi } => rng.uniform(lo, hi),
            // Median e^{−σ²/2} so that the mean is 1.
            Factor::LogNormal { sigma } => rng.lognormal((-sigma * sigma / 2.0).exp(), sigma),
            Factor::Pareto(d) => d.sample(rng) / d.mean(),
        }
    }
}

/// How much longer a runtime outlier runs than the median task of its phase (Mantri §2.1,
/// Fig. 2(b)): 80% of outliers are delayed uniformly between 1.5× and 2.5×; the rest form a heavy,
/// long tail above 2.5× in which 10% of all outliers take more than 10× — those are the ones that
/// make small jobs' outliers 12× slower than their median task on average (Dolly §2.2).
/// The factor is the slowdown itself: it is never rescaled to average 1, and never below 1.5.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slowdown {
    /// Share of outliers in the uniform body.
    pub body_share: f64,
    pub body_lo: f64,
    pub body_hi: f64,
    /// The tail beyond `body_hi`.
    pub tail: BoundedPareto,
}

impl Slowdown {
    /// Mantri §2.1: 80% in U(1.5, 2.5); 10% of outliers beyond 10× (half the tail), up to 50×.
    pub fn mantri() -> Slowdown {
        let (lo, hi, beyond, at) = (2.5, 50.0, 0.5, 10.0);
        // The tail index that puts `beyond` of the tail above `at` (bisection: P(X > at) falls as α grows).
        let above = |alpha: f64| BoundedPareto { lo, hi, alpha }.survival(at);
        let (mut a, mut b) = (0.01, 10.0);
        for _ in 0..100 {
            let mid = 0.5 * (a + b);
            if above(mid) > beyond {
                a = mid;
            } else {
                b = mid;
            }
        }
        Slowdown { body_share: 0.8, body_lo: 1.5, body_hi: lo, tail: BoundedPareto { lo, hi, alpha: 0.5 * (a + b) } }
    }

    pub fn sample(&self, rng: &mut Rng) -> f64 {
        if rng.chance(self.body_share) {
            rng.uniform(self.body_lo, self.body_hi)
        } else {
            self.tail.sample(rng)
        }
    }

    pub fn mean(&self) -> f64 {
        self.body_share * (self.body_lo + self.body_hi) / 2.0 + (1.0 - self.body_share) * self.tail.mean()
    }
}

/// How attempts of every task in a scenario draw their duration.
#[derive(Clone, Debug, PartialEq)]
pub struct AttemptModel {
    /// Noise on every attempt.
    pub noise: Factor,
    /// Slowdown of an attempt that is an outlier (it is one with its node's outlier probability);
    /// None: no runtime outliers.
    pub outlier: Option<Slowdown>,
    /// Clamp of the final duration in ms, e.g. the trace's observed minimum and maximum.
    pub clamp_ms: Option<(f64, f64)>,
    /// Whether a node's speed slows maps too (LATE §5.4's sleep maps take 15 s everywhere).
    pub slow_maps: bool,
}

impl Default for AttemptModel {
    fn default() -> Self {
        AttemptModel { noise: Factor::One, outlier: None, clamp_ms: None, slow_maps: true }
    }
}

impl AttemptModel {
    /// Nominal work of one attempt (before node speed), from the attempt's own random stream.
    /// `outlier_p` is the node's outlier probability at the start.
    pub fn draw_work(&self, task: &TaskSpec, outlier_p: f64, rng: &mut Rng) -> f64 {
        let mut w = task.work_ms * self.noise.sample(rng);
        if let Some(slowdown) = &self.outlier {
            if rng.chance(outlier_p) {
                w *= slowdown.sample(rng);
            }
        }
        match self.clamp_ms {
            Some((lo, hi)) => w.clamp(lo, hi),
            None => w,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mantri §2.1, Fig. 2(b): 80% of runtime outliers last less than 2.5× the median task,
    /// uniformly delayed between 1.5× and 2.5×; 10% take more than 10×.
    #[test]
    fn outlier_slowdowns_follow_mantri_figure_2b() {
        let s = Slowdown::mantri();
        let mut rng = Rng::new(5);
        let n = 200_000;
        let draws: Vec<f64> = (0..n).map(|_| s.sample(&mut rng)).collect();
        let share = |f: &dyn Fn(f64) -> bool| draws.iter().filter(|x| f(**x)).count() as f64 / n as f64;
        assert!((share(&|x| x < 2.5) - 0.8).abs() < 0.01);
        assert!((share(&|x| x > 10.0) - 0.1).abs() < 0.01, "{}", share(&|x| x > 10.0));
        assert!(share(&|x| x < 1.5) == 0.0, "an outlier is at least 1.5× the median");
        // Uniform body: as many between 1.5× and 2× as between 2× and 2.5×.
        assert!((share(&|x| (1.5..2.0).contains(&x)) - share(&|x| (2.0..2.5).contains(&x))).abs() < 0.01);
        let mean = draws.iter().sum::<f64>() / n as f64;
        assert!((mean / s.mean() - 1.0).abs() < 0.05, "{mean} vs {}", s.mean());
    }
}
