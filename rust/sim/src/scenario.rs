//! What one simulation run is made of: a cluster, a list of jobs, the attempt model, and the
//! policies to compare (each a label, the engine's `rein.*` pairs, and simulator-side options).

use rein_core::Millis;

use crate::cluster::Cluster;
use crate::workload::{AttemptModel, JobSpec};

/// Where the simulator puts an attempt when it has a choice of free slots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Placement {
    /// A random free slot (YARN's first free slot, with no preference among equals).
    #[default]
    FirstFree,
    /// Reduces go to the rack with the fewest shuffles under way (Mantri §5.2). The engine has no
    /// placement action, so this is the simulator acting for the policy; see `mantri-placement`.
    NetworkAware,
}

/// Who gets a freed slot first: a waiting first attempt or a policy's copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CopyQueue {
    /// Copies wait behind every waiting first attempt: Hadoop gives free slots to
    /// non-speculative tasks first (LATE §2.1), and LATE copies only when no task waits.
    #[default]
    BehindFirst,
    /// Copies take the next free slot: ESE's Algorithm 2 serves the backup set D before the
    /// unscheduled tasks of each time slot, and Mantri's Pseudocode 1 runs when a slot frees and
    /// gives that slot to the duplicate it decides on (§5.1).
    AheadOfFirst,
}

/// Options the simulator applies on behalf of a policy, for what the engine cannot yet express.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimOptions {
    pub placement: Placement,
    /// Map outputs survive a node's loss (Mantri §6.4's ideal that knows losses in advance).
    pub protect_outputs: bool,
    pub copy_queue: CopyQueue,
    /// Mantri §5.4: a job's waiting tasks start largest input first (Pseudocode 1, line 6). The
    /// AM's allocator owns that order in Hadoop; the simulator orders its queue for the policy.
    pub largest_first: bool,
    /// Mantri §5.3: replicate a map's output to another machine of its rack when the cost to
    /// recompute (loss probability × t_redo) exceeds the cost to replicate (t_rep), within a
    /// token budget of 10% of the job's data; and pre-compute: the first output found lost on a
    /// machine marks it failing, and every job's outputs there are recomputed at once.
    pub recompute_aware: bool,
    /// Hadoop's native speculation as LATE §2.1 describes it (Hadoop 0.18–0.20, 2008–2010: the
    /// "native" baseline of LATE §5 and the "Hadoop" of Mantri §6.2): when a slot is free and no
    /// task waits, the first task (in job, then task order) that has run at least a minute, has no
    /// other copy, and whose progress score is 0.2 or more below its category's average (finished
    /// tasks at 1, unstarted at 0) gets a copy on that slot, away from its node. No cap. The
    /// JobTracker chose these copies, so the simulator does (the engine runs `none`).
    pub native_2008: bool,
    /// Mantri Pseudocode 1, line 3: every Δ, a copy that has run for Δ and whose estimated end is
    /// later than the second fastest copy's is killed. Mantri's job manager kills it for good;
    /// in Hadoop the kill would bring a replacement, so the engine cannot ask for it.
    pub prune_copies: bool,
}

impl SimOptions {
    /// The queue discipline each policy's paper specifies.
    pub fn for_policy(name: &str) -> SimOptions {
        let copy_queue = match name {
            "ese" | "mantri" => CopyQueue::AheadOfFirst,
            _ => CopyQueue::BehindFirst,
        };
        let mantri = name == "mantri";
        SimOptions {
            copy_queue,
            largest_first: mantri,
            recompute_aware: mantri,
            prune_copies: mantri,
            native_2008: name == NATIVE_2008,
            ..SimOptions::default()
        }
    }
}

/// The label of [`SimOptions::native_2008`], the one policy the simulator runs without the engine.
pub const NATIVE_2008: &str = "native-2008";

#[derive(Clone, Debug, PartialEq)]
pub struct PolicySpec {
    /// The name in reports: a policy name, or one with a sweep value, e.g. `late cap=0.2`.
    pub label: String,
    /// The engine's configuration; must include `rein.policy`.
    pub pairs: Vec<(String, String)>,
    pub options: SimOptions,
}

impl PolicySpec {
    /// A policy with its paper defaults.
    pub fn named(name: &str) -> PolicySpec {
        let engine = if name == NATIVE_2008 { "none" } else { name };
        PolicySpec { label: name.to_owned(), pairs: vec![("rein.policy".into(), engine.into())], options: SimOptions::for_policy(name) }
    }

    pub fn with(mut self, key: &str, value: &str) -> PolicySpec {
        self.pairs.push((key.into(), value.into()));
        self
    }

    pub fn label(mut self, label: impl Into<String>) -> PolicySpec {
        self.label = label.into();
        self
    }

    /// Replaces the placement and output protection, keeping what the policy's paper specifies
    /// (queue discipline, task order, replication and pre-computation).
    pub fn options(mut self, options: SimOptions) -> PolicySpec {
        let own = &self.options;
        self.options = SimOptions {
            copy_queue: own.copy_queue,
            largest_first: own.largest_first,
            recompute_aware: own.recompute_aware,
            prune_copies: own.prune_copies,
            native_2008: own.native_2008,
            ..options
        };
        self
    }

    pub fn copy_queue(mut self, queue: CopyQueue) -> PolicySpec {
        self.options.copy_queue = queue;
        self
    }
}

/// A fluid-ish network: each rack has an uplink shared equally by the reduces shuffling on it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetModel {
    /// Rack uplink bandwidth in bytes per ms.
    pub rack_bytes_per_ms: f64,
}

/// The order in which waiting first attempts get slots, across jobs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheduler {
    /// By job arrival (Hadoop's default FIFO).
    #[default]
    Fifo,
    /// Smallest job workload (tasks × mean nominal task time) first: SCA §IV-B and ESE §V-A order
    /// jobs by remaining workload; rein uses the workload at arrival (SJF, not preemptive SRPT).
    SmallestFirst,
}

#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub cluster: Cluster,
    pub jobs: Vec<JobSpec>,
    pub model: AttemptModel,
    pub policies: Vec<PolicySpec>,
    /// Δ: progress reports at most this far apart (Mantri §5: 10 s, or ten per task life if shorter).
    pub report_ms: Millis,
    pub net: Option<NetModel>,
    /// The share of a reduce's work spent in its copy (shuffle) phase, which counts for a third
    /// of its progress score (LATE §2.1); the sort and reduce phases share the rest equally. A
    /// third makes the score linear in the work done. LATE §3.2 (assumption 4): in a typical job
    /// the copy phase is the slowest, so the score understates a copying reduce's progress.
    pub copy_phase: f64,
    pub scheduler: Scheduler,
    /// The paper's claim this scenario checks, for the report.
    pub paper: String,
}

impl Scenario {
    /// The same scenario with every runtime outlier ironed out: no outlier slowdowns and no
    /// contention windows (persistent node speeds stay). The "ideal" of Dolly §2.3 and Mantri §2.3.
    pub fn without_outliers(mut self) -> Scenario {
        self.model.outlier = None;
        for n in &mut self.cluster.nodes {
            n.windows.clear();
        }
        self.name = format!("{}-no-outliers", self.name);
        self
    }
}
