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

/// How attempts of every task in a scenario draw their duration.
#[derive(Clone, Debug, PartialEq)]
pub struct AttemptModel {
    /// Noise on every attempt.
    pub noise: Factor,
    /// Slowdown of an attempt that is an outlier (it is one with its node's outlier probability).
    pub outlier: Factor,
    /// Clamp of the final duration in ms, e.g. the trace's observed minimum and maximum.
    pub clamp_ms: Option<(f64, f64)>,
    /// Whether a node's speed slows maps too (LATE §5.4's sleep maps take 15 s everywhere).
    pub slow_maps: bool,
}

impl Default for AttemptModel {
    fn default() -> Self {
        AttemptModel { noise: Factor::One, outlier: Factor::One, clamp_ms: None, slow_maps: true }
    }
}

impl AttemptModel {
    /// Nominal work of one attempt (before node speed), from the attempt's own random stream.
    /// `outlier_p` is the node's outlier probability at the start.
    pub fn draw_work(&self, task: &TaskSpec, outlier_p: f64, rng: &mut Rng) -> f64 {
        let mut w = task.work_ms * self.noise.sample(rng);
        if rng.chance(outlier_p) {
            w *= self.outlier.sample(rng).max(1.0);
        }
        match self.clamp_ms {
            Some((lo, hi)) => w.clamp(lo, hi),
            None => w,
        }
    }
}
