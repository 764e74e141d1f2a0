//! The `decide` benchmark's job, shared by the Criterion benchmarks (`benches/engine.rs`) and the
//! profiling example (`examples/profile_decide.rs`). The crate exists for its benchmarks, so that
//! Criterion is built only when they are (`cargo bench -p rein-bench`), not by `scripts/test.sh`.

use rein_core::{Engine, Event, Outcome, Phase, TaskId};

/// A job with `running` tasks in flight, each reported twice, plus a tenth as many finished.
pub fn job(policy: &str, running: u32) -> Engine {
    let done = (running / 10).max(5);
    let mut e = Engine::from_pairs([
        ("rein.policy", policy),
        ("rein.late.min-runtime-ms", "0"),
        ("rein.ese.expected-task-ms", "20000"),
        ("rein.cluster.slots", "1000000"),
    ])
    .unwrap()
    .0;
    e.ingest(0, Event::JobCreated { maps: running + done, reduces: 0 });
    for i in 0..running + done {
        let t = TaskId::map(i);
        e.ingest(0, Event::TaskInput { task: t, bytes: 128 << 20 });
        e.ingest(0, Event::AttemptStarted { attempt: t.attempt(0), node: Some(format!("n{}:1", i % 1000)), rack: None });
    }
    for i in 0..done {
        e.ingest(20_000 + i as i64, Event::AttemptFinished { attempt: TaskId::map(running + i).attempt(0), outcome: Outcome::Succeeded });
    }
    for (k, at) in [(1u32, 10_000), (2, 30_000)] {
        for i in 0..running {
            let p = (k as f64 * 0.1 / (1 + i % 7) as f64).min(0.9);
            e.ingest(at, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress: p, phase: Phase::Map });
        }
    }
    e
}
