//! rein-core: the straggler-mitigation engine behind rein.
//!
//! One [`Engine`] per job. The caller feeds [`Event`]s, each stamped with its own clock time,
//! and calls [`Engine::decide`] for [`Action`]s, each carrying the [`Reason`] behind it. There is
//! no wall clock, no I/O and no JNI here: the same engine runs inside a MapReduce
//! ApplicationMaster (through `rein-jni`) and inside the simulator (`rein-sim`).

pub mod action;
pub mod config;
pub mod dist;
pub mod engine;
pub mod estimate;
pub mod event;
mod idmap;
mod json;
pub mod ledger;
pub mod model;
pub mod placement;
pub mod policy;
pub mod stats;
pub mod topology;
mod veto;

/// A small xorshift generator for the unit tests' random cases: fixed seed, same cases each run.
#[cfg(test)]
pub(crate) fn test_rng() -> impl FnMut() -> u64 {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

pub use action::{Action, AvoidNodes, LateDecision, Reason, SharedNodes, VetoCause};
pub use config::{Config, ConfigError, EstimatorKind, PolicyName};
pub use engine::Engine;
pub use event::{Event, Outcome};
pub use ledger::Roi;
pub use model::{AttemptId, JobState, Millis, NodeName, Phase, TaskId, TaskKind};
