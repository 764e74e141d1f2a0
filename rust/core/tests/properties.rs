//! Invariants that hold for any event stream: no action for a finished task, one copy at a time,
//! and never more copies running than the cap allows.

use proptest::prelude::*;
use rein_core::{Action, Engine, Event, Outcome, Phase, TaskId};

#[derive(Clone, Debug)]
enum Op {
    Start { task: u32, attempt: u32, node: u8 },
    Status { task: u32, attempt: u32, progress: f64 },
    Finish { task: u32, attempt: u32, outcome: u8 },
    Need { task: u32, delta: i32 },
    Decide,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..12u32, 0..3u32, 0..4u8).prop_map(|(task, attempt, node)| Op::Start { task, attempt, node }),
        (0..12u32, 0..3u32, 0.0..1.0f64).prop_map(|(task, attempt, progress)| Op::Status { task, attempt, progress }),
        (0..12u32, 0..3u32, 0..3u8).prop_map(|(task, attempt, outcome)| Op::Finish { task, attempt, outcome }),
        (0..12u32, prop_oneof![Just(1), Just(-1)]).prop_map(|(task, delta)| Op::Need { task, delta }),
        Just(Op::Decide),
        Just(Op::Decide),
    ]
}

fn task(i: u32) -> TaskId {
    if i < 8 { TaskId::map(i) } else { TaskId::reduce(i - 8) }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn late_respects_its_invariants(ops in prop::collection::vec((op(), 0..20_000i64), 1..200), cap in 0.05..1.0f64) {
        let cap_s = cap.to_string();
        let mut e = Engine::from_pairs([
            ("rein.policy", "late"),
            ("rein.late.min-runtime-ms", "1000"),
            ("rein.late.speculative-cap", cap_s.as_str()),
        ]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 8, reduces: 4 });
        let mut now = 0;
        for (op, step) in ops {
            now += step;
            match op {
                Op::Start { task: t, attempt, node } => e.ingest(now, Event::AttemptStarted {
                    attempt: task(t).attempt(attempt), node: Some(format!("n{node}:1")), rack: None }),
                Op::Status { task: t, attempt, progress } => e.ingest(now, Event::AttemptStatus {
                    attempt: task(t).attempt(attempt), progress, phase: Phase::Map }),
                Op::Finish { task: t, attempt, outcome } => e.ingest(now, Event::AttemptFinished {
                    attempt: task(t).attempt(attempt),
                    outcome: [Outcome::Succeeded, Outcome::Failed, Outcome::Killed][outcome as usize] }),
                Op::Need { task: t, delta } => e.ingest(now, Event::ContainerNeed { task: task(t), delta }),
                Op::Decide => {
                    let before = e.job().clone();
                    let actions = e.decide(now);
                    for a in &actions {
                        let Action::Speculate { task, .. } = a else { panic!("LATE only speculates") };
                        let t = before.task(*task).unwrap();
                        prop_assert!(!t.succeeded, "no action for a finished task");
                        prop_assert_eq!(before.live_copies(t), 1, "one copy at a time");
                    }
                    let job = e.job();
                    let speculating = job.all_tasks().filter(|t| !t.succeeded && job.live_copies(t) > 1).count() as u32;
                    let cap_copies = ((cap * job.slots() as f64).ceil() as u32).max(1);
                    if !actions.is_empty() {
                        prop_assert!(speculating <= cap_copies, "{} copies running, cap {}", speculating, cap_copies);
                    }
                }
            }
        }
    }
}
