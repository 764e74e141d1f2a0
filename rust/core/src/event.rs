//! Events in: what the caller (the AM shim, the simulator) tells the engine, each at its own time.

use crate::model::{AttemptId, Phase, TaskId};

/// The greatest node id a caller may give (`Event::NodeNamed`): a cluster has far fewer nodes,
/// and the engine keeps its ids in a list.
pub const MAX_NODE_ID: u32 = (1 << 20) - 1;

/// How an attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Succeeded,
    Failed,
    Killed,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The job exists, with this many tasks of each kind.
    JobCreated { maps: u32, reduces: u32 },
    /// Input bytes of one map (its split size), when known.
    TaskInput { task: TaskId, bytes: u64 },
    /// Output bytes of a map's successful attempt (what its reduces will shuffle), when known.
    TaskOutput { task: TaskId, bytes: u64 },
    /// The task wants `delta` more (or fewer) containers (Hadoop's TASK_CONTAINER_NEED_UPDATE).
    ContainerNeed { task: TaskId, delta: i32 },
    /// An attempt started; repeated reports may add the node once it is known.
    AttemptStarted { attempt: AttemptId, node: Option<String>, rack: Option<String> },
    /// The caller's small id for a node (at most [`MAX_NODE_ID`]), with the node's name and rack:
    /// told once, and again if the rack changes, so that starts can name the node by the id
    /// (`AttemptStartedOn`) instead of by strings. An id told again names the node given last.
    NodeNamed { id: u32, node: String, rack: Option<String> },
    /// `AttemptStarted` with its node given by an id of `NodeNamed`; an id never named leaves the
    /// node unknown, as `AttemptStarted` without one does.
    AttemptStartedOn { attempt: AttemptId, node: u32 },
    /// A progress report. `progress` is Hadoop's score in [0, 1].
    AttemptStatus { attempt: AttemptId, progress: f64, phase: Phase },
    /// An attempt ended. A succeeded attempt reported again as failed or killed reopens its task.
    AttemptFinished { attempt: AttemptId, outcome: Outcome },
    /// Slots the job can use in total and, when known, free right now.
    Capacity { total_slots: u32, free_slots: Option<u32> },
    NodeLost { node: String },
    /// The caller did not carry out a copy the engine asked for (the task was no longer running),
    /// or a veto, whose replacement the engine had booked as a copy.
    CopyDropped { task: TaskId },
    /// The caller did not carry out a restart, veto or move of this attempt (it was no longer
    /// running, or close to its end): the kill does not count against the task's budgets.
    KillDropped { attempt: AttemptId },
}

impl Event {
    /// The task the event is about, when it is about one.
    pub fn task(&self) -> Option<TaskId> {
        match self {
            Event::TaskInput { task, .. } | Event::TaskOutput { task, .. } | Event::ContainerNeed { task, .. } | Event::CopyDropped { task } => Some(*task),
            Event::AttemptStarted { attempt, .. }
            | Event::AttemptStartedOn { attempt, .. }
            | Event::AttemptStatus { attempt, .. }
            | Event::AttemptFinished { attempt, .. }
            | Event::KillDropped { attempt } => Some(attempt.task),
            Event::JobCreated { .. } | Event::NodeNamed { .. } | Event::Capacity { .. } | Event::NodeLost { .. } => None,
        }
    }
}
