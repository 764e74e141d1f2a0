//! Actions out, each with the reason and the numbers that justified it.

use std::fmt;

use crate::model::{AttemptId, TaskId};

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Launch one more copy of a running task, preferably away from `avoid_nodes`.
    Speculate { task: TaskId, avoid_nodes: Vec<String>, prefer_rack: Option<String>, reason: Reason },
    /// Kill an attempt so that Hadoop starts it afresh (Mantri's kill-and-restart).
    Restart { attempt: AttemptId, reason: Reason },
    /// Run `copies` extra copies of a task from the start (Dolly, SCA).
    Clone { task: TaskId, copies: u32, reason: Reason },
    /// Kill a copy that landed on a node it should have avoided.
    Veto { attempt: AttemptId, reason: Reason },
}

impl Action {
    pub fn task(&self) -> TaskId {
        match self {
            Action::Speculate { task, .. } | Action::Clone { task, .. } => *task,
            Action::Restart { attempt, .. } | Action::Veto { attempt, .. } => attempt.task,
        }
    }

    pub fn reason(&self) -> &Reason {
        match self {
            Action::Speculate { reason, .. }
            | Action::Restart { reason, .. }
            | Action::Clone { reason, .. }
            | Action::Veto { reason, .. } => reason,
        }
    }

    /// Extra containers this action asks for.
    pub fn new_copies(&self) -> u32 {
        match self {
            Action::Speculate { .. } => 1,
            Action::Clone { copies, .. } => *copies,
            Action::Restart { .. } | Action::Veto { .. } => 0,
        }
    }
}

/// Why an action was taken, with the numbers behind it.
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    /// LATE §4: the candidate with the longest estimated time left, slow enough and under the cap.
    Late {
        progress: f64,
        /// Progress per second.
        rate: f64,
        /// SlowTaskThreshold: the percentile of progress rates the task fell below.
        slow_task_rate: f64,
        /// Estimated seconds left; infinite when the task has made no progress.
        time_left_s: f64,
        rank: usize,
        candidates: usize,
        speculative_running: u32,
        cap: u32,
        slots: u32,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Late {
                progress,
                rate,
                slow_task_rate,
                time_left_s,
                rank,
                candidates,
                speculative_running,
                cap,
                slots,
            } => write!(
                f,
                "LATE §4: longest estimated time left {:.1} s (progress {:.3} at {:.5}/s, below \
                 SlowTaskThreshold {:.5}/s); rank {} of {} candidates; speculative copies running \
                 {} of cap {} ({} slots)",
                time_left_s, progress, rate, slow_task_rate, rank, candidates, speculative_running, cap,
                slots
            ),
        }
    }
}
