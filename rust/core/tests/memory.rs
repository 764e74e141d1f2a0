//! Memory the engine keeps per tracked attempt, as rein's allocator counts the bytes held.

use std::sync::{Arc, Mutex};

use rein_core::policy::OutlierLearner;
use rein_core::{Engine, Event, Outcome, Phase, TaskId};

/// The tests read one process-wide count: they take turns.
static TURN: Mutex<()> = Mutex::new(());

/// rein's allocator, as librein declares it: it counts the bytes held (`rein_core::live_bytes`).
#[global_allocator]
static ALLOCATOR: rein_core::Allocator = rein_core::Allocator;

/// Under LATE, and under ESE with each running attempt's start time kept sorted for GRASS's
/// start-up bar (`model::RunningStarts`, kept for the policies that build the bar at most scans:
/// Mantri, ESE, `auto`, not LATE).
#[test]
fn an_attempt_costs_at_most_256_bytes() {
    let _turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
    for policy in ["late", "ese"] {
        let n = 100_000u32;
        let before = rein_core::live_bytes();
        let mut e = Engine::from_pairs([("rein.policy", policy)]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: n, reduces: 0 });
        for i in 0..n {
            let a = TaskId::map(i).attempt(0);
            e.ingest(0, Event::AttemptStarted { attempt: a, node: Some(format!("n{}:1", i % 1000)), rack: None });
            for k in 1..8 {
                e.ingest(k * 1000, Event::AttemptStatus { attempt: a, progress: k as f64 / 10.0, phase: Phase::Map });
            }
        }
        let per_attempt = (rein_core::live_bytes() - before) as f64 / n as f64;
        println!("engine memory per attempt (with its task), {policy}: {per_attempt:.0} bytes");
        assert!(per_attempt <= 256.0, "{policy}: {per_attempt:.0} bytes per attempt");
        // An attempt's brief alone is 48 bytes: a count that did not move would pass the bound.
        assert!(per_attempt >= 48.0, "{policy}: {per_attempt:.0} bytes per attempt: is rein's allocator counting?");
        drop(e);
    }
}

/// Under rein's allocator a big job's task list, made when its size arrives, starts on a huge
/// page (Linux): its advice (`rein.memory.huge-pages`) then covers all of it but its tail.
#[cfg(target_os = "linux")]
#[test]
fn a_big_jobs_records_start_on_a_huge_page() {
    let _turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
    let mut e = Engine::from_pairs([]).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: 100_000, reduces: 0 });
    let tasks = e.job().tasks(rein_core::TaskKind::Map);
    assert!(std::mem::size_of_val(tasks) >= 4 << 20);
    assert_eq!(tasks.as_ptr() as usize % (2 << 20), 0, "the task list starts on a 2-MB boundary");
}

/// One small job through `policy` from `t0`: 40 maps and 4 reduces on 20 nodes, one in ten maps a
/// straggler, progress every 3 s, a decision every second, every action's copy started (so that
/// copies, vetoes and kills run their course); the engine is dropped at the end, as an AM's is.
fn one_job(policy: &str, t0: i64, priors: &Arc<std::collections::HashMap<String, f64>>, learner: &mut OutlierLearner) {
    let (e, _) = Engine::from_pairs([("rein.policy", policy), ("rein.cluster.slots", "60")]).unwrap();
    let mut e = e;
    e.set_node_outlier_priors(priors.clone());
    let (maps, reduces) = (40u32, 4u32);
    e.ingest(t0, Event::JobCreated { maps, reduces });
    let mut next_attempt = vec![1u32; (maps + reduces) as usize];
    let node = |i: u32| Some(format!("n{}:1", i % 20));
    let tasks: Vec<TaskId> = (0..maps).map(TaskId::map).chain((0..reduces).map(TaskId::reduce)).collect();
    for (i, t) in tasks.iter().enumerate() {
        e.ingest(t0, Event::TaskInput { task: *t, bytes: 64 << 20 });
        e.ingest(t0, Event::AttemptStarted { attempt: t.attempt(0), node: node(i as u32), rack: None });
    }
    let mut done = vec![false; tasks.len()];
    for s in 1..=60i64 {
        let now = t0 + s * 1000;
        for (i, t) in tasks.iter().enumerate() {
            if done[i] {
                continue;
            }
            let slow = i % 10 == 3;
            let p = (s as f64 / if slow { 90.0 } else { 20.0 }).min(1.0);
            if p >= 1.0 {
                done[i] = true;
                e.ingest(now, Event::AttemptFinished { attempt: t.attempt(0), outcome: Outcome::Succeeded });
                for n in 1..next_attempt[i] {
                    e.ingest(now, Event::AttemptFinished { attempt: t.attempt(n), outcome: Outcome::Killed });
                }
            } else if s % 3 == 0 {
                let phase = if t.kind == rein_core::TaskKind::Map { Phase::Map } else { Phase::Reduce };
                e.ingest(now, Event::AttemptStatus { attempt: t.attempt(0), progress: p, phase });
            }
        }
        for a in e.decide(now) {
            let i = tasks.iter().position(|t| *t == a.task()).unwrap();
            if !done[i] && next_attempt[i] < 4 {
                let n = next_attempt[i];
                next_attempt[i] += 1;
                e.ingest(now, Event::AttemptStarted { attempt: a.task().attempt(n), node: node(i as u32 + n), rack: None });
            }
        }
        let _ = e.take_records();
    }
    learner.observe(t0 + 60_000, e.node_outlier_observations(t0 + 60_000));
}

/// A day of jobs, one a minute, through one process (as the simulator runs them, and as an AM
/// host would): what the engine keeps across jobs (Dolly's learned p_m, the σ* and copy-count
/// caches) must not grow with the number of jobs. Live bytes after the first two simulated hours
/// and after the whole day differ by less than 64 KB.
#[test]
fn memory_stays_flat_over_a_day_of_jobs() {
    let _turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
    let policies = ["late", "mantri", "dolly", "sca", "ese", "hadoop", "auto"];
    let mut learner = OutlierLearner::new(3_600_000, 0.05);
    let mut after_warmup = 0;
    let day = 24 * 60;
    for job in 0..day {
        let t0 = job as i64 * 60_000;
        learner.close(t0);
        let priors = Arc::new(learner.probabilities().clone());
        one_job(policies[job % policies.len()], t0, &priors, &mut learner);
        drop(priors);
        if job + 1 == 120 {
            after_warmup = rein_core::live_bytes();
        }
    }
    let end = rein_core::live_bytes();
    println!("live bytes after 2 h of jobs: {after_warmup}, after 24 h: {end} ({day} jobs)");
    assert!(end - after_warmup < 64 * 1024, "memory grew by {} bytes over the day", end - after_warmup);
}
