//! LATE's worked examples (Zaharia et al., OSDI 2008), replayed through the engine.

use rein_core::{Action, Engine, Event, Outcome, Phase, Reason, TaskId};

const MIN: i64 = 60_000;

/// LATE as the paper prints it: rein's adaptations (slow start-up, the judged rate pool, the cap
/// covering slow nodes, GRASS's cost test, reduces waiting for the map phase) off.
const AS_PRINTED: [(&str, &str); 5] = [
    ("rein.late.first-progress-factor", "0"),
    ("rein.late.rate-pool", "all"),
    ("rein.late.cap-covers-slow-nodes", "false"),
    ("rein.late.grass", "false"),
    ("rein.late.reduce-waits-for-maps", "false"),
];

fn engine(pairs: &[(&str, &str)]) -> Engine {
    let mut all = vec![("rein.policy", "late")];
    all.extend_from_slice(&AS_PRINTED);
    all.extend_from_slice(pairs);
    Engine::from_pairs(all).unwrap().0
}

fn start(e: &mut Engine, at: i64, task: TaskId, node: &str) {
    e.ingest(at, Event::AttemptStarted { attempt: task.attempt(0), node: Some(node.into()), rack: None });
}

fn progress(e: &mut Engine, at: i64, task: TaskId, p: f64) {
    e.ingest(at, Event::AttemptStatus { attempt: task.attempt(0), progress: p, phase: Phase::Map });
}

fn succeed(e: &mut Engine, at: i64, task: TaskId) {
    e.ingest(at, Event::AttemptFinished { attempt: task.attempt(0), outcome: Outcome::Succeeded });
}

fn speculated(actions: &[Action]) -> Vec<TaskId> {
    actions
        .iter()
        .map(|a| match a {
            Action::Speculate { task, .. } => *task,
            other => panic!("LATE only speculates, got {other:?}"),
        })
        .collect()
}

/// §3.2: average progress 70%, a 2× slower task at 35% and a 10× slower task at 7%. Hadoop may
/// copy the 2× task first; LATE copies the one that will finish last, the 10× task.
#[test]
fn section_3_2_the_10x_task_at_7_percent_goes_before_the_2x_task_at_35_percent() {
    let mut e = engine(&[("rein.cluster.slots", "10")]);
    e.ingest(0, Event::JobCreated { maps: 10, reduces: 0 });
    for i in 0..10 {
        start(&mut e, 0, TaskId::map(i), &format!("n{i}:1"));
    }
    let now = 70_000;
    for i in 0..8 {
        progress(&mut e, now, TaskId::map(i), 0.70);
    }
    progress(&mut e, now, TaskId::map(8), 0.35);
    progress(&mut e, now, TaskId::map(9), 0.07);

    let actions = e.decide(now);
    assert_eq!(speculated(&actions), vec![TaskId::map(9)], "cap is 10% of 10 slots = 1 copy");
    let Reason::Late { time_left_s, rank, cap, .. } = actions[0].reason().clone() else { panic!() };
    assert_eq!((rank, cap), (1, 1));
    assert!((time_left_s - 930.0).abs() < 1e-6, "0.93 left at 0.001/s: {time_left_s}");

    // With room for two copies the 2× task follows, ranked second (130 s left).
    let mut e2 = engine(&[("rein.cluster.slots", "20")]);
    e2.ingest(0, Event::JobCreated { maps: 10, reduces: 0 });
    for i in 0..10 {
        start(&mut e2, 0, TaskId::map(i), &format!("n{i}:1"));
    }
    for i in 0..8 {
        progress(&mut e2, now, TaskId::map(i), 0.70);
    }
    progress(&mut e2, now, TaskId::map(8), 0.35);
    progress(&mut e2, now, TaskId::map(9), 0.07);
    assert_eq!(speculated(&e2.decide(now)), vec![TaskId::map(9), TaskId::map(8)]);
}

/// §4.1: task A is 5× slower than the mean at 90% progress, task B 2× slower at 10%. B hurts the
/// response time more and is copied first, although its progress rate is higher.
#[test]
fn section_4_1_task_b_at_10_percent_goes_before_task_a_at_90_percent() {
    let r = 0.002; // mean progress rate, per second
    let mut e = engine(&[("rein.cluster.slots", "10")]);
    e.ingest(0, Event::JobCreated { maps: 8, reduces: 0 });
    let now = 3_000_000;
    // Six tasks at the mean rate, finished.
    for i in 0..6 {
        let t = TaskId::map(i);
        start(&mut e, 0, t, "fast:1");
        succeed(&mut e, (1000.0 / r) as i64, t);
    }
    let (a, b) = (TaskId::map(6), TaskId::map(7));
    let a_started = now - (0.9 / (r / 5.0) * 1000.0) as i64;
    let b_started = now - (0.1 / (r / 2.0) * 1000.0) as i64;
    start(&mut e, a_started, a, "slow-a:1");
    start(&mut e, b_started, b, "slow-b:1");
    progress(&mut e, now, a, 0.9);
    progress(&mut e, now, b, 0.1);

    let actions = e.decide(now);
    assert_eq!(speculated(&actions), vec![b]);
    let Reason::Late { rate, time_left_s, candidates, .. } = actions[0].reason().clone() else { panic!() };
    assert_eq!(candidates, 2, "both A and B are below SlowTaskThreshold");
    assert!((rate - r / 2.0).abs() < 1e-9);
    assert!((time_left_s - 900.0).abs() < 1e-6);
}

/// §5.4.3: ten fast nodes run a task in 1 min, node X in 2.9 min, node Y in 10 min; 32 tasks.
/// At 2.9 min X has finished its task while Y's is at 29%. X's total progress (1.0) is below the
/// 25th percentile of node progress, so LATE will not put Y's copy on X.
#[test]
fn section_5_4_3_node_x_is_below_slow_node_threshold_and_is_avoided() {
    let mut e = engine(&[]);
    e.ingest(0, Event::JobCreated { maps: 32, reduces: 0 });
    let mut next = 0;
    let mut task = || {
        next += 1;
        TaskId::map(next - 1)
    };
    for n in 0..10 {
        let node = format!("fast{n}:1");
        let (t0, t1, t2) = (task(), task(), task());
        start(&mut e, 0, t0, &node);
        succeed(&mut e, MIN, t0);
        start(&mut e, MIN, t1, &node);
        succeed(&mut e, 2 * MIN, t1);
        start(&mut e, 2 * MIN, t2, &node);
    }
    let (x, y) = (task(), task());
    assert_eq!(y, TaskId::map(31));
    start(&mut e, 0, x, "X:1");
    start(&mut e, 0, y, "Y:1");
    let now = (2.9 * MIN as f64) as i64;
    succeed(&mut e, now, x);
    for i in 0..10 {
        progress(&mut e, now, TaskId::map(3 * i + 2), 0.9);
    }
    progress(&mut e, now, y, 0.29);

    let actions = e.decide(now);
    assert_eq!(speculated(&actions), vec![y], "only Y's task is slower than the 25th percentile");
    let Action::Speculate { avoid_nodes, .. } = &actions[0] else { unreachable!() };
    assert!(avoid_nodes.iter().map(|n| &**n).eq(["X:1", "Y:1"]), "{avoid_nodes:?}");
}

/// §4's SlowTaskThreshold when half the attempts have not reported any progress (their JVMs are
/// still starting on slow nodes): the 25th percentile is 0, yet the silent attempts are the
/// slowest of all and are copied, longest time left (infinite) first, under the cap.
#[test]
fn attempts_without_progress_are_below_a_zero_slow_task_threshold() {
    let mut e = engine(&[("rein.cluster.slots", "20"), ("rein.late.min-runtime-ms", "5000")]);
    e.ingest(0, Event::JobCreated { maps: 8, reduces: 0 });
    for i in 0..8 {
        start(&mut e, 0, TaskId::map(i), if i < 4 { "slow:1" } else { "fast:1" });
    }
    for i in 4..8 {
        progress(&mut e, 10_000, TaskId::map(i), 0.5);
    }
    let actions = e.decide(20_000);
    assert_eq!(speculated(&actions), vec![TaskId::map(0), TaskId::map(1)], "cap is 10% of 20 slots = 2");
    let Reason::Late { slow_task_rate, time_left_s, .. } = actions[0].reason().clone() else { panic!() };
    assert_eq!(slow_task_rate, 0.0);
    assert!(time_left_s.is_infinite());
}

/// The same job under rein's defaults: the silent attempts are only slow to start until they have
/// run 1.5 times the 10 s their siblings took to show progress; then all four on the slow node are
/// copied at once (the cap covers the slow node's tasks, LATE §5.4.1), as GRASS finds an
/// infinite t_rem worth a copy of t_new = 10 s start-up + 12 s of work (half done in the 6 s
/// since the siblings' first progress).
#[test]
fn rein_judges_silent_attempts_against_their_siblings_start_up_and_covers_the_slow_node() {
    let mut e = Engine::from_pairs([
        ("rein.policy", "late"),
        ("rein.cluster.slots", "20"),
        ("rein.late.min-runtime-ms", "5000"),
    ])
    .unwrap()
    .0;
    e.ingest(0, Event::JobCreated { maps: 8, reduces: 0 });
    for i in 0..8 {
        start(&mut e, 0, TaskId::map(i), if i < 4 { "slow:1" } else { "fast:1" });
    }
    for i in 4..8 {
        progress(&mut e, 10_000, TaskId::map(i), 0.5);
    }
    assert!(e.decide(15_000).is_empty(), "15 s is not yet 1.5 times the siblings' 10 s start-up");
    let actions = e.decide(16_000);
    assert_eq!(speculated(&actions), (0..4).map(TaskId::map).collect::<Vec<_>>());
    let text = actions[0].reason().to_string();
    assert!(text.contains("cap 4 (20 slots)") && text.contains("GRASS §4 last wave"), "{text}");
    assert!(text.contains("t_new 22.0 s"), "{text}");
}

#[test]
fn a_task_younger_than_the_minimum_run_time_is_not_judged() {
    let mut e = engine(&[]);
    e.ingest(0, Event::JobCreated { maps: 4, reduces: 0 });
    for i in 0..4 {
        start(&mut e, 0, TaskId::map(i), "n:1");
    }
    for i in 0..3 {
        succeed(&mut e, 10_000, TaskId::map(i));
    }
    progress(&mut e, 50_000, TaskId::map(3), 0.1);
    assert!(e.decide(50_000).is_empty(), "50 s < the 1-minute minimum");
    assert_eq!(speculated(&e.decide(MIN)), vec![TaskId::map(3)]);
}

#[test]
fn one_copy_per_task_and_none_while_tasks_wait_for_containers() {
    let mut e = engine(&[("rein.late.min-runtime-ms", "0")]);
    e.ingest(0, Event::JobCreated { maps: 3, reduces: 0 });
    for i in 0..3 {
        start(&mut e, 0, TaskId::map(i), "n:1");
    }
    succeed(&mut e, 1_000, TaskId::map(0));
    succeed(&mut e, 1_000, TaskId::map(1));
    e.ingest(1_000, Event::ContainerNeed { task: TaskId::map(1), delta: 1 });
    assert!(e.decide(5_000).is_empty(), "a task waits for a container: no copies");
    e.ingest(1_000, Event::ContainerNeed { task: TaskId::map(1), delta: -1 });

    assert_eq!(speculated(&e.decide(5_000)), vec![TaskId::map(2)]);
    assert!(e.decide(6_000).is_empty(), "the copy is pending: not again");
    // Hadoop counts the copy's own container request as a container needed: no task waits.
    e.ingest(6_000, Event::ContainerNeed { task: TaskId::map(2), delta: 1 });
    assert_eq!(e.job().containers_wanted_beyond_copies(), 0);
    e.ingest(6_500, Event::ContainerNeed { task: TaskId::map(2), delta: -1 });
    e.ingest(7_000, Event::AttemptStarted { attempt: TaskId::map(2).attempt(1), node: Some("m:1".into()), rack: None });
    assert!(e.decide(8_000).is_empty(), "two attempts run: not again");
    assert!(e.job().attempt(TaskId::map(2).attempt(1)).unwrap().is_copy);

    // The copy is killed behind the engine's back: the task may be copied again.
    e.ingest(9_000, Event::AttemptFinished { attempt: TaskId::map(2).attempt(1), outcome: Outcome::Killed });
    assert_eq!(speculated(&e.decide(10_000)), vec![TaskId::map(2)]);
    e.ingest(11_000, Event::CopyDropped { task: TaskId::map(2) });
    // Once it succeeds nothing more is asked for it.
    succeed(&mut e, 12_000, TaskId::map(2));
    assert!(e.decide(13_000).is_empty());
}

/// Hadoop counts a copy's container request as a container needed; LATE's "no task waits for a
/// slot" must not read it as a waiting task, or LATE makes no further copy until its last one is
/// placed. m2 is copied at 5 s; its copy's container is still wanted at 40 s, when m3 has stalled.
#[test]
fn a_copys_own_container_request_does_not_hold_back_the_next_copy() {
    let mut e = engine(&[("rein.late.min-runtime-ms", "0"), ("rein.cluster.slots", "20")]);
    e.ingest(0, Event::JobCreated { maps: 4, reduces: 0 });
    for i in 0..4 {
        start(&mut e, 0, TaskId::map(i), &format!("n{i}:1"));
    }
    succeed(&mut e, 1_000, TaskId::map(0));
    succeed(&mut e, 1_000, TaskId::map(1));
    progress(&mut e, 4_000, TaskId::map(2), 0.1);
    progress(&mut e, 4_000, TaskId::map(3), 0.5);
    assert_eq!(speculated(&e.decide(5_000)), vec![TaskId::map(2)]);
    e.ingest(5_100, Event::ContainerNeed { task: TaskId::map(2), delta: 1 });
    progress(&mut e, 40_000, TaskId::map(2), 0.9);
    progress(&mut e, 40_000, TaskId::map(3), 0.5);
    assert_eq!(speculated(&e.decide(40_000)), vec![TaskId::map(3)]);
}

#[test]
fn the_none_policy_never_acts() {
    let mut e = Engine::from_pairs([("rein.policy", "none"), ("rein.late.min-runtime-ms", "0")]).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: 2, reduces: 0 });
    start(&mut e, 0, TaskId::map(0), "n:1");
    start(&mut e, 0, TaskId::map(1), "n:1");
    succeed(&mut e, 1_000, TaskId::map(0));
    assert!(e.decide(100_000).is_empty());
}

/// rein's adaptation (`rein.late.reduce-waits-for-maps`): a reduce's shuffle waits on every map,
/// so while a map runs a slow reduce is judged not at all; once the last map has finished it is,
/// after LATE's minimum run time counted from that end.
/// With the key off, LATE as printed judges it at once.
#[test]
fn a_reduce_is_judged_only_once_the_maps_of_its_job_have_finished() {
    let setup = |waits: &str| {
        let mut e = engine(&[("rein.cluster.slots", "20"), ("rein.late.reduce-waits-for-maps", waits)]);
        e.ingest(0, Event::JobCreated { maps: 2, reduces: 2 });
        start(&mut e, 0, TaskId::map(0), "n0:1");
        start(&mut e, 0, TaskId::map(1), "n1:1");
        start(&mut e, 0, TaskId::reduce(0), "n2:1");
        start(&mut e, 0, TaskId::reduce(1), "n3:1");
        progress(&mut e, 10_000, TaskId::map(0), 0.5);
        succeed(&mut e, 20_000, TaskId::map(0));
        progress(&mut e, 70_000, TaskId::map(1), 0.9);
        for (r, p) in [(0, 0.3), (1, 0.05)] {
            let attempt = TaskId::reduce(r).attempt(0);
            e.ingest(70_000, Event::AttemptStatus { attempt, progress: p, phase: Phase::Shuffle });
        }
        e
    };
    let reduces = |actions: &[Action]| speculated(actions).into_iter().filter(|t| *t == TaskId::reduce(1)).count();

    let mut paper = setup("false");
    assert_eq!(reduces(&paper.decide(70_000)), 1, "LATE as printed copies the slow reduce at once");

    let mut e = setup("true");
    assert_eq!(reduces(&e.decide(70_000)), 0, "map 1 still runs: reduce 1 waits on it");
    succeed(&mut e, 71_000, TaskId::map(1));
    assert_eq!(reduces(&e.decide(75_000)), 0, "the last map ended 4 s ago: less than LATE's minimum run time");
    assert_eq!(reduces(&e.decide(131_000)), 1, "the maps are done: reduce 1 is slow on its own account");
}
