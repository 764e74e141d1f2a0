//! Policies: each reads the job state at a time and returns the actions it wants.

mod late;

pub use late::Late;

use crate::action::Action;
use crate::config::{Config, PolicyName};
use crate::model::{JobState, Millis};

pub trait Policy: Send {
    fn name(&self) -> &'static str;

    /// The actions this policy wants at `now`. The engine filters nothing a policy returns, so
    /// a policy only proposes actions for tasks that are still running.
    fn decide(&mut self, now: Millis, job: &JobState) -> Vec<Action>;
}

/// The policy that never acts.
pub struct NoSpeculation;

impl Policy for NoSpeculation {
    fn name(&self) -> &'static str {
        "none"
    }

    fn decide(&mut self, _now: Millis, _job: &JobState) -> Vec<Action> {
        Vec::new()
    }
}

pub fn build(config: &Config) -> Box<dyn Policy> {
    match config.policy {
        PolicyName::None => Box::new(NoSpeculation),
        PolicyName::Late => Box::new(Late::new(config.late.clone())),
    }
}
