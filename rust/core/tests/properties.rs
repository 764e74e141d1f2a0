//! Invariants that hold for any event stream: no action for a finished task, one copy at a time,
//! never more copies running than the cap allows, and vetoes only of a task's extra attempts,
//! within their bound.

use std::collections::HashMap;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rein_core::estimate::{Estimator, EstimatorMemo};
use rein_core::{Action, Engine, EstimatorKind, Event, JobState, Outcome, Phase, TaskId, TaskKind};
use rein_core::model::AttemptState;

#[derive(Clone, Debug)]
enum Op {
    Start { task: u32, attempt: u32, node: u8 },
    /// `late` picks the phase past the reading one (a map sorting, a reduce sorting or reducing).
    Status { task: u32, attempt: u32, progress: f64, late: u8 },
    Finish { task: u32, attempt: u32, outcome: u8 },
    Need { task: u32, delta: i32 },
    Capacity { total: u32, free: u32 },
    Decide,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..12u32, 0..3u32, 0..4u8).prop_map(|(task, attempt, node)| Op::Start { task, attempt, node }),
        (0..12u32, 0..3u32, 0.0..1.0f64, 0..6u8)
            .prop_map(|(task, attempt, progress, late)| Op::Status { task, attempt, progress, late }),
        (0..12u32, 0..3u32, 0..3u8).prop_map(|(task, attempt, outcome)| Op::Finish { task, attempt, outcome }),
        (0..12u32, prop_oneof![Just(1), Just(-1)]).prop_map(|(task, delta)| Op::Need { task, delta }),
        (1..40u32, 0..10u32).prop_map(|(total, free)| Op::Capacity { total, free }),
        Just(Op::Decide),
        Just(Op::Decide),
    ]
}

/// Cases per property: a quick run in the test suite, many more from scripts/fuzz.sh.
fn cases(default: u32) -> u32 {
    std::env::var("REIN_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn task(i: u32) -> TaskId {
    if i < 8 { TaskId::map(i) } else { TaskId::reduce(i - 8) }
}

fn apply(e: &mut Engine, now: i64, op: &Op) {
    if let Some(event) = event_of(op) {
        e.ingest(now, event);
    }
}

/// The event an operation sends, none for a decision.
fn event_of(op: &Op) -> Option<Event> {
    Some(match *op {
        Op::Start { task: t, attempt, node } => Event::AttemptStarted {
            attempt: task(t).attempt(attempt), node: Some(format!("n{node}:1")), rack: None },
        Op::Status { task: t, attempt, progress, late } => {
            // Mostly the reading phase (a map's MAP, a reduce's SHUFFLE), now and then past it.
            let phase = match (t < 8, late) {
                (true, 0) => Phase::Sort,
                (true, _) => Phase::Map,
                (false, 0) => Phase::Sort,
                (false, 1) => Phase::Reduce,
                (false, _) => Phase::Shuffle,
            };
            Event::AttemptStatus { attempt: task(t).attempt(attempt), progress, phase }
        }
        Op::Finish { task: t, attempt, outcome } => Event::AttemptFinished {
            attempt: task(t).attempt(attempt),
            outcome: [Outcome::Succeeded, Outcome::Failed, Outcome::Killed][outcome as usize] },
        Op::Need { task: t, delta } => Event::ContainerNeed { task: task(t), delta },
        Op::Capacity { total, free } => Event::Capacity { total_slots: total, free_slots: Some(free) },
        Op::Decide => return None,
    })
}

/// A memo's estimates, kept across a job's decisions, are those of an estimator built afresh.
fn check_estimator_memo(memo: &mut EstimatorMemo, job: &JobState, now: i64) -> Result<(), TestCaseError> {
    for kind in [EstimatorKind::Mantri, EstimatorKind::PhaseAware, EstimatorKind::ProgressRate] {
        let (kept, fresh) = (memo.estimator(kind, job, now, 1000), Estimator::new(kind, job, now, 1000));
        for task in job.all_tasks() {
            for a in job.running_attempts_of(task) {
                let (x, y) = (kept.time_left_s(task.id.kind, a), fresh.time_left_s(task.id.kind, a));
                prop_assert!(x.to_bits() == y.to_bits(), "{:?} of {:?}: {} kept, {} afresh", kind, a.id, x, y);
                // The task's brief holds what the bound reads of its attempt, as the record has it,
                // and the bound never says "at most" of a larger estimate.
                if let Some(b) = job.brief(task.id).filter(|b| b.attempt(task.id) == a.id) {
                    prop_assert_eq!(b.first_report(), a.reports().next(), "first report of {:?}", a.id);
                    prop_assert_eq!(b.last_report(), a.last_report(), "last report of {:?}", a.id);
                    prop_assert_eq!(b.input_done(), a.input_done_at().is_some(), "input read, {:?}", a.id);
                    prop_assert_eq!((b.progress(), b.reported_at()), (a.progress, a.reported_at()), "report of {:?}", a.id);
                    for bar in [0.5, 1.0, 1.0 - 1e-12, 1.0 + 1e-12, 2.0].map(|f| x * f).into_iter().chain([1.0, 100.0]) {
                        let told = fresh.brief_time_left_clearly_at_most(task.id.kind, b, bar);
                        prop_assert!(!told || x <= bar, "{:?} of {:?}: {} told at most {}", kind, a.id, x, bar);
                    }
                }
            }
        }
    }
    Ok(())
}

/// Checks what every policy must respect, given the state before a decision and its actions.
fn check_common(policy: &str, before: &JobState, actions: &[Action]) -> Result<(), TestCaseError> {
    // The job's counts, kept as events arrive, agree with a walk over its tasks.
    for kind in [TaskKind::Map, TaskKind::Reduce] {
        let tasks = before.tasks(kind);
        let running: usize = tasks.iter().map(|t| before.running_attempts_of(t).count()).sum();
        prop_assert_eq!(before.running_attempt_count(kind) as usize, running, "running attempts of {:?}", kind);
        let succeeded = tasks.iter().filter(|t| t.succeeded).count();
        prop_assert_eq!(before.succeeded_task_count(kind) as usize, succeeded, "succeeded tasks of {:?}", kind);
        let started = tasks.iter().filter(|t| before.attempts_of(t).next().is_some()).count();
        prop_assert_eq!(before.started_task_count(kind) as usize, started, "started tasks of {:?}", kind);
        let durations: Vec<f64> = before.succeeded_attempts(kind).iter().map(|d| d.secs).filter(|s| *s > 0.0).collect();
        prop_assert_eq!(before.finished_durations(kind), durations, "finished durations of {:?}", kind);
        // In the order they finished: each succeeded attempt once, and each task's of the lowest
        // number found as its first.
        let mut keys: Vec<(u32, u32)> = before.succeeded_attempts(kind).iter().map(|d| d.key).collect();
        keys.sort_unstable();
        prop_assert!(keys.windows(2).all(|w| w[0] < w[1]), "a succeeded attempt of {:?} listed twice: {:?}", kind, keys);
        let succeeded: usize = tasks.iter().map(|t| before.attempts_of(t).filter(|a| a.state == AttemptState::Succeeded).count()).sum();
        prop_assert!(keys.len() >= succeeded, "{} succeeded attempts of {:?} listed, {} succeeded", keys.len(), kind, succeeded);
        for t in tasks {
            let first = keys.iter().find(|k| k.0 == t.id.index).copied();
            prop_assert_eq!(before.first_success(t.id).map(|d| d.key), first, "first success of {:?}", t.id);
            // Its start-up, kept with it, is its attempt's.
            let kept = before.first_success(t.id).map(|d| (d.key, d.startup_ms()));
            let read = first.map(|k| (k, before.attempts_of(t).nth(k.1 as usize).and_then(|a| a.startup_ms())));
            prop_assert_eq!(kept, read, "first success and start-up of {:?}", t.id);
        }
    }
    let beyond: u64 = before
        .all_tasks()
        .map(|t| before.booking(t.id))
        .map(|b| b.containers_wanted().saturating_sub(b.copies_pending()) as u64)
        .sum();
    prop_assert_eq!(before.containers_wanted_beyond_copies(), beyond, "containers wanted beyond copies pending");
    let pending: u64 = before.all_tasks().map(|t| before.booking(t.id).copies_pending() as u64).sum();
    prop_assert_eq!(before.copies_pending(), pending, "copies pending");
    let speculated = before
        .all_tasks()
        .filter(|t| !t.succeeded && before.booking(t.id).running() + before.booking(t.id).copies_pending() > 1)
        .count();
    prop_assert_eq!(before.speculated_task_count() as usize, speculated, "tasks speculated");
    for a in actions {
        let t = before.task(a.task()).unwrap();
        prop_assert!(!t.succeeded, "no action for a finished task: {:?}", a);
        match a {
            Action::Speculate { .. } | Action::Clone { .. } => {
                prop_assert!(before.running_attempts_of(t).next().is_some(), "copies only of running tasks: {:?}", a);
            }
            Action::Restart { attempt, .. } | Action::Veto { attempt, .. } | Action::Move { attempt, .. } => {
                prop_assert!(before.attempt(*attempt).is_some_and(|x| x.is_running()), "kills only running attempts");
            }
        }
        match a {
            Action::Veto { attempt, .. } => {
                prop_assert!(
                    before.running_attempts_of(t).any(|x| x.id != *attempt),
                    "a veto never kills its task's only running attempt: {:?}",
                    a
                );
            }
            Action::Move { attempt, .. } => {
                prop_assert!(policy == "mantri" && attempt.task.kind == TaskKind::Reduce, "only Mantri moves, only reduces");
            }
            // The model of the stock speculator names no node to avoid, as the stock one does not.
            Action::Speculate { avoid_nodes, .. } if policy != "hadoop" => {
                for x in before.running_attempts_of(t).filter_map(|x| x.node) {
                    let node = &before.node(x).name;
                    prop_assert!(avoid_nodes.iter().any(|n| n == node), "a copy avoids its task's nodes: {:?}", a);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

const POLICIES: [&str; 9] = ["auto", "late", "mantri", "dolly", "sca", "ese", "hadoop", "mapreduce", "dryad"];

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(64), ..ProptestConfig::default() })]

    /// Every policy, any event stream — reports lost, duplicated or out of order, attempts ending
    /// behind the engine's back, the clock stepping backwards now and then: no panic, no action
    /// for a finished task, copies only of running tasks, kills only of running attempts; cloning
    /// never asks for more copies than free slots; a copy avoids its task's nodes; a veto kills
    /// an attempt beside which its task runs another, at most `rein.veto.max-per-task` per task.
    #[test]
    fn every_policy_respects_the_common_invariants(
        ops in prop::collection::vec((op(), -3_000..20_000i64), 1..150),
        policy in 0..POLICIES.len(),
        slots in 1..40u32,
        max_vetoes in 0..4u32,
    ) {
        let slots_s = slots.to_string();
        let max_vetoes_s = max_vetoes.to_string();
        let mut e = Engine::from_pairs([
            ("rein.policy", POLICIES[policy]),
            ("rein.cluster.slots", slots_s.as_str()),
            ("rein.late.min-runtime-ms", "1000"),
            ("rein.mantri.delta-ms", "1000"),
            ("rein.ese.expected-task-ms", "5000"),
            ("rein.dolly.window-ms", "5000"),
            ("rein.veto.max-per-task", max_vetoes_s.as_str()),
            ("rein.topology.racks", "n0:1=/a n1:1=/a n2:1=/b n3:1=/b"),
        ]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 8, reduces: 4 });
        let mut now = 0;
        let mut vetoes: HashMap<TaskId, u32> = HashMap::new();
        let mut moves: HashMap<TaskId, u32> = HashMap::new();
        let mut memo = EstimatorMemo::default();
        for (op, step) in ops {
            now += step;
            if let Op::Decide = op {
                let before = e.job().clone();
                check_estimator_memo(&mut memo, &before, now)?;
                let free_before = before.free_slots.unwrap_or(u32::MAX);
                let actions = e.decide(now);
                check_common(POLICIES[policy], &before, &actions)?;
                for a in actions.iter().filter(|a| matches!(a, Action::Veto { .. })) {
                    let n = vetoes.entry(a.task()).or_default();
                    *n += 1;
                    prop_assert!(*n <= max_vetoes, "{} vetoes of {}, bound {}", n, a.task(), max_vetoes);
                    prop_assert!(POLICIES[policy] != "hadoop", "the stock model never vetoes");
                }
                for a in actions.iter().filter(|a| matches!(a, Action::Move { .. })) {
                    let n = moves.entry(a.task()).or_default();
                    *n += 1;
                    prop_assert!(*n <= 2, "{} moves of {}, bound 2", n, a.task());
                }
                let cloned: u32 = actions.iter().filter(|a| matches!(a, Action::Clone { .. })).map(|a| a.new_copies()).sum();
                prop_assert!(cloned <= free_before, "clones within the reported free slots");
                let job = e.job();
                for t in job.all_tasks() {
                    prop_assert!(job.live_copies(t) <= 16, "runaway copies of {}", t.id);
                }
                if POLICIES[policy] == "mantri" {
                    for a in &actions {
                        if let Action::Speculate { task, .. } = a {
                            prop_assert!(job.live_copies(job.task(*task).unwrap()) <= 3, "Mantri: at most three copies");
                        }
                    }
                }
            } else {
                apply(&mut e, now, &op);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(64), ..ProptestConfig::default() })]

    /// Events handed over together (`Engine::ingest_all`, which asks for their tasks' records
    /// ahead) leave every policy's engine as the same events one by one do: the same state, the
    /// same decisions.
    #[test]
    fn events_together_are_the_events_one_by_one(
        ops in prop::collection::vec((op(), -3_000..20_000i64), 1..150),
        policy in 0..POLICIES.len(),
    ) {
        let engine = || {
            let mut e = Engine::from_pairs([("rein.policy", POLICIES[policy]), ("rein.cluster.slots", "16")]).unwrap().0;
            e.ingest(0, Event::JobCreated { maps: 8, reduces: 4 });
            e
        };
        let (mut one_by_one, mut together, mut held) = (engine(), engine(), Vec::new());
        let mut now = 0;
        for (op, step) in ops.into_iter().chain([(Op::Decide, 0)]) {
            now += step;
            match event_of(&op) {
                Some(event) => {
                    one_by_one.ingest(now, event.clone());
                    held.push((now, event));
                }
                None => {
                    together.ingest_all(&mut held);
                    prop_assert_eq!(format!("{:?}", one_by_one.job()), format!("{:?}", together.job()));
                    // Compared as text: a reason can hold a NaN, which `==` never equals.
                    let (x, y) = (one_by_one.decide(now), together.decide(now));
                    prop_assert_eq!(format!("{:?}", x), format!("{:?}", y));
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

    #[test]
    fn late_respects_its_invariants(ops in prop::collection::vec((op(), 0..20_000i64), 1..200), cap in 0.05..1.0f64) {
        let cap_s = cap.to_string();
        let mut e = Engine::from_pairs([
            ("rein.policy", "late"),
            ("rein.late.min-runtime-ms", "1000"),
            ("rein.late.speculative-cap", cap_s.as_str()),
            // The cap as LATE §4 prints it: rein's default raises it to the tasks running on slow
            // nodes, which this property does not model.
            ("rein.late.cap-covers-slow-nodes", "false"),
        ]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 8, reduces: 4 });
        let mut now = 0;
        for (op, step) in ops {
            now += step;
            match op {
                Op::Decide => {
                    let before = e.job().clone();
                    let actions = e.decide(now);
                    for a in &actions {
                        let task = match a {
                            Action::Speculate { task, .. } => task,
                            Action::Veto { .. } => continue,
                            _ => panic!("LATE only speculates and vetoes its copies"),
                        };
                        let t = before.task(*task).unwrap();
                        prop_assert!(!t.succeeded, "no action for a finished task");
                        prop_assert_eq!(before.live_copies(t), 1, "one copy at a time");
                    }
                    let job = e.job();
                    let speculating = job.all_tasks().filter(|t| !t.succeeded && job.live_copies(t) > 1).count() as u32;
                    let cap_copies = ((cap * job.slots() as f64).ceil() as u32).max(1);
                    // The cap binds new copies; vetoes of copies that landed badly may come with none.
                    if actions.iter().any(|a| matches!(a, Action::Speculate { .. })) {
                        prop_assert!(speculating <= cap_copies, "{} copies running, cap {}", speculating, cap_copies);
                    }
                }
                other => apply(&mut e, now, &other),
            }
        }
    }
}
