//! The veto loop: slow-node avoidance for every policy's copies.
//!
//! A speculator cannot choose where YARN places a copy: `T_ADD_SPEC_ATTEMPT` only asks for a
//! container, and a speculative map asks for the same split hosts as its original, so the copy of
//! a straggler can land on the very node that made it straggle (MAPREDUCE-7169). What a
//! speculator can do is watch where each copy lands and kill one that landed where it should not
//! have. In Hadoop the kill of an attempt of an unfinished task always schedules a replacement
//! (`TaskImpl`'s attempt-killed transition), so a veto is itself the request for the copy's
//! replacement: the engine books the replacement as the same pending copy, with the same avoid
//! set, and asks for nothing more. The policies' caps thus count the copy once. A caller that
//! does not carry a veto out reports it as a dropped copy.
//!
//! A copy is judged once, when its node becomes known. It is vetoed when that node is one its
//! request named (a policy's slow or lost nodes, the straggler's own node) or the node of another
//! running attempt of its task. Never vetoed: the task's only running attempt (so never a restart
//! nor a retry after a failure), an attempt of a finished task, any attempt of a task already
//! vetoed `rein.veto.max-per-task` times — YARN may place each replacement badly again — and a
//! copy with no other live node to go to (a one-node cluster, or every node avoided), since its
//! replacement could only land where it is. While any task of the job still waits for its first
//! container, a veto waits: Hadoop asks for the replacement at fast-fail priority, without
//! locality, ahead of those tasks.
//!
//! That replacement asks for a container anywhere, and YARN gives it the first node that offers
//! one — on a small cluster often the avoided node again, whose slot the veto has just freed. With
//! `rein.veto.block-node`, a veto of a copy on a node its request avoided also asks the caller to
//! keep the job's later containers off that node (in Hadoop, the job's node blacklist, which the
//! AM keeps for nodes where tasks failed, within its own limit on the share of nodes it ignores).
//! Once per node and job; never for a copy merely beside a sibling on a node nobody avoided.

use std::num::NonZeroU32;
use std::sync::Arc;

use crate::action::{Action, AvoidNodes, Reason, SharedNodes, VetoCause};
use crate::model::{AttemptId, JobState, NodeName, TaskId, TaskKind};

pub(crate) struct VetoLoop {
    max_per_task: u32,
    /// `rein.veto.block-node`, and the nodes blocked so far.
    block_node: bool,
    blocked: Vec<NodeName>,
    /// Each task a copy was asked for: what its pending copies avoid, and its vetoes so far.
    tasks: Copies,
    /// Copies found on a node they should have avoided, in arrival order, for the next decision.
    due: Vec<Due>,
}

struct Copied {
    /// What its pending copies avoid: a shared list, named by its place in `Copies::lists` plus
    /// one, and the straggler's own node.
    shared: Option<NonZeroU32>,
    own: Option<NodeName>,
    vetoes: u32,
}

/// The entry of a task whose copies avoid nothing and that has no veto yet (a clone's).
const PLAIN: Copied = Copied { shared: None, own: None, vetoes: 0 };

/// In `Copies::at`, a task whose entry is [`PLAIN`], kept as this mark rather than in
/// `Copies::entries`: a decision that clones 100K tasks (Dolly, SCA) then writes no entry, 16
/// bytes each, only the mark. It becomes an entry when it changes (`Copies::get_mut`).
const PLAIN_MARK: NonZeroU32 = NonZeroU32::MAX;

/// [`Copied`] per task: a decision that copies 100K tasks, in the order of their rank, appends
/// their entries in that order and notes each one's place by task index (4 bytes a task of the
/// job, made room for at the first decision with actions), rather than writing a slot of 40
/// bytes per task at random.
#[derive(Default)]
struct Copies {
    /// Per kind, by task index: the place of the task's entry in `entries`, plus one; or
    /// [`PLAIN_MARK`].
    at: [Vec<Option<NonZeroU32>>; 2],
    entries: Vec<Copied>,
    /// The shared avoid lists the entries name, each with how many entries name it. The copies of
    /// one decision share one list: an entry names it by place, where holding a reference-counted
    /// pointer of its own would cost an atomic increment per copy. A list no entry names any
    /// longer is let go (its place stays, empty).
    lists: Vec<(Option<SharedNodes>, u32)>,
}

impl Copies {
    fn mark(&self, task: &TaskId) -> Option<NonZeroU32> {
        self.at[task.kind as usize].get(task.index as usize).copied().flatten()
    }

    /// The place of a task's entry in `entries`, if it has one there (not [`PLAIN_MARK`]).
    fn place(&self, task: &TaskId) -> Option<usize> {
        self.mark(task).filter(|&at| at != PLAIN_MARK).map(|at| at.get() as usize - 1)
    }

    fn get(&self, task: &TaskId) -> Option<&Copied> {
        match self.mark(task)? {
            PLAIN_MARK => Some(&PLAIN),
            at => Some(&self.entries[at.get() as usize - 1]),
        }
    }

    /// A task's entry to change: a [`PLAIN_MARK`]ed one is given its place in `entries` first.
    fn get_mut(&mut self, task: &TaskId) -> Option<&mut Copied> {
        let i = match self.mark(task)? {
            PLAIN_MARK => {
                self.insert(*task, PLAIN);
                self.entries.len() - 1
            }
            at => at.get() as usize - 1,
        };
        Some(&mut self.entries[i])
    }

    /// What an entry's pending copies avoid.
    fn avoid(&self, c: &Copied) -> AvoidNodes {
        let shared = c.shared.and_then(|i| self.lists[i.get() as usize - 1].0.clone());
        AvoidNodes::from_parts(shared, c.own)
    }

    /// Names `avoid`'s shared list for one more entry: the latest list when it is the same one,
    /// as it is for every copy of a decision after the first, else a new place.
    fn name_list(&mut self, avoid: &AvoidNodes) -> Option<NonZeroU32> {
        let shared = avoid.shared_list()?;
        match self.lists.last_mut() {
            // The list is held here, so its address cannot have been reused by another.
            Some((Some(last), n)) if Arc::ptr_eq(last, shared) => *n += 1,
            _ => self.lists.push((Some(shared.clone()), 1)),
        }
        NonZeroU32::new(self.lists.len() as u32)
    }

    /// One entry fewer names a list.
    fn let_go(&mut self, list: Option<NonZeroU32>) {
        if let Some(i) = list {
            let (held, n) = &mut self.lists[i.get() as usize - 1];
            *n -= 1;
            if *n == 0 {
                *held = None;
            }
        }
    }

    /// Sets what a task's pending copies avoid, adding its entry if it has none.
    fn set_avoid(&mut self, task: TaskId, avoid: &AvoidNodes) {
        let shared = self.name_list(avoid);
        let own = avoid.own().copied();
        match self.place(&task) {
            Some(i) => {
                let old = std::mem::replace(&mut self.entries[i].shared, shared);
                self.entries[i].own = own;
                self.let_go(old);
            }
            None => self.add(task, shared, own),
        }
    }

    /// Gives a task with no entry in `entries` (none at all, or a plain mark) what its copies
    /// avoid: a task whose copies avoid nothing is marked plain (or stays so).
    fn add(&mut self, task: TaskId, shared: Option<NonZeroU32>, own: Option<NodeName>) {
        if shared.is_none() && own.is_none() {
            self.mark_plain(task);
        } else {
            self.insert(task, Copied { shared, own, vetoes: 0 });
        }
    }

    /// Room in `at` for a task's index (`model::slot`).
    fn at_mut(&mut self, task: TaskId) -> &mut Option<NonZeroU32> {
        crate::model::slot(&mut self.at[task.kind as usize], task.index as usize, None)
    }

    /// Marks a task as having a [`PLAIN`] entry, written nowhere else.
    fn mark_plain(&mut self, task: TaskId) {
        *self.at_mut(task) = Some(PLAIN_MARK);
    }

    /// Adds the entry of a task that has none in `entries` (none at all, or a plain mark).
    fn insert(&mut self, task: TaskId, copied: Copied) {
        self.entries.push(copied);
        let at = NonZeroU32::new(self.entries.len() as u32);
        assert!(at.is_some_and(|at| at != PLAIN_MARK), "veto entries beyond u32");
        *self.at_mut(task) = at;
    }
}

struct Due {
    attempt: AttemptId,
    node: NodeName,
    cause: VetoCause,
}

impl VetoLoop {
    /// `max_per_task` 0 turns the loop off.
    pub(crate) fn new(max_per_task: u32, block_node: bool) -> VetoLoop {
        VetoLoop { max_per_task, block_node, blocked: Vec::new(), tasks: Copies::default(), due: Vec::new() }
    }

    /// Makes room for the copies of a decision's `actions` at once, rather than growing by
    /// doubling as they come (a decision can copy 100K tasks, in rank order, their indices at
    /// random): entries for them all, and a place for every task of the job.
    pub(crate) fn reserve(&mut self, job: &JobState, actions: usize) {
        if self.max_per_task == 0 || actions == 0 {
            return;
        }
        self.tasks.entries.reserve(actions);
        for kind in TaskKind::ALL {
            let at = &mut self.tasks.at[kind as usize];
            let tasks = job.tasks(kind).len();
            if at.len() < tasks {
                // Written whole, not allocated zeroed: a copy's booking reads its task's place
                // before writing it, and a page of zeroed memory read first faults twice (Dolly's
                // 100K clones: 303 faults against 216).
                at.resize(tasks, None);
            }
        }
    }

    /// Remembers what a copy or clone the engine is about to book must avoid (`None` for a clone:
    /// it avoids its task's running attempts, which the judgement adds anyway). Called before the
    /// copies are booked, for a task the job has: a task with no copy pending starts a new avoid
    /// set, one with copies pending adds to it.
    #[inline]
    pub(crate) fn asked_copy(&mut self, job: &JobState, task: TaskId, avoid: Option<&AvoidNodes>) {
        // A clone of a task with neither entry nor mark, its place made (`reserve`; every task of
        // a first scan's 100K clones): marked plain where the booking loop stands, not in a call.
        if let (None, Some(at @ None)) = (avoid, self.tasks.at[task.kind as usize].get_mut(task.index as usize)) {
            if self.max_per_task != 0 {
                *at = Some(PLAIN_MARK);
            }
            return;
        }
        self.asked_copy_judged(job, task, avoid);
    }

    /// [`VetoLoop::asked_copy`] for every other case.
    #[inline(never)]
    fn asked_copy_judged(&mut self, job: &JobState, task: TaskId, avoid: Option<&AvoidNodes>) {
        if self.max_per_task == 0 {
            return;
        }
        // A task with neither entry nor mark (every task of a first scan's 100K copies) has
        // nothing to merge: it is given the copy's avoid set from one look at its mark, without
        // its booking or entry read.
        if self.tasks.mark(&task).is_none() {
            let (shared, own) = avoid.map_or((None, None), |avoid| (self.tasks.name_list(avoid), avoid.own().copied()));
            return self.tasks.add(task, shared, own);
        }
        // A copy that avoids nothing, of a task marked plain: it stays plain, whatever its copies
        // pending (a clone's).
        let avoid = match avoid {
            Some(avoid) if !avoid.is_empty() => avoid,
            _ if self.tasks.place(&task).is_none() => return self.tasks.mark_plain(task),
            _ => &AvoidNodes::default(),
        };
        match self.tasks.get(&task) {
            Some(c) if job.booking(task).copies_pending() > 0 => {
                let merged: AvoidNodes = self.tasks.avoid(c).iter().chain(avoid.iter()).cloned().collect();
                self.tasks.set_avoid(task, &merged);
            }
            _ => self.tasks.set_avoid(task, avoid),
        }
    }

    /// Judges an attempt whose node has just become known: a copy on a node it should have
    /// avoided is vetoed at the next decision.
    pub(crate) fn placed(&mut self, job: &JobState, id: AttemptId) {
        let (Some(a), Some(task), Some(c)) = (job.attempt(id), job.task(id.task), self.tasks.get(&id.task)) else {
            return;
        };
        let Some(node) = a.node.filter(|_| a.is_copy && a.is_running() && !task.succeeded) else { return };
        if c.vetoes >= self.max_per_task {
            return;
        }
        let mut others = job.running_attempts_of(task).filter(|o| o.id != id).peekable();
        if others.peek().is_none() {
            return;
        }
        let name = &job.node(node).name;
        // A replacement can only go where a fresh container may land: with no live node that is
        // neither avoided nor running an attempt of the task (one node, or every node bad), a
        // veto would kill the copy for nothing (SCA's clones on a one-node cluster).
        let siblings: Vec<_> = job.running_attempts_of(task).filter(|o| o.id != id).filter_map(|o| o.node).collect();
        let avoid = self.tasks.avoid(c);
        let elsewhere =
            job.nodes().any(|(i, n)| i != node && !n.lost && !avoid.contains(&n.name) && !siblings.contains(&i));
        if !elsewhere {
            return;
        }
        let cause = if avoid.contains(name) {
            VetoCause::Avoided
        } else if others.any(|o| o.node == Some(node)) {
            VetoCause::BesideSibling
        } else {
            return;
        };
        self.due.push(Due { attempt: id, node: *name, cause });
    }

    /// A veto the caller did not carry out: it does not count against its task's vetoes.
    pub(crate) fn undo(&mut self, task: TaskId) {
        if let Some(c) = self.tasks.get_mut(&task) {
            c.vetoes = c.vetoes.saturating_sub(1);
        }
    }

    /// The vetoes due, each re-checked against the job now, with their replacements booked as
    /// the task's pending copies.
    pub(crate) fn decide(&mut self, job: &mut JobState) -> Vec<Action> {
        let mut actions = Vec::new();
        // On a full cluster the one slot a veto frees is on the bad node itself, and YARN gives
        // the replacement that slot (seen on the embedded cluster: vetoed, replaced on the same
        // node, twice). So while the job is told no slot is free, vetoes wait for room elsewhere.
        let full = job.free_slots == Some(0);
        // Hadoop asks for a veto's replacement at fast-fail priority and without locality, ahead of
        // the job's tasks still waiting for their first container: while any waits, vetoes wait too.
        // Asked only when a veto is due: it walks every task.
        let first_attempts_waiting = self.due.is_empty()
            || job.all_tasks().any(|t| job.booking(t.id).containers_wanted() > 0 && !t.succeeded && job.running_attempts_of(t).next().is_none());
        let mut waiting = Vec::new();
        for d in std::mem::take(&mut self.due) {
            let task = d.attempt.task;
            let Some(t) = job.task(task) else { continue };
            let running = job.attempt(d.attempt).is_some_and(|a| a.is_running() && !a.finishing());
            let sibling = job.running_attempts_of(t).any(|o| o.id != d.attempt);
            let Some(c) = self.tasks.get_mut(&task) else { continue };
            if t.succeeded || !running || !sibling || c.vetoes >= self.max_per_task {
                continue;
            }
            if full || first_attempts_waiting {
                waiting.push(d);
                continue;
            }
            c.vetoes += 1;
            job.add_copies_pending(task, 1);
            let block = self.block_node && d.cause == VetoCause::Avoided && !self.blocked.contains(&d.node);
            if block {
                self.blocked.push(d.node);
            }
            actions.push(Action::Veto {
                attempt: d.attempt,
                reason: Reason::Veto { node: d.node, cause: d.cause, veto: c.vetoes, max: self.max_per_task, block },
            });
        }
        self.due = waiting;
        actions
    }
}

#[cfg(test)]
mod tests {
    use crate::action::{Action, Reason, VetoCause};
    use crate::event::{Event, Outcome};
    use crate::model::{AttemptId, Phase, TaskId};
    use crate::Engine;

    fn start(e: &mut Engine, now: i64, a: AttemptId, node: &str) {
        e.ingest(now, Event::AttemptStarted { attempt: a, node: Some(node.into()), rack: None });
    }

    fn finish(e: &mut Engine, now: i64, a: AttemptId, outcome: Outcome) {
        e.ingest(now, Event::AttemptFinished { attempt: a, outcome });
    }

    fn vetoed(actions: &[Action]) -> Vec<(AttemptId, String, VetoCause, u32)> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Veto { attempt, reason: Reason::Veto { node, cause, veto, .. } } => {
                    Some((*attempt, node.to_string(), *cause, *veto))
                }
                _ => None,
            })
            .collect()
    }

    /// Eight maps on four nodes, two on each; the two on `slow:1` crawl, so LATE (10 slots, a cap
    /// of one copy) copies map 0 at 10 s, naming `slow:1` — the slow node and the straggler's own —
    /// to avoid. Returns the engine and that decision.
    /// LATE as printed: no GRASS test (with one report per attempt there is no rate since first
    /// progress yet) and a cap of SpeculativeCap alone.
    const PAPER_LATE: &[(&str, &str)] = &[("rein.late.grass", "false"), ("rein.late.cap-covers-slow-nodes", "false")];

    fn late_copies_map_0(extra: &[(&str, &str)]) -> (Engine, Vec<Action>) {
        // LATE as printed: a cap of one copy, and no GRASS test (with one report per attempt
        // there is no rate since first progress yet).
        let mut pairs = vec![
            ("rein.policy", "late"),
            ("rein.cluster.slots", "10"),
            ("rein.late.min-runtime-ms", "0"),
            ("rein.late.grass", "false"),
            ("rein.late.cap-covers-slow-nodes", "false"),
        ];
        pairs.extend_from_slice(extra);
        let mut e = Engine::from_pairs(pairs).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 8, reduces: 0 });
        for i in 0..8 {
            let node = ["slow:1", "a:1", "b:1", "c:1"][i as usize / 2];
            start(&mut e, 0, TaskId::map(i).attempt(0), node);
            let progress = if i < 2 { 0.05 } else { 0.5 };
            e.ingest(10_000, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress, phase: Phase::Map });
        }
        let actions = e.decide(10_000);
        (e, actions)
    }

    fn avoid_of(action: &Action) -> Vec<String> {
        let Action::Speculate { avoid_nodes, .. } = action else { panic!("{action:?}") };
        avoid_nodes.iter().map(|n| n.to_string()).collect()
    }

    /// `rein.veto.block-node`: the first veto for the avoided node asks to block it; a later veto
    /// for the same node does not ask again; without the key no veto blocks.
    #[test]
    fn a_veto_for_an_avoided_node_blocks_it_once_when_asked() {
        let blocks = |actions: &[Action]| -> Vec<bool> {
            actions
                .iter()
                .filter_map(|a| match a {
                    Action::Veto { reason: Reason::Veto { block, .. }, .. } => Some(*block),
                    _ => None,
                })
                .collect()
        };
        for (key, first) in [("true", true), ("false", false)] {
            let (mut e, _) = late_copies_map_0(&[("rein.veto.block-node", key)]);
            start(&mut e, 11_000, TaskId::map(0).attempt(1), "slow:1");
            let actions = e.decide(11_000);
            assert_eq!(blocks(&actions), vec![first], "block-node={key}: {actions:?}");
            if first {
                assert!(actions[0].reason().to_string().contains("kept off slow:1"), "{actions:?}");
            }
            finish(&mut e, 11_500, TaskId::map(0).attempt(1), Outcome::Killed);
            start(&mut e, 12_000, TaskId::map(0).attempt(2), "slow:1");
            assert_eq!(blocks(&e.decide(12_000)), vec![false], "block-node={key}: the node is blocked once");
        }
    }

    #[test]
    fn a_copy_near_its_end_is_not_vetoed() {
        let (mut e, _) = late_copies_map_0(&[]);
        let copy = TaskId::map(0).attempt(1);
        start(&mut e, 11_000, copy, "slow:1");
        e.ingest(11_500, Event::AttemptStatus { attempt: copy, progress: 0.95, phase: Phase::Map });
        assert!(vetoed(&e.decide(12_000)).is_empty());
    }

    #[test]
    fn a_veto_the_caller_drops_gives_back_the_veto_and_the_pending_copy() {
        let (mut e, _) = late_copies_map_0(&[("rein.veto.max-per-task", "1")]);
        let copy = TaskId::map(0).attempt(1);
        start(&mut e, 11_000, copy, "slow:1");
        assert_eq!(vetoed(&e.decide(11_000)).len(), 1);
        e.ingest(11_000, Event::KillDropped { attempt: copy });
        assert_eq!(e.job().booking(TaskId::map(0)).copies_pending(), 0);
        // The next copy that lands badly can still be vetoed: the one veto was not used up.
        finish(&mut e, 11_500, copy, Outcome::Killed);
        let e2 = &mut e;
        e2.ingest(12_000, Event::AttemptFinished { attempt: TaskId::map(1).attempt(0), outcome: Outcome::Succeeded });
        let next = e2.decide(40_000);
        assert!(next.iter().any(|a| matches!(a, Action::Speculate { .. }) && a.task() == TaskId::map(0)), "{next:?}");
        start(e2, 41_000, TaskId::map(0).attempt(2), "slow:1");
        assert_eq!(vetoed(&e2.decide(41_000)).len(), 1);
    }

    #[test]
    fn no_veto_where_no_other_node_could_take_the_replacement() {
        let mut pairs = vec![("rein.policy", "late"), ("rein.cluster.slots", "4"), ("rein.late.min-runtime-ms", "0")];
        pairs.extend_from_slice(PAPER_LATE);
        let mut e = Engine::from_pairs(pairs).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 4, reduces: 0 });
        for i in 0..4 {
            start(&mut e, 0, TaskId::map(i).attempt(0), "only:1");
            let progress = if i == 0 { 0.05 } else { 0.5 };
            e.ingest(10_000, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress, phase: Phase::Map });
        }
        let asked = e.decide(10_000);
        assert!(asked.iter().any(|a| a.task() == TaskId::map(0)), "{asked:?}");
        // One node: the copy lands beside its original, and a replacement could only land there too.
        start(&mut e, 11_000, TaskId::map(0).attempt(1), "only:1");
        assert!(vetoed(&e.decide(11_000)).is_empty());
    }

    #[test]
    fn a_veto_waits_while_tasks_wait_for_their_first_container() {
        let mut pairs = vec![("rein.policy", "late"), ("rein.cluster.slots", "10"), ("rein.late.min-runtime-ms", "0")];
        pairs.extend_from_slice(PAPER_LATE);
        let mut e = Engine::from_pairs(pairs).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 9, reduces: 0 });
        for i in 0..8 {
            let node = ["slow:1", "a:1", "b:1", "c:1"][i as usize / 2];
            start(&mut e, 0, TaskId::map(i).attempt(0), node);
            let progress = if i < 2 { 0.05 } else { 0.5 };
            e.ingest(10_000, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress, phase: Phase::Map });
        }
        assert!(e.decide(10_000).iter().any(|a| a.task() == TaskId::map(0)));
        // Map 8 waits for its first container: a veto's replacement would be served before it.
        e.ingest(10_500, Event::ContainerNeed { task: TaskId::map(8), delta: 1 });
        start(&mut e, 11_000, TaskId::map(0).attempt(1), "slow:1");
        assert!(vetoed(&e.decide(11_000)).is_empty());
        e.ingest(12_000, Event::ContainerNeed { task: TaskId::map(8), delta: -1 });
        start(&mut e, 12_000, TaskId::map(8).attempt(0), "a:1");
        assert_eq!(vetoed(&e.decide(12_500)).len(), 1);
    }

    #[test]
    fn map_copies_wait_for_hadoops_map_switch() {
        let (_, actions) = late_copies_map_0(&[("mapreduce.map.speculative", "false")]);
        assert!(actions.is_empty(), "{actions:?}");
        let (_, actions) = late_copies_map_0(&[("mapreduce.reduce.speculative", "false")]);
        assert_eq!(actions.len(), 1, "{actions:?}");
    }

    #[test]
    fn a_late_copy_on_the_slow_node_is_vetoed_and_replaced_once() {
        let (mut e, actions) = late_copies_map_0(&[]);
        assert_eq!(actions.len(), 1, "{actions:?}");
        assert_eq!(actions[0].task(), TaskId::map(0));
        assert_eq!(avoid_of(&actions[0]), vec!["slow:1"]);

        // YARN puts the copy on the slow node: it is vetoed, and its replacement is the same copy.
        let copy = TaskId::map(0).attempt(1);
        start(&mut e, 11_000, copy, "slow:1");
        let actions = e.decide(11_000);
        assert_eq!(vetoed(&actions), vec![(copy, "slow:1".to_owned(), VetoCause::Avoided, 1)]);
        assert_eq!(actions.len(), 1, "the kill is the request for a replacement: nothing more");
        let text = actions[0].reason().to_string();
        assert!(text.contains("avoided node slow:1") && text.contains("veto 1 of 2"), "{text}");
        let t = e.job().booking(TaskId::map(0));
        assert_eq!((t.copies_pending(), t.copies_requested()), (1, 1), "one logical copy, its replacement pending");
        assert!(e.decide(11_500).is_empty(), "a copy is vetoed once");

        // Hadoop kills it and places the replacement on a good node: it stays.
        finish(&mut e, 12_000, copy, Outcome::Killed);
        let replacement = TaskId::map(0).attempt(2);
        start(&mut e, 12_000, replacement, "b:1");
        assert!(e.job().attempt(replacement).unwrap().is_copy);
        assert!(e.decide(13_000).is_empty());
        assert_eq!(e.job().live_copies(e.job().task(TaskId::map(0)).unwrap()), 2);
    }

    #[test]
    fn on_a_full_cluster_a_veto_waits_for_a_free_slot_elsewhere() {
        let (mut e, _) = late_copies_map_0(&[]);
        let copy = TaskId::map(0).attempt(1);
        e.ingest(11_000, Event::Capacity { total_slots: 10, free_slots: Some(0) });
        start(&mut e, 11_000, copy, "slow:1");
        assert!(vetoed(&e.decide(11_000)).is_empty(), "killing it would free the slot it stands on");
        assert!(vetoed(&e.decide(12_000)).is_empty());
        e.ingest(13_000, Event::Capacity { total_slots: 10, free_slots: Some(1) });
        assert_eq!(vetoed(&e.decide(13_000)), vec![(copy, "slow:1".to_owned(), VetoCause::Avoided, 1)]);
    }

    #[test]
    fn a_copy_on_a_good_node_is_not_vetoed() {
        let (mut e, _) = late_copies_map_0(&[]);
        start(&mut e, 11_000, TaskId::map(0).attempt(1), "a:1");
        assert!(vetoed(&e.decide(11_000)).is_empty());
    }

    #[test]
    fn vetoes_per_task_are_bounded() {
        for max in [1, 2, 3] {
            let max_s = max.to_string();
            let (mut e, _) = late_copies_map_0(&[("rein.veto.max-per-task", &max_s)]);
            let mut vetoes = 0;
            for n in 1..=6 {
                let copy = TaskId::map(0).attempt(n);
                let now = 10_000 + n as i64 * 1000;
                start(&mut e, now, copy, "slow:1");
                let actions = e.decide(now);
                assert!(actions.iter().all(|a| matches!(a, Action::Veto { .. })), "{actions:?}");
                if actions.is_empty() {
                    break;
                }
                vetoes += 1;
                finish(&mut e, now, copy, Outcome::Killed);
            }
            assert_eq!(vetoes, max, "at most {max} vetoes");
            assert_eq!(e.job().booking(TaskId::map(0)).copies_requested(), 1);
        }
    }

    #[test]
    fn the_originals_node_is_avoided_when_no_node_is_slow() {
        // SlowNodeThreshold 0: no node is slow, yet the copy avoids the straggler's own node.
        let (mut e, actions) = late_copies_map_0(&[("rein.late.slow-node-threshold", "0")]);
        assert_eq!(avoid_of(&actions[0]), vec!["slow:1"]);
        start(&mut e, 11_000, TaskId::map(0).attempt(1), "slow:1");
        assert_eq!(vetoed(&e.decide(11_000)).len(), 1);

        // The mapreduce baseline names only the task's own node; so does the veto.
        let mut e = Engine::from_pairs([("rein.policy", "mapreduce")]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 10, reduces: 0 });
        for i in 0..10 {
            start(&mut e, 0, TaskId::map(i).attempt(0), if i < 9 { "a:1" } else { "b:1" });
        }
        for i in 0..9 {
            finish(&mut e, 5_000, TaskId::map(i).attempt(0), Outcome::Succeeded);
        }
        let actions = e.decide(6_000);
        assert_eq!(avoid_of(&actions[0]), vec!["b:1"]);
        let copy = TaskId::map(9).attempt(1);
        start(&mut e, 7_000, copy, "b:1");
        assert_eq!(vetoed(&e.decide(7_000)), vec![(copy, "b:1".to_owned(), VetoCause::Avoided, 1)]);
    }

    /// Dolly clones each of five tasks once; a clone beside its original is vetoed, one
    /// elsewhere stays.
    #[test]
    fn a_clone_beside_its_original_is_vetoed() {
        let mut e = Engine::from_pairs([("rein.policy", "dolly"), ("rein.cluster.slots", "20")]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 5, reduces: 0 });
        for i in 0..5 {
            start(&mut e, 0, TaskId::map(i).attempt(0), &format!("n{i}:1"));
        }
        assert_eq!(e.decide(1_000).len(), 5);
        start(&mut e, 2_000, TaskId::map(0).attempt(1), "n0:1");
        start(&mut e, 2_000, TaskId::map(1).attempt(1), "n9:1");
        let v = vetoed(&e.decide(2_000));
        assert_eq!(v, vec![(TaskId::map(0).attempt(1), "n0:1".to_owned(), VetoCause::BesideSibling, 1)]);
        // A clone's entry, kept as a plain mark until its first veto, counts on from there: the
        // replacement beside the original again is veto 2 of 2, and a third is let be.
        finish(&mut e, 2_500, TaskId::map(0).attempt(1), Outcome::Killed);
        start(&mut e, 3_000, TaskId::map(0).attempt(2), "n0:1");
        let v = vetoed(&e.decide(3_000));
        assert_eq!(v, vec![(TaskId::map(0).attempt(2), "n0:1".to_owned(), VetoCause::BesideSibling, 2)]);
        finish(&mut e, 3_500, TaskId::map(0).attempt(2), Outcome::Killed);
        start(&mut e, 4_000, TaskId::map(0).attempt(3), "n0:1");
        assert!(vetoed(&e.decide(4_000)).is_empty());
    }

    #[test]
    fn never_the_only_running_attempt_nor_one_of_a_finished_task() {
        // The original ends before the copy starts: the copy is all the task has.
        let (mut e, _) = late_copies_map_0(&[]);
        finish(&mut e, 10_500, TaskId::map(0).attempt(0), Outcome::Failed);
        start(&mut e, 11_000, TaskId::map(0).attempt(1), "slow:1");
        assert!(vetoed(&e.decide(11_000)).is_empty());

        // The original ends after the copy started, before the decision: the veto is dropped.
        let (mut e, _) = late_copies_map_0(&[]);
        start(&mut e, 11_000, TaskId::map(0).attempt(1), "slow:1");
        finish(&mut e, 11_500, TaskId::map(0).attempt(0), Outcome::Killed);
        assert!(vetoed(&e.decide(12_000)).is_empty());

        // The task finishes before the decision.
        let (mut e, _) = late_copies_map_0(&[]);
        start(&mut e, 11_000, TaskId::map(0).attempt(1), "slow:1");
        finish(&mut e, 11_500, TaskId::map(0).attempt(0), Outcome::Succeeded);
        assert!(vetoed(&e.decide(12_000)).is_empty());

        // A restart's new attempt is Hadoop's own, not a copy.
        let (mut e, _) = late_copies_map_0(&[]);
        e.ingest(10_500, Event::CopyDropped { task: TaskId::map(0) });
        finish(&mut e, 11_000, TaskId::map(0).attempt(0), Outcome::Killed);
        start(&mut e, 11_000, TaskId::map(0).attempt(1), "slow:1");
        assert!(!e.job().attempt(TaskId::map(0).attempt(1)).unwrap().is_copy);
        assert!(vetoed(&e.decide(11_000)).is_empty());
    }

    #[test]
    fn a_veto_the_caller_drops_gives_its_replacement_back() {
        let (mut e, _) = late_copies_map_0(&[]);
        start(&mut e, 11_000, TaskId::map(0).attempt(1), "slow:1");
        assert_eq!(vetoed(&e.decide(11_000)).len(), 1);
        e.ingest(11_000, Event::CopyDropped { task: TaskId::map(0) });
        assert_eq!(e.job().booking(TaskId::map(0)).copies_pending(), 0);
    }

    #[test]
    fn zero_turns_vetoes_off_and_the_hadoop_model_never_vetoes() {
        let (mut e, _) = late_copies_map_0(&[("rein.veto.max-per-task", "0")]);
        start(&mut e, 11_000, TaskId::map(0).attempt(1), "slow:1");
        assert!(e.decide(11_000).is_empty());

        let mut e = Engine::from_pairs([("rein.policy", "hadoop")]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 20, reduces: 0 });
        for i in 0..20 {
            start(&mut e, 0, TaskId::map(i).attempt(0), "n:1");
        }
        for i in 0..19 {
            finish(&mut e, 10_000, TaskId::map(i).attempt(0), Outcome::Succeeded);
        }
        e.ingest(10_000, Event::AttemptStatus { attempt: TaskId::map(19).attempt(0), progress: 0.1, phase: Phase::Map });
        assert_eq!(e.decide(10_000).len(), 1);
        start(&mut e, 11_000, TaskId::map(19).attempt(1), "n:1");
        assert!(e.decide(30_000).is_empty());
    }
}
