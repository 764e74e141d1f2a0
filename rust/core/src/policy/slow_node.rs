//! Reduces on a node the job has already named slow: copied at once (rein's adaptation,
//! `rein.slow-node.copy-reduces`; used by `auto` and by the detecting partner of Dolly and SCA).
//!
//! A reduce is judged like any task only once its job's maps are done and a sibling reduce has
//! finished: before that its shuffle waits on the maps, and there is no t_new to weigh it
//! against. That is right for a reduce on a healthy node, and costly for one on a node the job
//! has just copied a straggler off. In the small-jobs bench (one node at a quarter of its CPU)
//! such a reduce started there a second after the map straggler's copy was asked for, waited for
//! its sibling to finish, and was copied 8–12 s into a 36-s job. Its copy would have waited on
//! the same maps, but reduced on a healthy node.
//!
//! The naming is the job's own evidence. A node is named slow while an attempt there that the
//! policy copied as a straggler, silent (no progress at all) when copied, has not succeeded (if
//! the original wins after all, its node is cleared), and no attempt of the job has succeeded
//! there. Copies are made only in the job's last wave (GRASS §4: every task has started, so a
//! free slot would otherwise idle), into free slots, and while the reduce phase is lightly
//! loaded (Xu & Lau §III-B, auto's regime: ω below ω^U, where an extra copy lowers the delay;
//! above it a copy's slot is worth more to the phase's other tasks). Only a reduce with one
//! attempt and no copy asked for yet is copied, once, avoiding every named node; any later copy
//! is detection's. Each guard answers a measured loss (README, "auto"): the simulator's
//! heterogeneous LATE clusters for the last wave, the light load and the finished-nothing test;
//! the skew bench's 12-MB map for the silent one.

use crate::action::{Action, AvoidNodes, Reason};
use crate::model::{AttemptId, AttemptState, JobState, NodeIdx, TaskId, TaskKind};
use crate::policy::shared_avoid_list;

fn succeeded(job: &JobState, attempt: AttemptId) -> bool {
    job.attempt(attempt).is_some_and(|a| a.state == AttemptState::Succeeded)
}

#[derive(Default)]
pub(crate) struct SlowNodeReduces {
    /// Per node (by index), the straggler's attempt that names it: the first one copied there
    /// that has not succeeded.
    by_node: Vec<Option<AttemptId>>,
}

impl SlowNodeReduces {
    /// One decision's part: notes the stragglers among `detected` (detection's actions), then
    /// copies the reduces on named nodes into the `free` slots they left, leaving out every task
    /// `earlier` (the clones made before detection) or `detected` acts on. `light` says whether
    /// the reduce phase is lightly loaded, asked only when a node is named; `wrap` dresses each
    /// reason (auto adds its regime).
    pub(crate) fn after_detection(
        &mut self,
        job: &JobState,
        earlier: &[Action],
        detected: &[Action],
        free: u32,
        light: impl FnOnce() -> bool,
        wrap: impl Fn(Reason) -> Reason,
    ) -> Vec<Action> {
        self.note(job, detected);
        let max = free.saturating_sub(detected.len() as u32) as usize;
        // Read only for a reduce the rule would copy, so a long list is scanned rarely.
        let taken = |t: TaskId| earlier.iter().chain(detected).any(|a| a.task() == t);
        self.copies(job, max, light, taken, wrap)
    }

    /// Records the running attempts behind every detection copy in `actions` (a `Speculate`)
    /// that have shown no progress at all: silent while their siblings finished, the clearest
    /// sign of a sick node. One that progresses may only be long for its data (in the skew
    /// bench a 12-MB map beside 3-MB ones, copied by auto at progress 0.67, named its healthy
    /// node and cost a needless reduce copy). Only a job with reduces left needs the record;
    /// one without (most big map-only scans) pays nothing.
    fn note(&mut self, job: &JobState, actions: &[Action]) {
        if actions.is_empty() || job.tasks(TaskKind::Reduce).iter().all(|t| t.succeeded) {
            return;
        }
        for action in actions {
            let Action::Speculate { task, .. } = action else { continue };
            let Some(task) = job.task(*task) else { continue };
            for attempt in job.running_attempts_of(task).filter(|a| a.first_progress_at().is_none()) {
                let Some(node) = attempt.node else { continue };
                if self.by_node.len() <= node.0 as usize {
                    self.by_node.resize(node.0 as usize + 1, None);
                }
                let slot = &mut self.by_node[node.0 as usize];
                if slot.is_none_or(|held| succeeded(job, held)) {
                    *slot = Some(attempt.id);
                }
            }
        }
    }

    /// The nodes named slow now, each with the straggler that named it: its attempt there has not
    /// succeeded, and no attempt of the job has succeeded on the node: a node that finishes work,
    /// if slowly, is left to detection, which can weigh its reduces against their siblings.
    fn named(&self, job: &JobState) -> Vec<(NodeIdx, TaskId)> {
        self.by_node
            .iter()
            .enumerate()
            .map(|(i, held)| (NodeIdx(i as u32), held))
            .filter(|(node, _)| job.succeeded_on_node(*node) == 0)
            .filter_map(|(node, held)| held.filter(|a| !succeeded(job, *a)).map(|a| (node, a.task)))
            .collect()
    }

    /// A copy for every reduce whose only attempt runs on a named node and that has had no copy
    /// asked for, once every task of the job has started and while the reduce phase is lightly
    /// loaded (`light`, asked only when a node is named), at most `max` of them. Tasks `skip`
    /// names are left out (it is asked only of eligible reduces, so it may search this
    /// decision's other actions). The copies avoid every named node and the lost ones. `wrap`
    /// dresses each reason (auto adds its regime).
    fn copies(
        &self,
        job: &JobState,
        max: usize,
        light: impl FnOnce() -> bool,
        skip: impl Fn(TaskId) -> bool,
        wrap: impl Fn(Reason) -> Reason,
    ) -> Vec<Action> {
        // GRASS §4's last wave: every task has started, so a free slot would otherwise idle. Before
        // it a reduce copy, waiting on the maps like its original, would hold a slot a waiting task
        // could use (in the simulator's LATE scenarios, heterogeneous clusters with many slow
        // nodes and many waves, copying then made auto's jobs up to 40% longer).
        let all_started = TaskKind::ALL.iter().all(|&k| job.started_task_count(k) as usize >= job.tasks(k).len());
        if max == 0 || !all_started {
            return Vec::new();
        }
        let named = self.named(job);
        if named.is_empty() || !light() {
            return Vec::new();
        }
        let avoid = shared_avoid_list(job, named.iter().map(|(n, _)| *n));
        let mut actions = Vec::new();
        for task in job.tasks(TaskKind::Reduce) {
            if actions.len() >= max {
                break;
            }
            if task.succeeded || job.booking(task.id).copies_requested() > 0 {
                continue;
            }
            let mut running = job.running_attempts_of(task);
            let (Some(attempt), None) = (running.next(), running.next()) else { continue };
            let Some(&(node, straggler)) = attempt.node.and_then(|n| named.iter().find(|(m, _)| *m == n)) else {
                continue;
            };
            if skip(task.id) {
                continue;
            }
            let name = job.node(node).name;
            actions.push(Action::Speculate {
                task: task.id,
                avoid_nodes: AvoidNodes::new(&avoid, Some(name)),
                prefer_rack: None,
                reason: wrap(Reason::SlowNode { node: name, straggler }),
            });
        }
        actions
    }
}

#[cfg(test)]
mod tests {
    use crate::action::{Action, Reason};
    use crate::event::{Event, Outcome};
    use crate::model::{Phase, TaskId};
    use crate::Engine;

    /// Four maps on four nodes, three done at 5 s and the fourth (on n3) silent; the detecting
    /// policy copies it; then two reduces start, one on n3. Returns the first decision's tasks
    /// and the actions of the decision after the reduces started.
    fn small_job(pairs: &[(&str, &str)]) -> (Vec<TaskId>, Vec<Action>) {
        let mut e = Engine::from_pairs(pairs.iter().copied()).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 4, reduces: 2 });
        for i in 0..4 {
            e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{i}:1")), rack: None });
        }
        // Four maps on eight slots, none free (the AM and another job hold them): too busy for
        // Dolly's clones (ceiling 0.3), and SCA's P2 gives one copy a task.
        e.ingest(0, Event::Capacity { total_slots: 8, free_slots: Some(0) });
        let at_start = e.decide(0);
        assert!(at_start.is_empty(), "{at_start:?}");
        for t in [1_000, 2_000, 3_000, 4_000] {
            for i in 0..3 {
                let p = t as f64 / 5_000.0;
                e.ingest(t, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress: p, phase: Phase::Map });
            }
        }
        for i in 0..3 {
            e.ingest(5_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
        }
        e.ingest(5_000, Event::Capacity { total_slots: 8, free_slots: Some(3) });
        let first = e.decide(12_000).iter().map(Action::task).collect();
        e.ingest(12_500, Event::AttemptStarted { attempt: TaskId::map(3).attempt(1), node: Some("n0:1".into()), rack: None });
        e.ingest(13_000, Event::AttemptStarted { attempt: TaskId::reduce(0).attempt(0), node: Some("n3:1".into()), rack: None });
        e.ingest(13_000, Event::AttemptStarted { attempt: TaskId::reduce(1).attempt(0), node: Some("n1:1".into()), rack: None });
        e.ingest(13_000, Event::Capacity { total_slots: 8, free_slots: Some(2) });
        (first, e.decide(14_000))
    }

    /// Dolly's and SCA's detecting partners (LATE, ESE) name the node too: the reduce there is
    /// copied at once, with the reason unwrapped (the reduce phase is light: ω = 4/8 below 0.75);
    /// with the key off, or heavy load, it waits.
    #[test]
    fn the_cloning_policies_partners_copy_a_reduce_on_a_named_node() {
        for (policy, partner) in [("dolly", ("rein.dolly.reactive", "late")), ("sca", ("rein.sca.reactive", "ese"))] {
            let base = [
                ("rein.policy", policy),
                ("rein.cluster.slots", "8"),
                ("rein.dolly.utilization-ceiling", "0.3"),
                partner,
                ("rein.late.min-runtime-ms", "0"),
                ("rein.ese.expected-task-ms", "5000"),
            ];
            let (first, actions) = small_job(&base);
            assert_eq!(first, vec![TaskId::map(3)], "{policy}: the partner copies the silent map");
            assert_eq!(actions.iter().map(Action::task).collect::<Vec<_>>(), vec![TaskId::reduce(0)], "{policy}: {actions:?}");
            let Action::Speculate { avoid_nodes, reason: Reason::SlowNode { node, straggler }, .. } = &actions[0] else {
                panic!("{policy}: {actions:?}")
            };
            assert!(avoid_nodes.contains("n3:1") && node.as_str() == "n3:1" && *straggler == TaskId::map(3), "{actions:?}");
            let off = [&base[..], &[("rein.slow-node.copy-reduces", "false")]].concat();
            assert!(small_job(&off).1.is_empty(), "{policy} with the key off");
            let heavy = [&base[..], &[("rein.auto.cutoff", "0.4")]].concat();
            assert!(small_job(&heavy).1.is_empty(), "{policy} under heavy load");
        }
    }
}
