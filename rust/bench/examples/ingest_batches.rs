//! What a big job's events cost one by one (`Engine::ingest`) against the same events handed over
//! in batches (`Engine::ingest_all`, as the JNI glue hands on the batches of 64 the shim sends),
//! alternated in one process so that the machine's noise moves every side alike.
//!
//! Each round, for each side in turn (the order turning round by round): 100K progress reports
//! on `job("late", 100K)` (100K running maps), one per task, the tasks reached in a fixed
//! pseudo-random order (`rein_bench::scattered`), each side's job kept across rounds; then 100K
//! finishes in that order on a job of its own, built before the clock starts; then 100K starts in
//! that order, as the shim sends them (`Event::AttemptStartedOn`, the node by the id it was named
//! under, 1,000 nodes), on a job of 100K maps none of which has started; before each, 64 MB
//! are written (untimed) so that the job's records are out of the caches. Thread CPU time,
//! the batches made before the clock starts; ns an event, median, min and max over the rounds,
//! and the median count of the thread's minor page faults while a round's events were taken:
//! the fresh memory they first touched (a big job's lists of successes grow with its finishes;
//! with glibc's defaults a round may reuse memory an earlier round freed, or meet new memory;
//! `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072` makes every big list new memory, as an
//! ApplicationMaster's one job meets it).
//!
//! Then the same starts and finishes in batches of 64 on a job of 2K maps, its records in the
//! caches (just built, nothing written between): the events' own work, without the misses a big
//! job's records bring. Each round runs 20 such jobs; ns an event, median, min and max of the
//! rounds' medians.
//!
//! `cargo run --release -p rein-bench --example ingest_batches -- [ROUNDS]` (5 by default).

use rein_bench::{cpu, job, minor_faults, scattered, spread};
use rein_core::{Engine, Event, Outcome, Phase, TaskId};
use std::hint::black_box;

/// The sides: events one by one, or in batches of this many.
const SIDES: [Option<usize>; 3] = [None, Some(64), Some(1_000)];

fn main() {
    let rounds: usize = std::env::args().nth(1).map_or(5, |s| s.parse().expect("ROUNDS: a number"));
    let running = 100_000u32;
    let order = scattered(running);
    let mut jobs: Vec<Engine> = SIDES.iter().map(|_| job("late", running)).collect();
    let mut scratch = vec![0u64; EVICT_BYTES / 8];
    let (mut reports, mut finishes, mut starts) = (vec![Vec::new(); SIDES.len()], vec![Vec::new(); SIDES.len()], vec![Vec::new(); SIDES.len()]);
    // Per side: each round's faults for its reports, finishes and starts.
    let mut faults = vec![[Vec::new(), Vec::new(), Vec::new()]; SIDES.len()];
    for round in 0..rounds {
        for turn in 0..SIDES.len() {
            let side = (round + turn) % SIDES.len();
            let progress = 0.3 + round as f64 * 0.01;
            let at = 40_000 + round as i64 * 1_000;
            let status = |i: u32| (at, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress, phase: Phase::Map });
            evict(&mut scratch);
            let (ns, touched) = send(&mut jobs[side], SIDES[side], &order, status);
            reports[side].push(ns);
            faults[side][0].push(touched);
            let mut finishing = job("late", running);
            evict(&mut scratch);
            let (ns, touched) = send(&mut finishing, SIDES[side], &order, finish);
            finishes[side].push(ns);
            faults[side][1].push(touched);
            let mut starting = unstarted(running);
            evict(&mut scratch);
            let (ns, touched) = send(&mut starting, SIDES[side], &order, start);
            starts[side].push(ns);
            faults[side][2].push(touched);
        }
    }
    for (side, batch) in SIDES.iter().enumerate() {
        let how = batch.map_or("one by one".to_owned(), |n| format!("in batches of {n}"));
        let [r, f, s] = faults[side].clone().map(median);
        println!(
            "{how}, ns over {rounds} rounds: a report {}; a finish {}; a start {}; page faults a round (median): reports {r}, finishes {f}, starts {s}",
            spread(reports[side].clone()),
            spread(finishes[side].clone()),
            spread(starts[side].clone())
        );
    }
    let (mut starts, mut finishes) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (start, finish) = in_the_caches(2_000, 20);
        starts.push(start);
        finishes.push(finish);
    }
    println!("records in the caches (2K maps, batches of 64), ns over {rounds} rounds: a start {}; a finish {}", spread(starts), spread(finishes));
}

/// The median ns of a start and of a finish over `jobs` jobs of `tasks` maps, each job's events
/// sent in batches of 64 right after the job is built, so that its records are in the caches.
fn in_the_caches(tasks: u32, jobs: usize) -> (f64, f64) {
    let order = scattered(tasks);
    let (mut starts, mut finishes) = (Vec::new(), Vec::new());
    for _ in 0..jobs {
        starts.push(send(&mut unstarted(tasks), Some(64), &order, start).0);
        finishes.push(send(&mut job("late", tasks), Some(64), &order, finish).0);
    }
    (median(starts), median(finishes))
}

/// The median of some measurements or counts (none of them NaN).
fn median<T: Copy + PartialOrd>(mut v: Vec<T>) -> T {
    v.sort_by(|x, y| x.partial_cmp(y).expect("no NaN among the measurements"));
    v[v.len() / 2]
}

/// Task `i`'s first attempt starting, as the shim sends it (its node by the id it was named
/// under, one of `unstarted`'s 1,000).
fn start(i: u32) -> (i64, Event) {
    (1_000, Event::AttemptStartedOn { attempt: TaskId::map(i).attempt(0), node: i % 1_000 })
}

/// Task `i`'s first attempt succeeding.
fn finish(i: u32) -> (i64, Event) {
    (50_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded })
}

/// A job of `tasks` maps, none started, and the 1,000 nodes its starts name by id.
fn unstarted(tasks: u32) -> Engine {
    let mut e = Engine::from_pairs([("rein.policy", "late")]).expect("a valid configuration").0;
    e.ingest(0, Event::JobCreated { maps: tasks, reduces: 0 });
    for id in 0..1_000 {
        e.ingest(0, Event::NodeNamed { id, node: format!("host{id}.example.com:8041"), rack: Some("/default-rack".to_owned()) });
    }
    e
}

/// Sends `event(i)` for every task in `order` to `e`, one by one or in batches, and returns the
/// ns an event took and the minor page faults while they were taken.
fn send(e: &mut Engine, batch: Option<usize>, order: &[u32], event: impl Fn(u32) -> (i64, Event)) -> (f64, i64) {
    let mut spent = 0.0;
    let mut faults = 0;
    match batch {
        None => {
            let events: Vec<(i64, Event)> = order.iter().map(|&i| event(i)).collect();
            let (f0, t0) = (minor_faults(), cpu());
            for (now, ev) in events {
                e.ingest(now, black_box(ev));
            }
            spent += cpu() - t0;
            faults += minor_faults() - f0;
        }
        Some(n) => {
            for chunk in order.chunks(n) {
                let mut events: Vec<(i64, Event)> = chunk.iter().map(|&i| event(i)).collect();
                let (f0, t0) = (minor_faults(), cpu());
                e.ingest_all(black_box(&mut events));
                spent += cpu() - t0;
                faults += minor_faults() - f0;
            }
        }
    }
    (spent * 1e6 / order.len() as f64, faults)
}

/// Bytes written between sides, untimed, so that each side starts with the job's records out of
/// the caches, as a big job's are when their next events come.
const EVICT_BYTES: usize = 64 << 20;

fn evict(scratch: &mut [u64]) {
    for (i, x) in scratch.iter_mut().enumerate() {
        *x = x.wrapping_add(i as u64);
    }
    black_box(&scratch[scratch.len() / 2]);
}
