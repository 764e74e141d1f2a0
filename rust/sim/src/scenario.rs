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

/// Options the simulator applies on behalf of a policy, for what the engine cannot yet express.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimOptions {
    pub placement: Placement,
    /// Map outputs survive a node's loss (Mantri §6.4's ideal that knows losses in advance).
    pub protect_outputs: bool,
}

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
        PolicySpec { label: name.to_owned(), pairs: vec![("rein.policy".into(), name.into())], options: SimOptions::default() }
    }

    pub fn with(mut self, key: &str, value: &str) -> PolicySpec {
        self.pairs.push((key.into(), value.into()));
        self
    }

    pub fn label(mut self, label: impl Into<String>) -> PolicySpec {
        self.label = label.into();
        self
    }

    pub fn options(mut self, options: SimOptions) -> PolicySpec {
        self.options = options;
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
    pub scheduler: Scheduler,
    /// The paper's claim this scenario checks, for the report.
    pub paper: String,
}
