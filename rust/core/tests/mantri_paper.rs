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
                // Two reports, 10 s apart at its quarter pace: a pace to judge it by.
                e.ingest(now - 10_000, Event::AttemptStatus { attempt: next, progress: 0.5 - 10_000.0 / (6.0 * T as f64), phase: Phase::Map });
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

/// Hadoop counts a copy's container request in TASK_CONTAINER_NEED_UPDATE like a first
/// attempt's. That request is no task waiting for a slot (§5.1): read as one, it made Mantri
/// restart the task it had just duplicated (seen on the cluster bed: four attempts launched for a
/// task, two of them won).
#[test]
fn a_duplicates_own_container_request_is_no_task_waiting() {
    let mut e = phase(4.0, 100 * MB, false);
    let first = e.decide(3 * T);
    assert_eq!(first.iter().map(rule).collect::<Vec<_>>(), vec![MantriRule::DuplicateAtEnd], "{first:?}");
    e.ingest(3 * T + 100, Event::ContainerNeed { task: TaskId::map(0), delta: 1 });
    for at in [3 * T + 1_000, 3 * T + 5_000] {
        e.ingest(at, Event::AttemptStatus { attempt: TaskId::map(0).attempt(0), progress: at as f64 / (6.0 * T as f64), phase: Phase::Map });
        assert!(e.decide(at).is_empty(), "no restart of the task just duplicated at {at}");
    }
    assert_eq!(e.job().booking(TaskId::map(0)).containers_wanted(), 1);
    assert_eq!(e.job().containers_wanted_beyond_copies(), 0);
    // The copy's container comes, then its attempt: nothing waits.
    e.ingest(3 * T + 6_000, Event::ContainerNeed { task: TaskId::map(0), delta: -1 });
    e.ingest(3 * T + 6_000, Event::AttemptStarted { attempt: TaskId::map(0).attempt(1), node: Some("n9:1".into()), rack: None });
    assert_eq!(e.job().booking(TaskId::map(0)).containers_wanted(), 0);
    assert_eq!(e.job().containers_wanted_beyond_copies(), 0);
    // Another task's first attempt waiting is a task waiting, copies or not.
    e.ingest(3 * T + 7_000, Event::ContainerNeed { task: TaskId::map(5), delta: 1 });
    assert_eq!(e.job().containers_wanted_beyond_copies(), 1);
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

/// A duplicate asked for earlier that never found a slot (it waits like any request) must not
/// keep Mantri from restarting the straggler once restarting pays. Finished maps took 30, 120 and
/// 120 s (E[t_new] = 90 s); m4 waits for a slot. At 130 s m0 has 80 s left: not enough to restart
/// (90 + Δ), but P(t_new < 40 s) = 1/3 > δ, so Mantri duplicates it; the copy never starts. Then
/// m0 all but stops, and at 200 s restarting pays.
#[test]
fn a_starved_duplicate_does_not_block_a_restart() {
    let mut e = Engine::from_pairs([("rein.policy", "mantri")]).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: 5, reduces: 0 });
    for i in 0..5 {
        e.ingest(0, Event::TaskInput { task: TaskId::map(i), bytes: 100 * MB });
    }
    for i in 0..4 {
        e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{i}:1")), rack: None });
    }
    e.ingest(0, Event::ContainerNeed { task: TaskId::map(4), delta: 1 });
    for (i, at) in [(1, 30_000), (2, 120_000), (3, 120_000)] {
        e.ingest(at, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
    }
    let m0 = TaskId::map(0).attempt(0);
    let mut at = 10_000;
    while at <= 130_000 {
        e.ingest(at, Event::AttemptStatus { attempt: m0, progress: at as f64 / 210_000.0, phase: Phase::Map });
        at += 10_000;
    }
    let first = e.decide(130_000);
    assert_eq!(first.iter().map(rule).collect::<Vec<_>>(), vec![MantriRule::DuplicateWhileWaiting], "{first:?}");
    while at <= 200_000 {
        let p = 130_000.0 / 210_000.0 + (at - 130_000) as f64 * 1e-7;
        e.ingest(at, Event::AttemptStatus { attempt: m0, progress: p, phase: Phase::Map });
        at += 10_000;
    }
    let later = e.decide(200_000);
    assert_eq!(later.iter().map(rule).collect::<Vec<_>>(), vec![MantriRule::Restart], "{later:?}");
}

/// Two reduces of equal input: r0 finished in 60 s; r1 has read its input (past SHUFFLE) and
/// then crawls at an eighth of r0's pace. Mantri's t_rem keeps extrapolating r1's own rate after
/// its input is read; the literal §5.5 reading (the siblings' wrap-up only) thinks it is nearly
/// done.
#[test]
fn t_rem_keeps_extrapolating_after_the_input_is_read() {
    let decide_on = |literal: bool| {
        let mut pairs = vec![("rein.policy", "mantri")];
        if literal {
            pairs.push(("rein.mantri.extrapolate-after-read", "false"));
        }
        let mut e = Engine::from_pairs(pairs).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 0, reduces: 2 });
        for i in 0..2 {
            e.ingest(0, Event::TaskInput { task: TaskId::reduce(i), bytes: 100 * MB });
            e.ingest(0, Event::AttemptStarted { attempt: TaskId::reduce(i).attempt(0), node: Some(format!("n{i}:1")), rack: None });
        }
        let r = |i| TaskId::reduce(i).attempt(0);
        e.ingest(20_000, Event::AttemptStatus { attempt: r(0), progress: 1.0 / 3.0, phase: Phase::Shuffle });
        e.ingest(21_000, Event::AttemptStatus { attempt: r(0), progress: 0.35, phase: Phase::Sort });
        e.ingest(60_000, Event::AttemptFinished { attempt: r(0), outcome: Outcome::Succeeded });
        // r1: shuffle done at 20 s like r0, then 1/8 of r0's pace: 2/3 of the score in 320 s.
        let mut at = 20_000;
        while at <= 100_000 {
            let p = 1.0 / 3.0 + (at - 20_000) as f64 / 320_000.0 * (2.0 / 3.0);
            let phase = if at == 20_000 { Phase::Shuffle } else { Phase::Sort };
            e.ingest(at, Event::AttemptStatus { attempt: r(1), progress: p, phase });
            at += 10_000;
        }
        e.decide(100_000)
    };
    let extrapolated = decide_on(false);
    assert_eq!(extrapolated.len(), 1, "{extrapolated:?}");
    match extrapolated[0].reason() {
        Reason::Mantri { t_rem_s, rule, .. } => {
            assert_eq!(*rule, MantriRule::DuplicateAtEnd);
            assert!((t_rem_s - 240.0).abs() < 1.0, "240 s left at its own pace: {t_rem_s}");
        }
        other => panic!("{other:?}"),
    }
    assert!(decide_on(true).is_empty(), "the literal wrap-up says r1 is done");
}

/// rein's adaptation (`rein.mantri.first-progress-factor`): early in a wave E[t_new] is the mean
/// of the quickest finishers; an attempt silent a little longer than E[t_new] + Δ, while its
/// siblings took as long to start, is a JVM still starting, not a straggler. The bench's healthy
/// cluster: two of seven maps finished in 16 s and 27 s, the rest had not shown progress at 27 s.
#[test]
fn a_silent_attempt_is_not_restarted_while_its_siblings_took_as_long_to_start() {
    let wave = |factor: &str| {
        let mut e = Engine::from_pairs([
            ("rein.policy", "mantri"),
            ("rein.mantri.delta-ms", "5000"),
            ("rein.mantri.first-progress-factor", factor),
        ])
        .unwrap()
        .0;
        e.ingest(0, Event::JobCreated { maps: 7, reduces: 1 });
        for i in 0..7 {
            e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{}:1", i % 4)), rack: None });
        }
        // m4 starts its work at 14 s and ends at 16 s; m6 at 24 s and 27 s.
        for (i, first, end) in [(4, 14_000, 16_000), (6, 24_000, 27_000)] {
            let attempt = TaskId::map(i).attempt(0);
            e.ingest(first, Event::AttemptStatus { attempt, progress: 0.66, phase: Phase::Map });
            e.ingest(end, Event::AttemptFinished { attempt, outcome: Outcome::Succeeded });
        }
        // The reduce waits for a container, so Mantri may restart.
        e.ingest(27_000, Event::ContainerNeed { task: TaskId::reduce(0), delta: 1 });
        e
    };
    // At 27.5 s the five silent maps have run longer than E[t_new] + Δ = 21.5 + 5 s.
    assert!(wave("1.5").decide(27_500).is_empty(), "their siblings took 14 and 24 s to start: not late yet");
    let restarts = wave("0").decide(27_500).iter().filter(|a| matches!(a, Action::Restart { .. })).count();
    assert!(restarts > 0, "factor 0: judged at E[t_new] + Δ, as §5.5 leaves it");
}
