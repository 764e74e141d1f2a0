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

/// [`job`] one scan later: its first decision taken at 40 s (the copies it asked for booked and
/// still pending), then every running task's attempt reported once more, a little further on, at
/// 40.5 s. The next `decide` (at 41 s) is the one an ApplicationMaster makes every second after
/// the first: every running task is looked at again, and only what changed can be acted on.
pub fn job_after_first_decision(policy: &str, running: u32) -> Engine {
    let mut e = job(policy, running);
    std::hint::black_box(e.decide(40_000));
    for i in 0..running {
        let p = (0.21 / (1 + i % 7) as f64).min(0.9);
        e.ingest(40_500, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress: p, phase: Phase::Map });
    }
    e
}

/// A job where nothing is late, as `ScanBench` (the Java side's benchmark) builds it: `running`
/// maps, each with one attempt started 15–110 s before `HEALTHY_NOW` on course for 96–120 s and
/// reported three times, and `running / 2` maps that finished in 120–140 s. Two decisions are
/// taken at `HEALTHY_NOW` (the cloning policies clone the running tasks at the first); a third at
/// the same moment has nothing new to act on, yet looks at every running task again: what an
/// ApplicationMaster's scan costs every second on a large, healthy job.
pub fn healthy_job(policy: &str, running: u32) -> Engine {
    let done = running / 2;
    let mut e = Engine::from_pairs([
        ("rein.policy", policy),
        ("rein.late.min-runtime-ms", "0"),
        ("rein.ese.expected-task-ms", "20000"),
        ("rein.cluster.slots", "1000000"),
    ])
    .unwrap()
    .0;
    // A fixed scramble of the index, so that starts and paces vary without a random generator.
    let spread = |i: u32, lo: i64, hi: i64| lo + (i.wrapping_mul(2_654_435_761) >> 8) as i64 % (hi - lo + 1);
    e.ingest(0, Event::JobCreated { maps: running + done, reduces: 0 });
    for i in 0..done {
        let t = TaskId::map(running + i);
        let start = HEALTHY_NOW - 400_000 + spread(i, 0, 100_000);
        e.ingest(start, Event::TaskInput { task: t, bytes: 128 << 20 });
        e.ingest(start, Event::AttemptStarted { attempt: t.attempt(0), node: Some(format!("n{}:1", i % 1000)), rack: None });
        e.ingest(start + spread(i, 120_000, 140_000), Event::AttemptFinished { attempt: t.attempt(0), outcome: Outcome::Succeeded });
    }
    for i in 0..running {
        let t = TaskId::map(i);
        let (age, length) = (spread(i, 15_000, 110_000), spread(i + 7, 96_000, 120_000));
        let start = HEALTHY_NOW - age;
        e.ingest(start, Event::TaskInput { task: t, bytes: 128 << 20 });
        e.ingest(start, Event::AttemptStarted { attempt: t.attempt(0), node: Some(format!("n{}:1", i % 1000)), rack: None });
        for k in 1..=3 {
            let ran = age * k / 3 - 500;
            let progress = ran as f64 / length as f64;
            e.ingest(start + ran, Event::AttemptStatus { attempt: t.attempt(0), progress, phase: Phase::Map });
        }
    }
    for _ in 0..2 {
        std::hint::black_box(e.decide(HEALTHY_NOW));
    }
    e
}

/// The moment [`healthy_job`]'s decisions are taken at.
pub const HEALTHY_NOW: i64 = 1_000_000;
