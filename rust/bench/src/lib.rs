//! The `decide` benchmark's job, shared by the Criterion benchmarks (`benches/engine.rs`) and the
//! profiling example (`examples/profile_decide.rs`), and the examples' thread clocks. The crate exists for its benchmarks, so that
//! Criterion is built only when they are (`cargo bench -p rein-bench`), not by `scripts/test.sh`.

// librein, linked into every benchmark and example for the global allocator it declares
// (`rein_core::Allocator`): they measure the engine as an ApplicationMaster runs it.
extern crate rein;

use rein_core::{Engine, Event, Outcome, Phase, TaskId};

/// The calling thread's CPU time in ms, for the examples' measurements.
pub fn cpu() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec out-pointer and a clock id every Linux has.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1000.0 + ts.tv_nsec as f64 / 1e6
}

/// The median, least and greatest of some measurements, as the examples print them.
pub fn spread(mut v: Vec<f64>) -> String {
    v.sort_by(f64::total_cmp);
    format!("median {:.3} min {:.3} max {:.3}", v[v.len() / 2], v[0], v[v.len() - 1])
}

/// The calling thread's minor page faults so far: fresh memory touched for the first time, about
/// 1.7 µs a 4-KB page on the machine the README's figures come from.
pub fn minor_faults() -> i64 {
    // SAFETY: a zeroed rusage is a valid out-parameter.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid rusage out-pointer and a `who` every Linux has.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
    u.ru_minflt
}

/// 0..n in a fixed pseudo-random order (xorshift): the order in which events of a big job reach
/// its tasks, each record out of the caches by the time its next event comes.
pub fn scattered(n: u32) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n).collect();
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    for i in (1..order.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    order
}

/// A job with `running` tasks in flight, each reported twice, plus a tenth as many finished.
pub fn job(policy: &str, running: u32) -> Engine {
    job_with(policy, running, &[])
}

/// [`job`] with more `rein.*` keys (e.g. the decision log on).
pub fn job_with(policy: &str, running: u32, more: &[(&str, &str)]) -> Engine {
    let done = (running / 10).max(5);
    let keys = [
        ("rein.policy", policy),
        ("rein.late.min-runtime-ms", "0"),
        ("rein.ese.expected-task-ms", "20000"),
        ("rein.cluster.slots", "1000000"),
    ];
    let mut e = Engine::from_pairs(keys.iter().chain(more).copied()).unwrap().0;
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

/// A job where nothing is late, built as `ScanBench` (the Java side's benchmark) builds its
/// state, with the engine's defaults: `running` maps, each with one attempt started 15–110 s
/// before `HEALTHY_NOW`, on course for 96–120 s (and for a tenth more than it has run) and
/// reported three times in its last 9 s, and
/// `running / 2` maps that took 120–140 s and ended in the last 101 s, the two mixed in random
/// order over the task indices, on 200 nodes; every task asked for its container and got it; no
/// input sizes. Two decisions are taken at `HEALTHY_NOW` (the cloning policies clone the running
/// tasks at the first); a third at the same moment has nothing new to act on, yet looks at every
/// running task again: what an ApplicationMaster's scan costs every second on a large, healthy job.
pub fn healthy_job(policy: &str, running: u32) -> Engine {
    let finished = running / 2;
    let total = running + finished;
    let mut e = Engine::from_pairs([("rein.policy", policy)]).unwrap().0;
    // A fixed pseudo-random sequence (SplitMix64), so that every run builds the same job.
    let mut state = 42u64;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut uniform = move |below: u64| next() % below;
    let mut done: Vec<bool> = (0..total).map(|i| i < finished).collect();
    for i in (1..done.len()).rev() {
        done.swap(i, uniform(i as u64 + 1) as usize);
    }
    e.ingest(0, Event::JobCreated { maps: total, reduces: 0 });
    for (i, &done) in done.iter().enumerate() {
        let t = TaskId::map(i as u32);
        let node = Some(format!("node{}:8041", i % 200));
        e.ingest(0, Event::ContainerNeed { task: t, delta: 1 });
        e.ingest(0, Event::ContainerNeed { task: t, delta: -1 });
        if done {
            let duration = 120_000 + uniform(20_000) as i64;
            let end = HEALTHY_NOW - 1_000 - uniform(100_000) as i64;
            e.ingest(end - duration, Event::AttemptStarted { attempt: t.attempt(0), node, rack: None });
            e.ingest(end, Event::AttemptFinished { attempt: t.attempt(0), outcome: Outcome::Succeeded });
        } else {
            let start = HEALTHY_NOW - 15_000 - uniform(95_000) as i64;
            // On course for 96–120 s, and at least a tenth longer than it has run: ScanBench's
            // oldest maps stand at its 0.99 cap, where they would look stalled.
            let course = 120_000.0 * (0.8 + 0.2 * uniform(1 << 20) as f64 / (1 << 20) as f64);
            let course = course.max(1.1 * (HEALTHY_NOW - start) as f64);
            let last = HEALTHY_NOW - uniform(3_000) as i64;
            e.ingest(start, Event::AttemptStarted { attempt: t.attempt(0), node, rack: None });
            for k in 0..3 {
                let at = last - (2 - k) * 3_000;
                // Reported as Hadoop reports it, in single precision.
                let progress = ((at - start) as f64 / course).clamp(0.001, 0.99) as f32 as f64;
                e.ingest(at, Event::AttemptStatus { attempt: t.attempt(0), progress, phase: Phase::Map });
            }
        }
    }
    for _ in 0..2 {
        std::hint::black_box(e.decide(HEALTHY_NOW));
    }
    e
}

/// The moment [`healthy_job`]'s decisions are taken at.
pub const HEALTHY_NOW: i64 = 1_000_000;
