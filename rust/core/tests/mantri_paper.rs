//! Mantri's restart logic (OSDI 2010, §5.1, Fig. 7 and Pseudocode 1) through the engine.
//!
//! A phase of seven equal tasks on two slots, normal tasks taking t or 2t (t = 60 s). One task
//! straggles. If it straggles because of where it runs, Mantri restarts it while other tasks
//! wait, and duplicates it once every task has started; if it runs long because it has more data
//! to read, Mantri leaves it alone.

use rein_core::action::MantriRule;
use rein_core::{Action, Engine, Event, Outcome, Phase, Reason, TaskId};

const T: i64 = 60_000;
const MB: u64 = 1 << 20;

/// m1 runs 0–t and m2 t–3t on one slot; m0 runs from 0 at 1/`slowdown` of the normal pace on
/// the other; m3..m6 wait for slots when `waiting`. Progress is reported every 10 s.
fn phase(slowdown: f64, m0_input: u64, waiting: bool) -> Engine {
    let mut e = Engine::from_pairs([("rein.policy", "mantri")]).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: 7, reduces: 0 });
    for i in 0..7 {
        let bytes = if i == 0 { m0_input } else { 100 * MB };
        e.ingest(0, Event::TaskInput { task: TaskId::map(i), bytes });
    }
    let start = |e: &mut Engine, at, i| {
        e.ingest(at, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{i}:1")), rack: None })
    };
    let done = |e: &mut Engine, at, i| {
        e.ingest(at, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded })
    };
    start(&mut e, 0, 0);
    start(&mut e, 0, 1);
    done(&mut e, T, 1);
    start(&mut e, T, 2);
    done(&mut e, 3 * T, 2);
    if waiting {
        for i in 3..7 {
            e.ingest(0, Event::ContainerNeed { task: TaskId::map(i), delta: 1 });
        }
    }
    // m0 would take 1.5t on a healthy node (the mean of its siblings); it runs `slowdown` slower.
    let pace = 1.0 / (1.5 * T as f64 * slowdown);
    let mut at = 10_000;
    while at <= 3 * T {
        e.ingest(at, Event::AttemptStatus { attempt: TaskId::map(0).attempt(0), progress: at as f64 * pace, phase: Phase::Map });
        at += 10_000;
    }
    e
}

fn rule(a: &Action) -> MantriRule {
    match a.reason() {
        Reason::Mantri { rule, .. } => *rule,
        other => panic!("not a Mantri reason: {other:?}"),
    }
}

#[test]
fn a_straggler_slowed_by_its_node_is_restarted_while_tasks_wait() {
    let mut e = phase(4.0, 100 * MB, true);
    let actions = e.decide(3 * T);
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert!(matches!(actions[0], Action::Restart { attempt, .. } if attempt == TaskId::map(0).attempt(0)));
    assert_eq!(rule(&actions[0]), MantriRule::Restart);
    let Reason::Mantri { t_rem_s, t_new_mean_s, .. } = actions[0].reason() else { unreachable!() };
    // 3t elapsed at a quarter of the pace: 1 − 3/6 = 0.5 done, 180 s left; E[t_new] = 1.5t.
    assert!((t_rem_s - 180.0).abs() < 1e-3 && (t_new_mean_s - 90.0).abs() < 1e-3, "{t_rem_s} {t_new_mean_s}");
}

#[test]
fn restarts_stop_at_gamma() {
    let mut e = phase(4.0, 100 * MB, true);
    let mut restarts = 0;
    for round in 0..6 {
        let now = 3 * T + round * 1000;
        for a in e.decide(now) {
            if let Action::Restart { attempt, .. } = a {
                restarts += 1;
                // Hadoop replaces the killed attempt; the replacement straggles the same way.
                e.ingest(now, Event::AttemptFinished { attempt, outcome: Outcome::Killed });
                let next = TaskId::map(0).attempt(attempt.n + 1);
                e.ingest(now - 3 * T, Event::AttemptStarted { attempt: next, node: Some("n0:1".into()), rack: None });
                e.ingest(now, Event::AttemptStatus { attempt: next, progress: 0.5, phase: Phase::Map });
            }
        }
    }
    assert_eq!(restarts, 3, "γ = 3");
}

#[test]
fn a_straggler_is_duplicated_once_every_task_has_started() {
    let mut e = phase(4.0, 100 * MB, false);
    let actions = e.decide(3 * T);
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert!(matches!(&actions[0], Action::Speculate { task, avoid_nodes, .. }
        if *task == TaskId::map(0) && avoid_nodes.iter().map(|n| &**n).eq(["n0:1"])));
    assert_eq!(rule(&actions[0]), MantriRule::DuplicateAtEnd);
    assert!(e.decide(3 * T + 1000).is_empty(), "not re-duplicated soon after");
}

#[test]
fn a_task_that_is_long_because_it_has_more_data_is_not_copied() {
    // Four times the data at the normal pace per byte: it is slow only because it reads more.
    for waiting in [true, false] {
        let mut e = phase(4.0, 400 * MB, waiting);
        assert!(e.decide(3 * T).is_empty(), "waiting = {waiting}");
    }
}

#[test]
fn a_slow_task_close_to_its_end_is_left_alone() {
    // 2.5× slower: 225 s in all, 45 s left at 3t, against E[t_new] = 90 s: nothing to gain.
    let mut e = phase(2.5, 100 * MB, false);
    assert!(e.decide(3 * T).is_empty());
}
