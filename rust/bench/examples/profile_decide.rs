//! Runs one policy's first decision on the `decide` benchmark's job many times, for a profiler:
//! `cargo run --release -p rein-bench --example profile_decide -- POLICY RUNNING ROUNDS [MODE [FREE]]`.
//! FREE, with `first` and `encode`: the free slots the caller reports before the decision (the
//! job's million slots otherwise leave the policies room to copy every running task). Modes:
//! - `first` (the default): the first decision;
//! - `unbounded`: the same with `rein.max-copies-per-scan=0` (no bound on a decision's copies,
//!   the papers' behaviour: every late task copied at once where there is room);
//! - `encode`: the same, and what the JNI glue then pays to encode its actions for the
//!   ApplicationMaster (`rein::glue::encode_typed`: a record per action, and a reason text for
//!   the kills and the first `rein.log.copies-per-scan` copies), then the same with a reason
//!   text for every action (the key at its maximum, and before the key); the encodings' memory
//!   comes and goes between decisions, so the decide figures are `first`'s;
//! - `healthy`: a scan of a job where nothing is late (`rein_bench::healthy_job`);
//! - `logged`: the first decision with the decision log on (`rein.decision-log=auto`, as an
//!   ApplicationMaster has it by default, bounded by `rein.decision-log.max-bytes`, 16 MB), then
//!   what taking its records and joining them into the text the JNI glue sends costs; FREE is
//!   read as the bound instead (`rein.decision-log.max-bytes`; 4096, its least, gives a
//!   decision's cost once the log is full);
//! - `floor`: what any decision that copies every running task of that job pays at the least,
//!   without a policy or the engine's booking: the Mantri estimate of every running task, and
//!   one 88-byte action written for each, pushed one at a time (POLICY is ignored); then the
//!   same actions written by one `extend`, the same pushed by `rein_core::policy::push_ahead`
//!   (the room some actions ahead asked for first, as Dolly's clones are, there each copied from
//!   one template and filled in: `push_ahead_like`), and a 24-byte
//!   record (task, t_rem, copies) instead of each action, for what a smaller action would save.
//!
//! A first decision's figure depends on whether its memory was touched before: each page of fresh
//! memory faults on first touch (about 1.7 µs a 4-KB page on this machine). glibc's tunables fix
//! that for a measurement: `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=2147483647`
//! keeps freed memory for reuse, so that from the second round on a decision's figure is its work
//! alone; `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072` makes every block of 128 KB or more
//! fresh memory in every round. rein itself never tunes the allocator.

use rein_bench::{cpu, healthy_job, job, job_with, minor_faults, spread, HEALTHY_NOW};
use rein_core::action::{AvoidNodes, MantriRule};
use rein_core::estimate::Estimator;
use rein_core::policy::push_ahead;
use rein_core::{Action, EstimatorKind, Event, Reason, TaskId, TaskKind};
use std::hint::black_box;

/// The floor: (estimate ms, actions ms, the same actions by one `extend` ms, the same by
/// `push_ahead` ms, a 24-byte record each ms) for one round.
fn floor(running: u32) -> (f64, f64, f64, f64, f64) {
    let e = job("mantri", running);
    let j = e.job();
    let t0 = cpu();
    let estimator = Estimator::new(EstimatorKind::Mantri, j, 40_000, 10_000);
    let tasks = j.tasks(TaskKind::Map);
    let mut left = Vec::with_capacity(running as usize);
    for i in j.running_unsucceeded(TaskKind::Map) {
        let a = j.running_attempts_of(&tasks[i as usize]).next().expect("a running task has a running attempt");
        left.push((i, estimator.time_left_s(TaskKind::Map, a)));
    }
    let action = |(i, t_rem_s): (u32, f64)| {
        let reason = Reason::Mantri {
            rule: MantriRule::DuplicateAtEnd,
            t_rem_s,
            t_new_mean_s: 25.0,
            probability: None,
            copies: 1,
            delta_s: 10.0,
            threshold: 30.0,
        };
        Action::Speculate { task: TaskId::map(i), avoid_nodes: AvoidNodes::own_only(None), prefer_rack: None, reason }
    };
    let t1 = cpu();
    let mut actions = Vec::with_capacity(left.len());
    for &each in &left {
        actions.push(action(each));
    }
    let t2 = cpu();
    black_box(&actions);
    let t3 = cpu();
    let mut extended: Vec<Action> = Vec::with_capacity(left.len());
    extended.extend(left.iter().map(|&each| action(each)));
    let t4 = cpu();
    black_box(&extended);
    let t5 = cpu();
    let mut ahead: Vec<Action> = Vec::with_capacity(left.len());
    for &each in &left {
        push_ahead(&mut ahead, action(each));
    }
    let t6 = cpu();
    black_box(&ahead);
    let t7 = cpu();
    let mut records = Vec::with_capacity(left.len());
    for &(i, t_rem_s) in &left {
        records.push((TaskId::map(i), t_rem_s, 1u32));
    }
    let t8 = cpu();
    black_box(&records);
    (t1 - t0, t2 - t1, t4 - t3, t6 - t5, t8 - t7)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let policy = args.get(1).map_or("late", |s| s.as_str());
    let running: u32 = args.get(2).map_or(100_000, |s| s.parse().unwrap());
    let rounds: u32 = args.get(3).map_or(20, |s| s.parse().unwrap());
    let mode = args.get(4).map_or("first", |s| s.as_str());
    let free: Option<u32> = args.get(5).filter(|_| mode != "logged").map(|s| s.parse().expect("FREE: a number of slots"));
    if mode == "floor" {
        let runs: Vec<(f64, f64, f64, f64, f64)> = (0..rounds).map(|_| floor(running)).collect();
        let column = |f: fn(&(f64, f64, f64, f64, f64)) -> f64| spread(runs.iter().map(f).collect());
        println!(
            "floor {running}: estimate every task ms {}; write an action each ms {}; both ms {}; \
             the actions by one extend ms {}; pushed with their room asked for ahead ms {}; \
             a 24-byte record each instead ms {}",
            column(|r| r.0),
            column(|r| r.1),
            column(|r| r.0 + r.1),
            column(|r| r.2),
            column(|r| r.3),
            column(|r| r.4)
        );
        return;
    }
    if mode == "logged" {
        let max = args.get(5).map_or("16777216", |s| s.as_str());
        let (mut decides, mut takes, mut n, mut records, mut bytes) = (Vec::new(), Vec::new(), 0, 0, 0);
        for _ in 0..rounds {
            let mut e = job_with(policy, running, &[("rein.decision-log", "auto"), ("rein.decision-log.max-bytes", max)]);
            let t0 = cpu();
            n = e.decide(40_000).len();
            let t1 = cpu();
            let taken = e.take_records();
            let text = rein::glue::encode_records(&taken);
            takes.push(cpu() - t1);
            decides.push(t1 - t0);
            (records, bytes) = (taken.len(), text.len());
            black_box(text);
        }
        println!(
            "{policy} {running} logged: {n} actions, {records} records ({:.1} MB); decide ms {}; take and join ms {}",
            bytes as f64 / (1 << 20) as f64,
            spread(decides),
            spread(takes)
        );
        return;
    }
    let (mut times, mut faults, mut encodes, mut encodes_all) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut n = 0;
    for _ in 0..rounds {
        let (mut e, at) = match mode {
            "healthy" => (healthy_job(policy, running), HEALTHY_NOW),
            "first" | "encode" => (job(policy, running), 40_000),
            "unbounded" => (job_with(policy, running, &[("rein.max-copies-per-scan", "0")]), 40_000),
            other => panic!("MODE: first, unbounded, encode, healthy, logged or floor, not {other}"),
        };
        if let Some(free) = free.filter(|_| mode != "healthy") {
            e.ingest(39_000, Event::Capacity { total_slots: 1_000_000, free_slots: Some(free) });
        }
        let f0 = minor_faults();
        let t0 = cpu();
        let actions = e.decide(at);
        times.push(cpu() - t0);
        faults.push((minor_faults() - f0) as f64);
        n = actions.len();
        if mode == "encode" {
            let t0 = cpu();
            black_box(rein::glue::encode_typed(&actions, e.config().log_copies_per_scan));
            encodes.push(cpu() - t0);
            let t0 = cpu();
            black_box(rein::glue::encode_typed(&actions, u32::MAX));
            encodes_all.push(cpu() - t0);
        }
        black_box(&actions);
    }
    let encode = if encodes.is_empty() {
        String::new()
    } else {
        format!("; encode for JNI ms {}; with every reason ms {}", spread(encodes), spread(encodes_all))
    };
    println!("{policy} {running}: {n} actions; decide ms {}; page faults {}{encode}", spread(times), spread(faults));
}
