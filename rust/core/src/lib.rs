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
pub mod idmap;
mod json;
pub mod ledger;
mod memory;
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

/// [`test_rng`]'s numbers below a bound: `next(m)` is in `0..m`.
#[cfg(test)]
pub(crate) fn test_below() -> impl FnMut(u64) -> u64 {
    let mut rng = test_rng();
    move |m| rng() % m
}

/// Spreads of floats for the unit tests that check a selection or ranking against a plain sort:
/// few repeated values, one value, arbitrary bits, a wide range across zero, a narrow one, and
/// special values (both zeros, infinity).
#[cfg(test)]
pub(crate) fn test_float_shapes() -> Vec<Box<dyn Fn(u64) -> f64>> {
    vec![
        Box::new(|r| (r % 7) as f64 * 0.25),
        Box::new(|_| 3.0),
        Box::new(|r| f64::from_bits(r >> 2)),
        Box::new(|r| (r % 1_000_000) as f64 / 1e3 - 500.0),
        Box::new(|r| 1.0 + (r % 4096) as f64 * 1e-12),
        Box::new(|r| [0.0, -0.0, 1.0, -2.5, f64::INFINITY][(r % 5) as usize]),
        Box::new(|r| if r % 5 == 0 { f64::INFINITY } else { (r % 100) as f64 }),
    ]
}

pub use action::{Action, AvoidNodes, LateDecision, Reason, SharedNodes, VetoCause};
pub use config::{Config, ConfigError, EstimatorKind, PolicyName};
pub use engine::Engine;
pub use event::{Event, Outcome, MAX_NODE_ID};
pub use ledger::Roi;
pub use memory::{live_bytes, Allocator};
pub use model::{AttemptId, JobState, Millis, NodeName, Phase, TaskId, TaskKind};
