//! Dolly and SCA with their detecting partners (`rein.dolly.reactive`, `rein.sca.reactive`): a
//! heavily loaded job gets no clones, and its straggler is copied by LATE (beside Dolly) or ESE
//! (beside SCA); with the partner off, as the papers print the cloning algorithms, nothing is.

use rein_core::{Action, Engine, Event, Outcome, Phase, TaskId};

fn start(e: &mut Engine, at: i64, task: TaskId, node: &str) {
    e.ingest(at, Event::AttemptStarted { attempt: task.attempt(0), node: Some(node.into()), rack: None });
}

fn progress(e: &mut Engine, at: i64, task: TaskId, p: f64) {
    e.ingest(at, Event::AttemptStatus { attempt: task.attempt(0), progress: p, phase: Phase::Map });
}

/// Ten maps on ten slots, so neither Dolly (τ = 70%) nor SCA (Σm ≥ N) clones; eight finish at
/// 60 s, one is at 65% and one at 7% at 70 s. The copies each engine asks for, by task.
fn heavy_job_with_a_straggler(pairs: &[(&str, &str)]) -> (Vec<Action>, Vec<Action>) {
    let mut all = vec![("rein.cluster.slots", "10")];
    all.extend_from_slice(pairs);
    let mut e = Engine::from_pairs(all).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: 10, reduces: 0 });
    for i in 0..10 {
        start(&mut e, 0, TaskId::map(i), &format!("n{i}:1"));
    }
    let at_start = e.decide(1_000);
    for i in 0..10 {
        progress(&mut e, 30_000, TaskId::map(i), if i < 9 { 0.45 } else { 0.03 });
    }
    for i in 0..8 {
        e.ingest(60_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
    }
    progress(&mut e, 70_000, TaskId::map(8), 0.65);
    progress(&mut e, 70_000, TaskId::map(9), 0.07);
    (at_start, e.decide(70_000))
}

fn copied(actions: &[Action]) -> Vec<TaskId> {
    actions.iter().filter(|a| matches!(a, Action::Speculate { .. })).map(Action::task).collect()
}

#[test]
fn dolly_leaves_a_heavy_job_to_late_and_late_copies_its_straggler() {
    let (at_start, later) = heavy_job_with_a_straggler(&[("rein.policy", "dolly")]);
    assert!(at_start.is_empty(), "utilisation at the ceiling: no clone, {at_start:?}");
    assert_eq!(copied(&later), vec![TaskId::map(9)], "{later:?}");
    assert!(later.iter().all(|a| a.reason().to_string().contains("LATE §4")), "LATE's reason: {later:?}");

    let (at_start, later) = heavy_job_with_a_straggler(&[("rein.policy", "dolly"), ("rein.dolly.reactive", "none")]);
    assert!(at_start.is_empty() && later.is_empty(), "cloning only: {later:?}");

    let (_, later) = heavy_job_with_a_straggler(&[("rein.policy", "dolly"), ("rein.dolly.reactive", "mantri")]);
    assert!(copied(&later).contains(&TaskId::map(9)) || later.iter().any(|a| matches!(a, Action::Restart { .. })), "{later:?}");
}

#[test]
fn sca_leaves_a_heavy_phase_to_ese_and_ese_backs_its_straggler_up() {
    let (at_start, later) = heavy_job_with_a_straggler(&[("rein.policy", "sca")]);
    assert!(at_start.is_empty(), "Σm ≥ N: one copy each, {at_start:?}");
    assert_eq!(copied(&later), vec![TaskId::map(9)], "{later:?}");

    let (at_start, later) = heavy_job_with_a_straggler(&[("rein.policy", "sca"), ("rein.sca.reactive", "none")]);
    assert!(at_start.is_empty() && later.is_empty(), "SCA alone: {later:?}");
}

/// A light reduce phase: SCA clones its reduces only with `rein.sca.clone-reduces`.
#[test]
fn sca_clones_reduces_only_when_asked() {
    for (clone_reduces, expected) in [("false", 0), ("true", 2)] {
        let mut e = Engine::from_pairs([
            ("rein.policy", "sca"),
            ("rein.cluster.slots", "20"),
            ("rein.sca.clone-reduces", clone_reduces),
            ("rein.sca.reactive", "none"),
        ])
        .unwrap()
        .0;
        e.ingest(0, Event::JobCreated { maps: 0, reduces: 2 });
        start(&mut e, 0, TaskId::reduce(0), "n0:1");
        start(&mut e, 0, TaskId::reduce(1), "n1:1");
        let clones = e.decide(1_000).iter().filter(|a| matches!(a, Action::Clone { .. })).count();
        assert_eq!(clones, expected, "rein.sca.clone-reduces={clone_reduces}");
    }
}
