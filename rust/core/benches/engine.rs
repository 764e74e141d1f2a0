//! Overhead of the engine: event ingest per call, and `decide` with 1K, 10K and 100K running
//! tasks for every policy. Run with `cargo bench -p rein-core --bench engine`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rein_core::{Engine, Event, Outcome, Phase, TaskId};
use std::hint::black_box;

/// A job with `running` tasks in flight, each reported twice, plus a tenth as many finished.
fn job(policy: &str, running: u32) -> Engine {
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

fn ingest(c: &mut Criterion) {
    let mut e = job("late", 10_000);
    let mut i = 0u32;
    c.bench_function("ingest/status", |b| {
        b.iter(|| {
            i = (i + 1) % 10_000;
            e.ingest(40_000, black_box(Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress: 0.5, phase: Phase::Map }));
        })
    });
}

fn decide(c: &mut Criterion) {
    for policy in ["late", "mantri", "dolly", "sca", "ese", "hadoop"] {
        let mut g = c.benchmark_group(format!("decide/{policy}"));
        g.sample_size(10).warm_up_time(std::time::Duration::from_secs(1)).measurement_time(std::time::Duration::from_secs(3));
        for running in [1_000u32, 10_000, 100_000] {
            g.bench_function(running.to_string(), |b| {
                // The engine is returned so that dropping it is not timed.
                b.iter_batched(
                    || job(policy, running),
                    |mut e| {
                        let actions = e.decide(40_000);
                        (e, black_box(actions))
                    },
                    BatchSize::PerIteration,
                )
            });
        }
        g.finish();
    }
}

criterion_group!(benches, ingest, decide);
criterion_main!(benches);
