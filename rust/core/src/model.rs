//! What the engine knows about one job: its tasks, their attempts and the nodes they ran on.
//!
//! The state is fed only by [`crate::event::Event`]s; policies read it and never change it.
//! Everything a policy could not see in a real ApplicationMaster (true task sizes, node speeds)
//! is deliberately absent.

use std::collections::HashMap;
use std::fmt;

/// Milliseconds on the caller's clock. The engine never reads a wall clock.
pub type Millis = i64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TaskKind {
    Map,
    Reduce,
}

impl TaskKind {
    pub const ALL: [TaskKind; 2] = [TaskKind::Map, TaskKind::Reduce];

    pub fn letter(self) -> char {
        match self {
            TaskKind::Map => 'm',
            TaskKind::Reduce => 'r',
        }
    }

    pub fn from_letter(c: char) -> Option<TaskKind> {
        match c {
            'm' => Some(TaskKind::Map),
            'r' => Some(TaskKind::Reduce),
            _ => None,
        }
    }
}

/// A task within the job, e.g. map 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId {
    pub kind: TaskKind,
    pub index: u32,
}

impl TaskId {
    pub fn map(index: u32) -> TaskId {
        TaskId { kind: TaskKind::Map, index }
    }
    pub fn reduce(index: u32) -> TaskId {
        TaskId { kind: TaskKind::Reduce, index }
    }
    pub fn attempt(self, n: u32) -> AttemptId {
        AttemptId { task: self, n }
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:06}", self.kind.letter(), self.index)
    }
}

/// Attempt `n` of a task (Hadoop numbers attempts from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AttemptId {
    pub task: TaskId,
    pub n: u32,
}

impl fmt::Display for AttemptId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.task, self.n)
    }
}

/// Index into [`JobState::nodes`]; node names (`host:port`) are interned once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeIdx(pub u32);

/// The phase an attempt last reported (Hadoop's `Phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Starting,
    Map,
    Shuffle,
    Sort,
    Reduce,
    Cleanup,
}

impl Phase {
    pub fn parse(s: &str) -> Option<Phase> {
        Some(match s {
            "STARTING" => Phase::Starting,
            "MAP" => Phase::Map,
            "SHUFFLE" => Phase::Shuffle,
            "SORT" => Phase::Sort,
            "REDUCE" => Phase::Reduce,
            "CLEANUP" => Phase::Cleanup,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptState {
    Running,
    Succeeded,
    Failed,
    Killed,
}

#[derive(Clone, Debug)]
pub struct Attempt {
    pub id: AttemptId,
    pub node: Option<NodeIdx>,
    pub start: Millis,
    pub state: AttemptState,
    pub progress: f64,
    pub phase: Phase,
    /// When the last progress report arrived.
    pub reported_at: Millis,
    pub finish: Option<Millis>,
    /// The engine asked for this attempt (a speculative copy), as opposed to Hadoop's first attempt.
    pub is_copy: bool,
}

impl Attempt {
    pub fn is_running(&self) -> bool {
        self.state == AttemptState::Running
    }

    /// Time the attempt has been running at `now` (never negative, even if the clock stepped back).
    pub fn elapsed(&self, now: Millis) -> Millis {
        (self.finish.unwrap_or(now) - self.start).max(0)
    }
}

#[derive(Clone, Debug)]
pub struct Task {
    pub id: TaskId,
    /// Attempt numbers seen for this task, in arrival order.
    pub attempts: Vec<u32>,
    pub succeeded: bool,
    /// Input bytes (maps), when the caller knows them.
    pub input_bytes: Option<u64>,
    /// Containers this task is waiting for (Hadoop's TASK_CONTAINER_NEED_UPDATE sum).
    pub containers_wanted: i32,
    /// Copies the engine asked for that have not shown up as attempts yet.
    pub copies_pending: u32,
    /// Copies the engine asked for over the task's life.
    pub copies_requested: u32,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub rack: Option<String>,
    pub lost: bool,
}

/// Everything the engine has been told about one job.
#[derive(Clone, Debug, Default)]
pub struct JobState {
    maps: Vec<Task>,
    reduces: Vec<Task>,
    attempts: HashMap<AttemptId, Attempt>,
    nodes: Vec<Node>,
    node_index: HashMap<String, NodeIdx>,
    /// Slots the cluster gives this job, when the caller reports it.
    pub reported_slots: Option<u32>,
    /// Free slots at the last capacity report, when known.
    pub free_slots: Option<u32>,
    /// The most attempts ever seen running at once: the job's observed footprint.
    pub peak_running: u32,
    running: u32,
}

impl JobState {
    pub fn tasks(&self, kind: TaskKind) -> &[Task] {
        match kind {
            TaskKind::Map => &self.maps,
            TaskKind::Reduce => &self.reduces,
        }
    }

    pub fn all_tasks(&self) -> impl Iterator<Item = &Task> {
        self.maps.iter().chain(self.reduces.iter())
    }

    pub fn task(&self, id: TaskId) -> Option<&Task> {
        self.tasks(id.kind).get(id.index as usize)
    }

    /// The task, created (with any missing lower-numbered siblings) if the job did not announce it.
    pub fn task_mut(&mut self, id: TaskId) -> &mut Task {
        let list = match id.kind {
            TaskKind::Map => &mut self.maps,
            TaskKind::Reduce => &mut self.reduces,
        };
        while list.len() <= id.index as usize {
            let index = list.len() as u32;
            list.push(Task {
                id: TaskId { kind: id.kind, index },
                attempts: Vec::new(),
                succeeded: false,
                input_bytes: None,
                containers_wanted: 0,
                copies_pending: 0,
                copies_requested: 0,
            });
        }
        &mut list[id.index as usize]
    }

    pub fn ensure_tasks(&mut self, kind: TaskKind, count: u32) {
        if count > 0 {
            self.task_mut(TaskId { kind, index: count - 1 });
        }
    }

    pub fn attempt(&self, id: AttemptId) -> Option<&Attempt> {
        self.attempts.get(&id)
    }

    pub(crate) fn attempt_mut(&mut self, id: AttemptId) -> Option<&mut Attempt> {
        self.attempts.get_mut(&id)
    }

    pub fn attempts_of<'a>(&'a self, task: &'a Task) -> impl Iterator<Item = &'a Attempt> + 'a {
        task.attempts
            .iter()
            .filter_map(move |&n| self.attempts.get(&task.id.attempt(n)))
    }

    pub fn running_attempts_of<'a>(&'a self, task: &'a Task) -> impl Iterator<Item = &'a Attempt> + 'a {
        self.attempts_of(task).filter(|a| a.is_running())
    }

    /// Running attempts plus copies asked for but not started: what the task occupies or will.
    pub fn live_copies(&self, task: &Task) -> u32 {
        self.running_attempts_of(task).count() as u32 + task.copies_pending
    }

    pub fn node(&self, idx: NodeIdx) -> &Node {
        &self.nodes[idx.0 as usize]
    }

    pub fn nodes(&self) -> impl Iterator<Item = (NodeIdx, &Node)> {
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (NodeIdx(i as u32), n))
    }

    pub fn node_named(&self, name: &str) -> Option<NodeIdx> {
        self.node_index.get(name).copied()
    }

    pub(crate) fn intern_node(&mut self, name: &str, rack: Option<&str>) -> NodeIdx {
        let idx = match self.node_index.get(name) {
            Some(&idx) => idx,
            None => {
                let idx = NodeIdx(self.nodes.len() as u32);
                self.nodes.push(Node { name: name.to_owned(), rack: None, lost: false });
                self.node_index.insert(name.to_owned(), idx);
                idx
            }
        };
        if let Some(rack) = rack {
            self.nodes[idx.0 as usize].rack = Some(rack.to_owned());
        }
        idx
    }

    pub(crate) fn mark_node_lost(&mut self, idx: NodeIdx) {
        self.nodes[idx.0 as usize].lost = true;
    }

    /// Records a new attempt, or fills in what a repeated start report adds (its node).
    pub(crate) fn start_attempt(&mut self, id: AttemptId, now: Millis, node: Option<NodeIdx>) {
        if let Some(a) = self.attempts.get_mut(&id) {
            if a.node.is_none() {
                a.node = node;
            }
            return;
        }
        let task = self.task_mut(id.task);
        // Only attempts the engine asked for are copies; a retry after a failure is Hadoop's own.
        let is_copy = task.copies_pending > 0;
        task.copies_pending = task.copies_pending.saturating_sub(1);
        task.attempts.push(id.n);
        self.attempts.insert(
            id,
            Attempt {
                id,
                node,
                start: now,
                state: AttemptState::Running,
                progress: 0.0,
                phase: Phase::Starting,
                reported_at: now,
                finish: None,
                is_copy,
            },
        );
        self.running += 1;
        self.peak_running = self.peak_running.max(self.running);
    }

    /// Moves an attempt to a terminal state; repeated reports are ignored.
    pub(crate) fn finish_attempt(&mut self, id: AttemptId, now: Millis, state: AttemptState) {
        let Some(a) = self.attempts.get_mut(&id) else { return };
        if !a.is_running() {
            return;
        }
        a.state = state;
        a.finish = Some(now.max(a.start));
        if state == AttemptState::Succeeded {
            a.progress = 1.0;
        }
        self.running -= 1;
        if state == AttemptState::Succeeded {
            self.task_mut(id.task).succeeded = true;
        }
    }

    /// Attempts running now, across the job.
    pub fn running(&self) -> u32 {
        self.running
    }

    /// Containers the job's tasks are waiting for.
    pub fn containers_wanted(&self) -> i32 {
        self.all_tasks().map(|t| t.containers_wanted.max(0)).sum()
    }

    /// Slots the job may use: what the caller reported, else the job's observed peak footprint.
    pub fn slots(&self) -> u32 {
        self.reported_slots.unwrap_or(self.peak_running).max(1)
    }
}
