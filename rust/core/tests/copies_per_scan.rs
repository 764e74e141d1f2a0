//! `rein.max-copies-per-scan`: a decision copies no more stragglers than the bound, and those it
//! copies are the first of the order the policy gives without it; the late tasks left over are
//! copied at the next scans. 0 turns the bound off (the papers' behaviour).

use rein_core::{Action, Engine, Event, Outcome, Phase, TaskId};
use std::collections::HashSet;

/// 3,000 running maps at seven paces, all behind their 300 siblings that finished in 20 s, on a
/// cluster with room for every copy; `bound` is `rein.max-copies-per-scan`.
fn late_job(policy: &str, bound: &str) -> Engine {
    let keys = [
        ("rein.policy", policy),
        ("rein.max-copies-per-scan", bound),
        ("rein.late.min-runtime-ms", "0"),
        ("rein.ese.expected-task-ms", "20000"),
        ("rein.cluster.slots", "1000000"),
    ];
    let mut e = Engine::from_pairs(keys).unwrap().0;
    let (running, all) = (3_000u32, 3_300u32);
    let first = |i: u32| TaskId::map(i).attempt(0);
    e.ingest(0, Event::JobCreated { maps: all, reduces: 0 });
    let node = |i: u32| Some(format!("n{}:1", i % 100));
    let starts = (0..all).map(|i| (0, Event::AttemptStarted { attempt: first(i), node: node(i), rack: None }));
    let ends = (running..all).map(|i| (20_000, Event::AttemptFinished { attempt: first(i), outcome: Outcome::Succeeded }));
    // Two reports each, at 10 s and 30 s; the slowest pace a seventh of the quickest, ties within each.
    let report = |at: i64, i: u32| (at, Event::AttemptStatus { attempt: first(i), progress: at as f64 / 100_000.0 / (1 + i % 7) as f64, phase: Phase::Map });
    let reports = [10_000, 30_000].into_iter().flat_map(|at| (0..running).map(move |i| report(at, i)));
    for (at, event) in starts.chain(ends).chain(reports) {
        e.ingest(at, event);
    }
    e
}

fn copied(actions: &[Action]) -> Vec<TaskId> {
    actions.iter().filter(|a| matches!(a, Action::Speculate { .. })).map(Action::task).collect()
}

#[test]
fn a_scan_copies_no_more_than_the_bound_and_the_best_ranked_first() {
    let bound = 200;
    for policy in ["late", "mantri", "ese", "sca", "auto", "dryad"] {
        let unbounded = copied(&late_job(policy, "0").decide(40_000));
        assert!(unbounded.len() > 2 * bound, "{policy}: {} copies with no bound; the test needs more than {}", unbounded.len(), 2 * bound);

        let mut e = late_job(policy, &bound.to_string());
        let first = copied(&e.decide(40_000));
        assert_eq!(first, unbounded[..bound], "{policy}: the first {bound} of the unbounded order");
        // The next scan copies the next ones: the rest of the late tasks, none twice.
        let second = copied(&e.decide(41_000));
        assert_eq!(second.len(), bound, "{policy}: a full second scan");
        let seen: HashSet<TaskId> = first.iter().copied().collect();
        assert!(second.iter().all(|t| !seen.contains(t)), "{policy}: a task copied twice");
        let late: HashSet<TaskId> = unbounded.iter().copied().collect();
        assert!(second.iter().all(|t| late.contains(t)), "{policy}: a copy of a task not late without the bound");
    }
}

#[test]
fn clones_made_as_tasks_start_are_not_bounded() {
    // Dolly clones a small job's tasks as they start, two copies each: 800 clones, not 500.
    let pairs = [("rein.policy", "dolly"), ("rein.max-copies-per-scan", "500"), ("rein.cluster.slots", "100000"), ("rein.dolly.small-job-tasks", "1000")];
    let mut e = Engine::from_pairs(pairs).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: 400, reduces: 0 });
    for i in 0..400 {
        e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{}:1", i % 100)), rack: None });
    }
    let copies: u32 = e.decide(1_000).iter().map(|a| if let Action::Clone { copies, .. } = a { *copies } else { 0 }).sum();
    assert!(copies > 500, "{copies} clones");
}
