//! Overhead of the engine: event ingest per call, and `decide` with 1K, 10K and 100K running
//! tasks for every policy: the first decision on a job whose every running task is late
//! (`decide/…`; `decide_kept/…` and `decide_fresh/…` under a fixed allocator setting, see
//! [`HEAPS`]; `decide_room/…` with the caller reporting room for a tenth as many copies as tasks
//! running, memory kept; `decide_unbounded/…` with no bound on a decision's copies,
//! `rein.max-copies-per-scan=0`, memory kept), and the scan of a job where nothing is late, as an ApplicationMaster makes it
//! every second (`decide_healthy/…`). Run with `cargo bench -p rein-bench --bench engine`.
//!
//! Times are the benchmark thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not wall time: on a
//! machine shared with other work (this one runs Hadoop clusters beside it) wall time counts the
//! time the thread waited for a core. `REIN_BENCH_CLOCK=wall` measures wall time instead.

use criterion::{criterion_group, criterion_main, Criterion};
use rein_bench::{healthy_job, job, job_with, scattered, HEALTHY_NOW};
use rein_core::{Event, Outcome, Phase, TaskId, TaskKind};
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

/// A progress report on a job of 10K running maps (`job`), the reports reaching the tasks in
/// the order of their indices: the event's own work, its task's records in the caches.
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

/// A progress report on the job of 100K running maps (`job`), the reports reaching the tasks in
/// a fixed pseudo-random order: `ingest/status`'s event with the task's records out of the
/// caches, as a big job's are when its next report comes, about 3 s after the last.
fn ingest_status_scattered(c: &mut Criterion) {
    let clock = Clock::new();
    let order = scattered(100_000);
    let (mut e, mut next, mut round) = (job("late", 100_000), 0usize, 0i64);
    c.bench_function("ingest/status_scattered", |b| {
        b.iter_custom(|iters| {
            let t0 = clock.now();
            for _ in 0..iters {
                if next == order.len() {
                    (next, round) = (0, round + 1);
                }
                let attempt = TaskId::map(order[next]).attempt(0);
                let progress = 0.3 + (round % 60) as f64 * 0.01;
                e.ingest(40_000 + round * 1_000, black_box(Event::AttemptStatus { attempt, progress, phase: Phase::Map }));
                next += 1;
            }
            clock.now() - t0
        })
    });
}

/// `ingest/status_scattered`'s reports given to the engine in batches of 1,000
/// (`Engine::ingest_all`), as the JNI glue hands on the batches its caller sends: each event's
/// task records asked for some events before its turn.
fn ingest_status_batch(c: &mut Criterion) {
    let events = |round: i64| {
        let progress = 0.3 + (round % 60) as f64 * 0.01;
        move |i: u32| (40_000 + round * 1_000, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress, phase: Phase::Map })
    };
    in_batches(c, "ingest/status_batch", || job("late", 100_000), false, events);
}

/// `ingest/finished`'s finishes in batches of 1,000 (`Engine::ingest_all`); a job whose running
/// attempts have all finished is replaced, its building not timed.
fn ingest_finished_batch(c: &mut Criterion) {
    let events = |_| |i: u32| (50_000 + i as i64, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
    in_batches(c, "ingest/finished_batch", || job("late", 100_000), true, events);
}

/// An attempt's start as the shim sends it, in its batches: its node by the id the shim named
/// it under (`Event::AttemptStartedOn`, ABI 8; the 1,000 nodes named before the clock starts),
/// on a job of 100K maps, the tasks started in a fixed pseudo-random order, 1,000 starts a batch
/// (`Engine::ingest_all`); a job whose tasks have all started is replaced, its building not
/// timed. `ingest/started` is the same start with its node and rack as strings, one by one.
fn ingest_started_batch(c: &mut Criterion) {
    let fresh = || {
        let mut e = rein_core::Engine::from_pairs([("rein.policy", "late")]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 100_000, reduces: 0 });
        for id in 0..1_000 {
            let (node, rack) = (format!("host{id}.example.com:8041"), Some("/default-rack".to_owned()));
            e.ingest(0, Event::NodeNamed { id, node, rack });
        }
        e
    };
    let events = |_| |i: u32| (1_000, Event::AttemptStartedOn { attempt: TaskId::map(i).attempt(0), node: i % 1_000 });
    in_batches(c, "ingest/started_batch", fresh, true, events);
}

/// Times events on the tasks of the job `job` makes (100K maps) in a fixed pseudo-random order,
/// 1,000 at a time through `Engine::ingest_all`, the batch made before the clock starts:
/// `event(round)` makes each round's event for a task index. With `fresh`, each round has a new
/// job.
fn in_batches<F: Fn(u32) -> (i64, Event)>(
    c: &mut Criterion,
    name: &str,
    job: impl Fn() -> rein_core::Engine,
    fresh: bool,
    event: impl Fn(i64) -> F,
) {
    let clock = Clock::new();
    let order = scattered(100_000);
    let (mut e, mut next, mut round) = (job(), 0usize, 0i64);
    c.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let (mut spent, mut left) = (Duration::ZERO, iters as usize);
            while left > 0 {
                if next == order.len() {
                    (next, round) = (0, round + 1);
                    if fresh {
                        e = job();
                    }
                }
                let batch = left.min(order.len() - next).min(1_000);
                let mut events: Vec<(i64, Event)> = order[next..next + batch].iter().map(|&i| event(round)(i)).collect();
                let t0 = clock.now();
                e.ingest_all(black_box(&mut events));
                spent += clock.now() - t0;
                (next, left) = (next + batch, left - batch);
            }
            spent
        })
    });
}

/// An attempt starting, with its node and rack named as the ApplicationMaster names them
/// (`host:port` on 1,000 nodes, `/default-rack`), on a job of 100K maps, the tasks started in a
/// fixed pseudo-random order. The events' strings are made before the clock starts (the JNI
/// glue makes them, the engine drops them: their freeing is timed); a job whose tasks have all
/// started is replaced, its building not timed.
fn ingest_started(c: &mut Criterion) {
    let clock = Clock::new();
    let tasks = 100_000u32;
    let order = scattered(tasks);
    let fresh = || {
        let mut e = rein_core::Engine::from_pairs([("rein.policy", "late")]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: tasks, reduces: 0 });
        e
    };
    let (mut e, mut next) = (fresh(), 0usize);
    c.bench_function("ingest/started", |b| {
        b.iter_custom(|iters| {
            let (mut spent, mut left) = (Duration::ZERO, iters as usize);
            while left > 0 {
                if next == order.len() {
                    (e, next) = (fresh(), 0);
                }
                let batch = left.min(order.len() - next).min(10_000);
                let events: Vec<Event> = order[next..next + batch]
                    .iter()
                    .map(|&i| Event::AttemptStarted {
                        attempt: TaskId::map(i).attempt(0),
                        node: Some(format!("host{}.example.com:8041", i % 1_000)),
                        rack: Some("/default-rack".to_owned()),
                    })
                    .collect();
                let t0 = clock.now();
                for event in events {
                    e.ingest(1_000, event);
                }
                spent += clock.now() - t0;
                (next, left) = (next + batch, left - batch);
            }
            spent
        })
    });
}

/// An attempt finishing, on a job of 100K running maps and 10K finished (`job`), the attempts
/// finishing in a fixed pseudo-random order over the task indices, and the lists of finished
/// attempts read once every 100 events, as a scan reads them (`JobState::finished_run_ms`):
/// what an event costs with its share of putting the attempt in task order. A job whose running
/// attempts have all finished is replaced, its building not timed.
fn ingest_finished(c: &mut Criterion) {
    let clock = Clock::new();
    let running = 100_000u32;
    let order = scattered(running);
    let (mut e, mut next) = (job("late", running), 0usize);
    c.bench_function("ingest/finished", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            let mut t0 = clock.now();
            for _ in 0..iters {
                if next == order.len() {
                    spent += clock.now() - t0;
                    (e, next) = (job("late", running), 0);
                    t0 = clock.now();
                }
                let attempt = TaskId::map(order[next]).attempt(0);
                e.ingest(50_000 + next as i64, black_box(Event::AttemptFinished { attempt, outcome: Outcome::Succeeded }));
                next += 1;
                if next % 100 == 0 {
                    black_box(e.job().finished_run_ms(TaskKind::Map).len());
                }
            }
            spent + (clock.now() - t0)
        })
    });
}

/// Allocator settings under which the first decision is measured again, each as its own group
/// (`decide_kept/…`, `decide_fresh/…`), for `REIN_BENCH_HEAP` to name: a first decision's figure
/// depends on whether the heap hands its fresh engine memory touched before (each first touch of
/// a page faults, about 1.7 µs on the machine of the README's figures), and with glibc's
/// defaults that moves from run to run. glibc reads its tunables as the process starts, so the
/// caller sets them (`scripts/bench.sh --overhead` does); this checks that it did.
const HEAPS: [(&str, &[&str]); 2] = [
    // Freed memory is kept for reuse: from the second decision on, the work alone.
    ("kept", &["glibc.malloc.mmap_threshold=33554432", "glibc.malloc.trim_threshold=2147483647"]),
    // Every block of 128 KB or more is new memory, in every decision.
    ("fresh", &["glibc.malloc.mmap_threshold=131072"]),
];

/// The decide group's name: `decide`, or `decide_<heap>` under `REIN_BENCH_HEAP`, whose
/// `GLIBC_TUNABLES` must hold its settings.
fn decide_group() -> String {
    let Ok(heap) = std::env::var("REIN_BENCH_HEAP") else { return "decide".into() };
    let Some((_, settings)) = HEAPS.iter().find(|(name, _)| *name == heap) else {
        panic!("REIN_BENCH_HEAP={heap}: expected one of {:?}", HEAPS.map(|(name, _)| name));
    };
    let tunables = std::env::var("GLIBC_TUNABLES").unwrap_or_default();
    let missing: Vec<&str> = settings.iter().copied().filter(|s| !tunables.split(':').any(|t| t == *s)).collect();
    assert!(missing.is_empty(), "REIN_BENCH_HEAP={heap} needs GLIBC_TUNABLES={}; it is {tunables:?}", settings.join(":"));
    format!("decide_{heap}")
}

fn decide(c: &mut Criterion) {
    first_decisions(c, &decide_group(), false);
}

/// The first decision on the all-late job again, the caller reporting free slots for a tenth as
/// many copies as tasks running (a cluster's headroom: 10K at 100K), rather than room for a copy
/// of each: group `decide_room`, run with memory kept (`REIN_BENCH_HEAP=kept`) and only then.
fn decide_room(c: &mut Criterion) {
    if decide_group() == "decide_kept" {
        first_decisions(c, "decide_room", true);
    }
}

/// The first decision on the all-late job with no bound on its copies
/// (`rein.max-copies-per-scan=0`, the papers' behaviour: a copy of every late task where there is
/// room), where the groups above have the key's default: group `decide_unbounded`, run with
/// memory kept and only then.
fn decide_unbounded(c: &mut Criterion) {
    if decide_group() == "decide_kept" {
        first_decisions(c, "decide_unbounded", false);
    }
}

/// The first decision of a fresh engine on the all-late job, per policy and size, as `group`;
/// with `room`, the caller reports free slots for a tenth as many copies as tasks running; the
/// group `decide_unbounded` turns `rein.max-copies-per-scan` off.
fn first_decisions(c: &mut Criterion, group: &str, room: bool) {
    let clock = Clock::new();
    for policy in ["auto", "late", "mantri", "dolly", "sca", "ese", "hadoop"] {
        let mut g = c.benchmark_group(format!("{group}/{policy}"));
        g.sample_size(10).warm_up_time(std::time::Duration::from_secs(1)).measurement_time(std::time::Duration::from_secs(3));
        for running in [1_000u32, 10_000, 100_000] {
            g.bench_function(running.to_string(), |b| {
                // A fresh engine per decision (its first decision, as before); building it and
                // dropping it and the actions are not timed.
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let mut e = match group {
                            "decide_unbounded" => job_with(policy, running, &[("rein.max-copies-per-scan", "0")]),
                            _ => job(policy, running),
                        };
                        if room {
                            e.ingest(39_000, Event::Capacity { total_slots: 1_000_000, free_slots: Some(running / 10) });
                        }
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

criterion_group!(benches, ingest, ingest_status_scattered, ingest_status_batch, ingest_started, ingest_started_batch, ingest_finished, ingest_finished_batch, decide, decide_room, decide_unbounded, decide_healthy);
criterion_main!(benches);
