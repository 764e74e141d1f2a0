//! What the engine does with what a real AM tells it beyond the papers: re-run maps, kills the
//! caller could not carry out, attempts at their end, Hadoop's per-kind speculation switches.

use rein_core::{Action, Engine, Event, Outcome, Phase, TaskId};

const T: i64 = 60_000;

/// Mantri §5.1's restart case (see mantri_paper.rs): m0 crawls on its node at a quarter of the
/// pace while m3..m6 wait.
fn straggler_while_tasks_wait(extra: &[(&str, &str)]) -> Engine {
    let mut pairs = vec![("rein.policy", "mantri")];
    pairs.extend_from_slice(extra);
    let mut e = Engine::from_pairs(pairs).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: 7, reduces: 0 });
    for i in 0..3 {
        e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{i}:1")), rack: None });
    }
    e.ingest(T, Event::AttemptFinished { attempt: TaskId::map(1).attempt(0), outcome: Outcome::Succeeded });
    e.ingest(3 * T, Event::AttemptFinished { attempt: TaskId::map(2).attempt(0), outcome: Outcome::Succeeded });
    for i in 3..7 {
        e.ingest(0, Event::ContainerNeed { task: TaskId::map(i), delta: 1 });
    }
    let pace = 1.0 / (6.0 * T as f64);
    let mut at = 10_000;
    while at <= 3 * T {
        e.ingest(at, Event::AttemptStatus { attempt: TaskId::map(0).attempt(0), progress: at as f64 * pace, phase: Phase::Map });
        at += 10_000;
    }
    e
}

fn restarts(actions: &[Action]) -> usize {
    actions.iter().filter(|a| matches!(a, Action::Restart { .. })).count()
}

#[test]
fn a_restart_the_caller_drops_does_not_use_up_the_tasks_restarts() {
    let mut e = straggler_while_tasks_wait(&[]);
    let m0 = TaskId::map(0).attempt(0);
    for round in 0..5 {
        let actions = e.decide(3 * T + round * 1000);
        assert_eq!(restarts(&actions), 1, "round {round}: {actions:?}");
        e.ingest(3 * T + round * 1000, Event::KillDropped { attempt: m0 });
        assert_eq!(e.job().booking(m0.task).restarts(), 0);
    }
}

/// m1 and m2 take 10 s; m0 has run 180 s and last reported `progress` while m3..m6 wait.
fn almost_done_straggler(progress: f64, phase: Phase) -> Engine {
    // Mantri restarts when t_rem > t_new + Δ: a small Δ makes it restart this close to the end.
    let mut e = Engine::from_pairs([("rein.policy", "mantri"), ("rein.mantri.delta-ms", "100")]).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: 7, reduces: 0 });
    for i in 0..3 {
        e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{i}:1")), rack: None });
    }
    for i in 1..3 {
        e.ingest(10_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
    }
    for i in 3..7 {
        e.ingest(0, Event::ContainerNeed { task: TaskId::map(i), delta: 1 });
    }
    let m0 = TaskId::map(0).attempt(0);
    e.ingest(90_000, Event::AttemptStatus { attempt: m0, progress: progress / 2.0, phase: Phase::Map });
    e.ingest(3 * T, Event::AttemptStatus { attempt: m0, progress, phase });
    e
}

#[test]
fn an_attempt_near_its_end_or_in_cleanup_is_never_restarted() {
    // The same straggler at 80% is restarted (10 s for a new copy against 45 s left) ...
    assert_eq!(restarts(&almost_done_straggler(0.8, Phase::Map).decide(3 * T)), 1);
    // ... but not at 92% (16 s left, still more than a new copy needs) nor while cleaning up.
    assert_eq!(restarts(&almost_done_straggler(0.92, Phase::Map).decide(3 * T)), 0);
    assert_eq!(restarts(&almost_done_straggler(0.8, Phase::Cleanup).decide(3 * T)), 0);
}

#[test]
fn nothing_is_restarted_while_map_speculation_is_off_but_maps_are_still_seen() {
    let mut e = straggler_while_tasks_wait(&[("mapreduce.map.speculative", "false")]);
    assert!(e.decide(3 * T).is_empty());
    assert_eq!(e.job().tasks(rein_core::TaskKind::Map).len(), 7);
    let mut e = straggler_while_tasks_wait(&[("mapreduce.reduce.speculative", "FALSE")]);
    assert_eq!(restarts(&e.decide(3 * T)), 1, "the reduce switch leaves maps alone");
    assert!(Engine::from_pairs([("mapreduce.map.speculative", "maybe")]).is_err());
}

#[test]
fn a_succeeded_map_reported_killed_later_is_open_again() {
    let mut e = Engine::from_pairs([("rein.policy", "late")]).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: 2, reduces: 1 });
    let m0 = TaskId::map(0).attempt(0);
    e.ingest(0, Event::AttemptStarted { attempt: m0, node: Some("lost:1".into()), rack: None });
    e.ingest(5_000, Event::TaskOutput { task: m0.task, bytes: 10 });
    e.ingest(5_000, Event::AttemptFinished { attempt: m0, outcome: Outcome::Succeeded });
    assert!(e.job().task(m0.task).unwrap().succeeded);
    // Its node became unusable: Hadoop kills the succeeded attempt and re-runs the map.
    e.ingest(9_000, Event::AttemptFinished { attempt: m0, outcome: Outcome::Killed });
    e.ingest(9_000, Event::NodeLost { node: "lost:1".into() });
    let t = e.job().task(m0.task).unwrap();
    assert!(!t.succeeded && t.output_bytes().is_none(), "{t:?}");
    assert!(e.job().nodes().any(|(_, n)| &*n.name == "lost:1" && n.lost));
    assert_eq!(e.job().running(), 0, "a reopened task has no running attempt until Hadoop starts one");
    let again = TaskId::map(0).attempt(1);
    e.ingest(9_500, Event::AttemptStarted { attempt: again, node: Some("ok:1".into()), rack: None });
    assert!(e.job().attempt(again).is_some_and(|a| a.is_running() && !a.is_copy));
}

/// A start that names its node by the caller's id lands on the node last named so, with its
/// rack; an id never named, or past the greatest, leaves the node unknown, as a start without one.
#[test]
fn a_start_by_node_id_lands_on_the_node_named() {
    let mut e = Engine::from_pairs([("rein.policy", "none")]).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: 4, reduces: 0 });
    e.ingest(0, Event::NodeNamed { id: 7, node: "h7:1".into(), rack: Some("/r1".into()) });
    e.ingest(0, Event::NodeNamed { id: rein_core::MAX_NODE_ID + 1, node: "far:1".into(), rack: None });
    e.ingest(0, Event::AttemptStartedOn { attempt: TaskId::map(0).attempt(0), node: 7 });
    e.ingest(0, Event::AttemptStartedOn { attempt: TaskId::map(1).attempt(0), node: 3 });
    e.ingest(0, Event::AttemptStartedOn { attempt: TaskId::map(2).attempt(0), node: rein_core::MAX_NODE_ID + 1 });
    // The same name under its string: the same node.
    e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(3).attempt(0), node: Some("h7:1".into()), rack: None });
    let job = e.job();
    let node_of = |i: u32| job.attempt(TaskId::map(i).attempt(0)).expect("started").node;
    let n = node_of(0).expect("placed on the named node");
    assert_eq!((job.node(n).name.as_str(), job.node(n).rack.as_deref()), ("h7:1", Some("/r1")));
    assert_eq!(node_of(3), Some(n));
    assert_eq!((node_of(1), node_of(2)), (None, None));
    assert_eq!(job.named_node(3), None);
}
