//! Overhead of the engine: event ingest per call, and `decide` with 1K, 10K and 100K running
//! tasks for every policy: the first decision on a job whose every running task is late
//! (`decide/…`), and the scan of a job where nothing is late, as an ApplicationMaster makes it
//! every second (`decide_healthy/…`). Run with `cargo bench -p rein-bench --bench engine`.
//!
//! Times are the benchmark thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not wall time: on a
//! machine shared with other work (this one runs Hadoop clusters beside it) wall time counts the
//! time the thread waited for a core. `REIN_BENCH_CLOCK=wall` measures wall time instead.

use criterion::{criterion_group, criterion_main, Criterion};
use rein_bench::{healthy_job, job, HEALTHY_NOW};
use rein_core::{Event, Phase, TaskId};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The clock the benchmark reads: this thread's CPU time, or wall time.
struct Clock {
    wall: bool,
}

impl Clock {
    fn new() -> Clock {
        Clock { wall: std::env::var("REIN_BENCH_CLOCK").is_ok_and(|v| v == "wall") }
    }

    fn now(&self) -> Duration {
        if self.wall {
            thread_local!(static ORIGIN: Instant = Instant::now());
            return ORIGIN.with(|o| o.elapsed());
        }
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: a valid timespec out-pointer and a clock id every Linux has.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    }
}


fn ingest(c: &mut Criterion) {
    let clock = Clock::new();
    let mut e = job("late", 10_000);
    let mut i = 0u32;
    c.bench_function("ingest/status", |b| {
        b.iter_custom(|iters| {
            let t0 = clock.now();
            for _ in 0..iters {
                i = (i + 1) % 10_000;
                e.ingest(40_000, black_box(Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress: 0.5, phase: Phase::Map }));
            }
            clock.now() - t0
        })
    });
}

fn decide(c: &mut Criterion) {
    let clock = Clock::new();
    for policy in ["auto", "late", "mantri", "dolly", "sca", "ese", "hadoop"] {
        let mut g = c.benchmark_group(format!("decide/{policy}"));
        g.sample_size(10).warm_up_time(std::time::Duration::from_secs(1)).measurement_time(std::time::Duration::from_secs(3));
        for running in [1_000u32, 10_000, 100_000] {
            g.bench_function(running.to_string(), |b| {
                // A fresh engine per decision (its first decision, as before); building it and
                // dropping it and the actions are not timed.
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let mut e = job(policy, running);
                        let t0 = clock.now();
                        let actions = e.decide(40_000);
                        total += clock.now() - t0;
                        black_box(&actions);
                        drop((e, actions));
                    }
                    total
                })
            });
        }
        g.finish();
    }
}

/// The scan of a healthy job (`rein_bench::healthy_job`): one engine per policy and size, asked
/// again and again at the same moment; nothing changes between scans, so each does the same work,
/// and none may act (checked: a scan that acts would not be the steady state measured).
fn decide_healthy(c: &mut Criterion) {
    let clock = Clock::new();
    for policy in ["auto", "late", "mantri", "dolly", "sca", "ese", "hadoop"] {
        let mut g = c.benchmark_group(format!("decide_healthy/{policy}"));
        g.sample_size(10).warm_up_time(std::time::Duration::from_secs(1)).measurement_time(std::time::Duration::from_secs(2));
        for running in [1_000u32, 10_000, 100_000] {
            let mut e = healthy_job(policy, running);
            g.bench_function(running.to_string(), |b| {
                b.iter_custom(|iters| {
                    let t0 = clock.now();
                    for _ in 0..iters {
                        let actions = e.decide(HEALTHY_NOW);
                        assert!(actions.is_empty(), "{policy} acted on a healthy job's scan: {actions:?}");
                    }
                    clock.now() - t0
                })
            });
        }
        g.finish();
    }
}

criterion_group!(benches, ingest, decide, decide_healthy);
criterion_main!(benches);
