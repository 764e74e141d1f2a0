//! A job's whole life through one engine, as an ApplicationMaster feeds it, and what its
//! decisions and events cost along the way:
//! `cargo run --release -p rein-bench --example job_stream -- POLICY [TASKS [RUNNING [LOG [RUNS]]]]`.
//!
//! TASKS maps (default 200,000) run at most RUNNING at a time (default 100,000), started in a
//! fixed pseudo-random order over the task indices on 1,000 nodes. Each attempt starts, reports
//! three times and finishes; one task in 50 progresses at a fifth of the others' pace. Each running
//! attempt reports about every 3 s (a task's progress interval in Hadoop) and the AM scans once a
//! second: the engine is asked for a decision every RUNNING / 3 events (at least 1,000), the
//! events spread evenly over that second. So every decision meets what the benchmarks of a
//! fixed state (`profile_decide`) do not: attempts just started that have not reported yet,
//! attempts finished since the last decision, a job where nothing has finished yet. The actions are
//! counted, not carried out. LOG is `rein.decision-log` (`off` by default; `auto` as an AM has it).
//!
//! Thread CPU time: the events timed in batches between decisions (ns an event), each decision
//! on its own (mean, median, 90th percentile and maximum over the job's decisions). RUNS (1 by
//! default) streams the same job that many times, each through a fresh engine, one line each,
//! then a line over the decisions of all the runs together, with the runs' least and greatest
//! 90th percentile beside it: a 90th percentile of one run's 24 decisions is its third slowest,
//! and moves by 0.1–0.4 ms from run to run; over 3 runs it is the eighth slowest of 72. With
//! `REIN_STREAM_EACH=1` each decision's time is also written to stderr as it is taken (the
//! job's clock in ms, the decision's CPU ms, the actions so far, the page faults it took): which
//! moments of a job the slow scans are, and whether fresh memory made them slow. With
//! `REIN_STREAM_BATCH=N` the events are handed over N at a time (`Engine::ingest_all`, as the
//! JNI glue hands on the shim's batches of 64), whatever is held given before each decision; one
//! by one (`Engine::ingest`) by default.

use rein_bench::{cpu, minor_faults, scattered};
use rein_core::{Engine, Event, Outcome, Phase, TaskId};
use std::collections::VecDeque;

/// The mean, median, 90th percentile and maximum of decision times.
fn spread(decisions: &[f64]) -> (f64, f64, f64, f64) {
    let mut sorted = decisions.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| sorted.get(((sorted.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(f64::NAN);
    (sorted.iter().sum::<f64>() / sorted.len().max(1) as f64, at(0.5), at(0.9), at(1.0))
}

/// Events to the engine one by one, or held and handed over `batch` at a time.
struct Feed {
    batch: usize,
    held: Vec<(i64, Event)>,
}

impl Feed {
    fn send(&mut self, e: &mut Engine, now: i64, event: Event) {
        if self.batch <= 1 {
            return e.ingest(now, event);
        }
        self.held.push((now, event));
        if self.held.len() == self.batch {
            self.flush(e);
        }
    }

    fn flush(&mut self, e: &mut Engine) {
        e.ingest_all(&mut self.held);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let policy = args.get(1).map_or("late", |s| s.as_str());
    let tasks: u32 = args.get(2).map_or(200_000, |s| s.parse().expect("TASKS: a number"));
    let running: usize = args.get(3).map_or(100_000, |s| s.parse().expect("RUNNING: a number"));
    let log = args.get(4).map_or("off", |s| s.as_str());
    let runs: usize = args.get(5).map_or(1, |s| s.parse().expect("RUNS: a number"));
    let (mut all, mut p90s) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let decisions = one_run(policy, tasks, running, log);
        p90s.push(spread(&decisions).2);
        all.extend(decisions);
    }
    if runs > 1 {
        let (mean, median, p90, max) = spread(&all);
        p90s.sort_by(f64::total_cmp);
        println!(
            "{policy} all {runs} runs: {} decisions, ms mean {mean:.3} median {median:.3} p90 {p90:.3} max {max:.3}; \
             the runs' p90 {:.3}-{:.3}",
            all.len(),
            p90s[0],
            p90s[runs - 1]
        );
    }
}

/// Streams the job once through a fresh engine, prints its line, and returns its decisions'
/// times.
fn one_run(policy: &str, tasks: u32, running: usize, log: &str) -> Vec<f64> {
    let mut e = Engine::from_pairs([("rein.policy", policy), ("rein.decision-log", log)]).expect("valid keys").0;
    e.ingest(0, Event::JobCreated { maps: tasks, reduces: 0 });
    // A fixed pseudo-random order of the tasks, so that every run streams the same job.
    let mut pending = scattered(tasks).into_iter();
    // Running attempts in the order of their next event, each with the reports it has made.
    let mut live: VecDeque<(u32, u32)> = VecDeque::with_capacity(running);
    let (mut now, mut events, mut actions) = (0i64, 0u64, 0usize);
    let (mut event_ms, mut decisions) = (0.0, Vec::new());
    let per_decision = (running as u64 / 3).max(1_000);
    let each = std::env::var_os("REIN_STREAM_EACH").is_some_and(|v| v == "1");
    let batch = std::env::var("REIN_STREAM_BATCH").map_or(1, |v| v.parse().expect("REIN_STREAM_BATCH: a number"));
    let mut feed = Feed { batch, held: Vec::with_capacity(batch) };
    let mut batch_start = cpu();
    loop {
        while live.len() < running {
            let Some(i) = pending.next() else { break };
            let node = Some(format!("n{}:1", i % 1_000));
            feed.send(&mut e, now, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node, rack: None });
            live.push_back((i, 0));
            events += 1;
        }
        let Some((i, reports)) = live.pop_front() else { break };
        // The clock: `per_decision` events a second.
        now = (events * 1_000 / per_decision) as i64;
        let attempt = TaskId::map(i).attempt(0);
        if reports < 3 {
            let pace = if i % 50 == 0 { 0.05 } else { 0.25 };
            feed.send(&mut e, now, Event::AttemptStatus { attempt, progress: (reports + 1) as f64 * pace, phase: Phase::Map });
            live.push_back((i, reports + 1));
        } else {
            feed.send(&mut e, now, Event::AttemptFinished { attempt, outcome: Outcome::Succeeded });
        }
        events += 1;
        if events % per_decision == 0 {
            feed.flush(&mut e);
            let faults_before = minor_faults();
            let t0 = cpu();
            event_ms += t0 - batch_start;
            actions += e.decide(now).len();
            drop(e.take_records());
            let t1 = cpu();
            decisions.push(t1 - t0);
            if each {
                let faults = minor_faults() - faults_before;
                eprintln!("at {now} ms: decision {:.3} ms, {actions} actions so far, {faults} page faults", t1 - t0);
            }
            batch_start = t1;
        }
    }
    feed.flush(&mut e);
    event_ms += cpu() - batch_start;
    let (mean, median, p90, max) = spread(&decisions);
    println!(
        "{policy} {tasks} tasks, {running} running, log {log}: {events} events, {:.0} ns each; {} decisions, ms mean {mean:.3} median {median:.3} p90 {p90:.3} max {max:.3}; {actions} actions",
        event_ms * 1e6 / events as f64,
        decisions.len(),
    );
    decisions
}
