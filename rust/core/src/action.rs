//! Actions out, each with the reason and the numbers that justified it.

use std::fmt;
use std::sync::Arc;

use crate::json::Obj;
use crate::model::{AttemptId, NodeName, TaskId, TaskKind};
use crate::policy::GrassRule;

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Launch one more copy of a running task, preferably away from `avoid_nodes`.
    /// `prefer_rack` is a rack's name, interned as node names are (one word).
    Speculate { task: TaskId, avoid_nodes: AvoidNodes, prefer_rack: Option<NodeName>, reason: Reason },
    /// Kill an attempt so that Hadoop starts it afresh (Mantri's kill-and-restart).
    Restart { attempt: AttemptId, reason: Reason },
    /// Run `copies` extra copies of a task from the start (Dolly, SCA).
    Clone { task: TaskId, copies: u32, reason: Reason },
    /// Kill a copy that landed on a node it should have avoided. Hadoop replaces a killed attempt
    /// of an unfinished task, and the engine books that replacement as the copy, still pending; a
    /// caller that does not carry the veto out reports `Event::CopyDropped` for its task.
    Veto { attempt: AttemptId, reason: Reason },
    /// Kill a task's only attempt just after it started, so that Hadoop places it again: Mantri's
    /// network-aware placement of a reduce that landed on a rack over its plan (§5.2). Not a copy
    /// and not a restart; the replacement is Hadoop's own attempt.
    Move { attempt: AttemptId, reason: Reason },
}

impl Action {
    pub fn task(&self) -> TaskId {
        match self {
            Action::Speculate { task, .. } | Action::Clone { task, .. } => *task,
            Action::Restart { attempt, .. } | Action::Veto { attempt, .. } | Action::Move { attempt, .. } => {
                attempt.task
            }
        }
    }

    pub fn reason(&self) -> &Reason {
        match self {
            Action::Speculate { reason, .. }
            | Action::Restart { reason, .. }
            | Action::Clone { reason, .. }
            | Action::Veto { reason, .. }
            | Action::Move { reason, .. } => reason,
        }
    }

    /// Whether the action holds nothing it owns (no shared list, no box): a copy of its bytes is
    /// then as good as a clone, and nothing is freed twice when both are dropped.
    pub(crate) fn owns_nothing(&self) -> bool {
        match self {
            Action::Speculate { avoid_nodes, reason, .. } => avoid_nodes.shared_list().is_none() && reason.owns_nothing(),
            Action::Restart { reason, .. }
            | Action::Clone { reason, .. }
            | Action::Veto { reason, .. }
            | Action::Move { reason, .. } => reason.owns_nothing(),
        }
    }

    /// Extra containers this action asks for.
    pub fn new_copies(&self) -> u32 {
        match self {
            Action::Speculate { .. } => 1,
            Action::Clone { copies, .. } => *copies,
            Action::Restart { .. } | Action::Veto { .. } | Action::Move { .. } => 0,
        }
    }
}

/// The nodes a copy should avoid, in name order without repeats: a list that every copy of one
/// decision shares (LATE's slow nodes, the lost nodes) plus at most one node of the task's own.
/// A decision that copies thousands of tasks thus does not copy the same hundreds of names into
/// each of them, and an empty shared list is no list at all: a decision with 100K copies does not
/// count 100K references to it (each an atomic operation).
#[derive(Clone, Default)]
pub struct AvoidNodes {
    /// Sorted, without repeats; None when empty.
    shared: Option<SharedNodes>,
    own: Option<NodeName>,
}

/// Node names that the copies of one decision share (sorted, without repeats), behind one thin
/// pointer: an action holds one word for them, not a pointer and a length.
pub type SharedNodes = Arc<Vec<NodeName>>;

impl AvoidNodes {
    /// `shared` must be sorted and without repeats; it is shared only if not empty.
    pub fn new(shared: &SharedNodes, own: Option<NodeName>) -> AvoidNodes {
        debug_assert!(shared.windows(2).all(|w| w[0] < w[1]), "shared avoid list not sorted");
        AvoidNodes { shared: (!shared.is_empty()).then(|| shared.clone()), own }
    }

    /// The shared list as held, for a holder that keeps one reference to it for many copies.
    pub(crate) fn shared_list(&self) -> Option<&SharedNodes> {
        self.shared.as_ref()
    }

    /// From a shared list as `shared_list` gave it and the task's own node.
    pub(crate) fn from_parts(shared: Option<SharedNodes>, own: Option<NodeName>) -> AvoidNodes {
        AvoidNodes { shared, own }
    }

    /// Only the task's own node, if any.
    pub fn own_only(own: Option<NodeName>) -> AvoidNodes {
        AvoidNodes { shared: None, own }
    }

    /// The list every copy of one decision shares (sorted, without repeats).
    pub fn shared(&self) -> &[NodeName] {
        self.shared.as_deref().map_or(&[], Vec::as_slice)
    }

    /// The task's own node, if it is not already in the shared list's place.
    pub fn own(&self) -> Option<&NodeName> {
        self.own.as_ref()
    }

    /// The nodes, in name order.
    pub fn iter(&self) -> impl Iterator<Item = &NodeName> + '_ {
        let shared = self.shared();
        // The own node goes where it sorts, unless the shared list has it already.
        let (own, at) = match self.own.as_ref().map(|n| (n, shared.binary_search(n))) {
            Some((n, Err(at))) => (Some(n), at),
            _ => (None, shared.len()),
        };
        shared[..at].iter().chain(own).chain(&shared[at..])
    }

    pub fn contains(&self, node: &str) -> bool {
        self.own.as_deref() == Some(node) || self.shared().binary_search_by(|n| (**n).cmp(node)).is_ok()
    }

    pub fn len(&self) -> usize {
        self.iter().count()
    }

    pub fn is_empty(&self) -> bool {
        self.shared().is_empty() && self.own.is_none()
    }
}

impl FromIterator<NodeName> for AvoidNodes {
    fn from_iter<I: IntoIterator<Item = NodeName>>(nodes: I) -> AvoidNodes {
        let mut nodes: Vec<NodeName> = nodes.into_iter().collect();
        nodes.sort();
        nodes.dedup();
        AvoidNodes { shared: (!nodes.is_empty()).then(|| Arc::new(nodes)), own: None }
    }
}

impl PartialEq for AvoidNodes {
    fn eq(&self, other: &AvoidNodes) -> bool {
        self.iter().eq(other.iter())
    }
}

impl fmt::Debug for AvoidNodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Which of Mantri's rules (§5.1, Pseudocode 1) fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MantriRule {
    /// Tasks wait for slots and t_rem > E[t_new] + Δ: kill and restart.
    Restart,
    /// Tasks wait for slots and P(t_rem > t_new·(c+1)/c) > δ: duplicate.
    DuplicateWhileWaiting,
    /// All tasks have started and E[t_rem − t_new] > ρΔ: duplicate.
    DuplicateAtEnd,
}

/// Why the veto loop killed a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VetoCause {
    /// Its node was one the copy's request named to avoid.
    Avoided,
    /// Its node runs another attempt of the same task.
    BesideSibling,
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
        rank: u32,
        candidates: u32,
        speculative_running: u32,
        cap: u32,
        slots: u32,
    },
    /// Mantri §5.1: t_rem against the distribution of t_new.
    Mantri {
        rule: MantriRule,
        t_rem_s: f64,
        t_new_mean_s: f64,
        /// P(t_rem > t_new·(c+1)/c) for the duplicate-while-waiting rule.
        probability: Option<f64>,
        copies: u32,
        delta_s: f64,
        /// δ, or ρΔ in seconds, or E[t_new] + Δ in seconds: the bar the numbers cleared.
        threshold: f64,
    },
    /// Dolly §3.3: clones that bring the job's outlier probability under ε.
    Dolly {
        task_level: bool,
        /// Clones the paper's formula asks for (c_o or c), before the utilisation ceiling.
        wanted: u32,
        /// P(outlier) of the task (task-level) or of the job (job-level) with the clones.
        outlier_probability: f64,
        epsilon: f64,
        utilization: f64,
        ceiling: f64,
    },
    /// SCA §IV (P2) or ESE §V Eq. 21: the copy count maximising −E[flowtime] − γ·E[resource].
    Clone {
        policy: &'static str,
        copies_per_task: u32,
        tasks: u32,
        free_slots: u32,
        alpha: f64,
        gamma: f64,
        expected_flowtime_ratio: f64,
    },
    /// The model of Hadoop's DefaultSpeculator: the task whose copy would gain the most.
    Hadoop { estimated_end_s: f64, replacement_s: f64, value_s: f64, speculating: u32, allowed: u32 },
    /// An end-of-phase baseline of Mantri's evaluation (mapreduce, dryad).
    Baseline { policy: &'static str, elapsed_s: f64, bar_s: f64, finished: u32, tasks: u32 },
    /// `auto`'s detector: a running task's t_rem (Mantri §5.5) against t_new from its siblings,
    /// scaled by input bytes when known (Mantri §5.4).
    Straggler { progress: f64, t_rem_s: f64, t_new_s: f64, by_bytes: bool },
    /// LATE §4's copy with GRASS §4's cost test passed on top: what `Grass` around `Late` says
    /// (t_rem is LATE's time left, the task has one copy running), kept without a box. LATE
    /// makes thousands in one decision (14K at 100K tasks): a boxed base was an allocation and
    /// 64 bytes more of fresh memory each, where the numbers every copy of a decision shares are
    /// kept once here, in `decision`. Printed and logged exactly as that `Grass`
    /// ([`Reason::unpacked`]).
    LateGrass {
        progress: f64,
        /// Progress per second.
        rate: f64,
        /// Estimated seconds left; infinite when the task has made no progress.
        time_left_s: f64,
        /// The task's kind: its SlowTaskThreshold is `decision`'s for the kind.
        kind: TaskKind,
        rank: u32,
        rule: GrassRule,
        t_new_s: f64,
        decision: Arc<LateDecision>,
    },
    /// `auto`'s detection copy: the `Auto` around a `Grass` around a `Straggler` that it stands
    /// for, kept without their two boxes. A first scan of a big job can copy 100K tasks: the
    /// boxes were most of that decision's time. What every copy of the decision shares (the
    /// phases' regimes, the start-up cost) is kept once, in `decision`. Printed and logged
    /// exactly as the nested form ([`Reason::unpacked`]).
    AutoStraggler {
        progress: f64,
        t_rem_s: f64,
        t_new_s: f64,
        /// Running copies of the task (c), GRASS's.
        copies: u32,
        rule: GrassRule,
        /// Whether t_new was scaled by input bytes.
        by_bytes: bool,
        /// The task's kind: its regime is `decision`'s for the kind.
        kind: TaskKind,
        decision: Arc<AutoDecision>,
    },
    /// GRASS §4's cost test passed on top of the decision in `base`.
    Grass {
        rule: GrassRule,
        t_rem_s: f64,
        t_new_s: f64,
        /// Running copies of the task (c).
        copies: u32,
        /// A fresh copy's start-up cost, and whether it was measured on the job's attempts.
        startup_s: f64,
        startup_measured: bool,
        base: Box<Reason>,
    },
    /// `rein.slow-node.copy-reduces`: a reduce running on `node`, which the job named slow when it
    /// copied the straggler `straggler` off it, copied without waiting to be judged.
    SlowNode { node: NodeName, straggler: TaskId },
    /// `rein.policy=auto`: the load regime of the phase (SCA/ESE §III-B) and the decision taken
    /// in it.
    Auto {
        /// Whether the phase is lightly loaded (cloning) or heavily (detection).
        light: bool,
        /// ω: the phase's unfinished tasks plus the slots held elsewhere, over the job's slots.
        load: f64,
        /// ω^U: the cutoff, and the Pareto tail index it was solved for.
        cutoff: f64,
        alpha: f64,
        base: Box<Reason>,
    },
    /// ESE §V-A: a task with one copy whose t_rem exceeds σ·E[x].
    Ese { t_rem_s: f64, sigma: f64, mean_task_s: f64, rank: u32, candidates: u32 },
    /// The veto loop: a copy landed on `node`; this is veto number `veto` of at most `max` for
    /// its task.
    Veto { node: NodeName, cause: VetoCause, veto: u32, max: u32, block: bool },
    /// Mantri §5.2: a reduce started on `rack`, which then ran `running` reduces against the
    /// `planned` of the plan (`plan`: reduces per rack); this is move `moves` of at most `max`.
    Placement {
        /// Interned, as node names are.
        rack: NodeName,
        running: u32,
        planned: u32,
        plan: Box<str>,
        /// The plan's busiest rack link, in MB at equal bandwidths (map counts if not `by_bytes`).
        busiest_link_mb: f64,
        /// Whether the plan weighed racks by map output bytes (else by finished maps).
        by_bytes: bool,
        moves: u32,
        max: u32,
    },
}

/// What every copy LATE makes in one decision shares ([`Reason::LateGrass`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LateDecision {
    /// SlowTaskThreshold, per task kind.
    pub slow_task_rate: [f64; 2],
    pub candidates: u32,
    /// Copies running when the decision was taken: the copy of rank r is number speculating + r − 1.
    pub speculating: u32,
    pub cap: u32,
    pub slots: u32,
    /// GRASS's start-up cost of a fresh copy, and whether it was measured on the job's attempts.
    pub startup_s: f64,
    pub startup_measured: bool,
}

/// A phase's load regime as `auto` saw it in one decision (SCA/ESE §III-B).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AutoRegime {
    pub light: bool,
    pub load: f64,
    pub cutoff: f64,
    pub alpha: f64,
}

/// What every detection copy `auto` makes in one decision shares ([`Reason::AutoStraggler`]).
#[derive(Clone, Debug, PartialEq)]
pub struct AutoDecision {
    /// Per task kind.
    pub regimes: [AutoRegime; 2],
    /// GRASS's start-up cost of a fresh copy, and whether it was measured on the job's attempts.
    pub startup_s: f64,
    pub startup_measured: bool,
}

impl MantriRule {
    pub fn name(self) -> &'static str {
        match self {
            MantriRule::Restart => "restart",
            MantriRule::DuplicateWhileWaiting => "duplicate-while-waiting",
            MantriRule::DuplicateAtEnd => "duplicate-at-end",
        }
    }
}

impl Reason {
    /// Whether the reason holds nothing it owns: no shared decision, no box (node names are
    /// interned for the process's life, not owned).
    pub(crate) fn owns_nothing(&self) -> bool {
        match self {
            Reason::Late { .. }
            | Reason::Mantri { .. }
            | Reason::Dolly { .. }
            | Reason::Clone { .. }
            | Reason::Hadoop { .. }
            | Reason::Baseline { .. }
            | Reason::Straggler { .. }
            | Reason::SlowNode { .. }
            | Reason::Ese { .. }
            | Reason::Veto { .. } => true,
            Reason::LateGrass { .. }
            | Reason::AutoStraggler { .. }
            | Reason::Grass { .. }
            | Reason::Auto { .. }
            | Reason::Placement { .. } => false,
        }
    }

    /// A [`Reason::LateGrass`] as the `Grass` around a `Late` that it stands for, a
    /// [`Reason::AutoStraggler`] as the `Auto` around a `Grass` around a `Straggler`; None for
    /// any other reason.
    pub fn unpacked(&self) -> Option<Reason> {
        if let Reason::AutoStraggler { progress, t_rem_s, t_new_s, copies, rule, by_bytes, kind, decision } = self {
            let straggler =
                Reason::Straggler { progress: *progress, t_rem_s: *t_rem_s, t_new_s: *t_new_s, by_bytes: *by_bytes };
            let grass = Reason::Grass {
                rule: *rule,
                t_rem_s: *t_rem_s,
                t_new_s: *t_new_s,
                copies: *copies,
                startup_s: decision.startup_s,
                startup_measured: decision.startup_measured,
                base: Box::new(straggler),
            };
            let AutoRegime { light, load, cutoff, alpha } = decision.regimes[*kind as usize];
            return Some(Reason::Auto { light, load, cutoff, alpha, base: Box::new(grass) });
        }
        let Reason::LateGrass { progress, rate, time_left_s, kind, rank, rule, t_new_s, decision } = self else {
            return None;
        };
        let late = Reason::Late {
            progress: *progress,
            rate: *rate,
            slow_task_rate: decision.slow_task_rate[*kind as usize],
            time_left_s: *time_left_s,
            rank: *rank,
            candidates: decision.candidates,
            speculative_running: decision.speculating + rank - 1,
            cap: decision.cap,
            slots: decision.slots,
        };
        Some(Reason::Grass {
            rule: *rule,
            t_rem_s: *time_left_s,
            t_new_s: *t_new_s,
            copies: 1,
            startup_s: decision.startup_s,
            startup_measured: decision.startup_measured,
            base: Box::new(late),
        })
    }

    /// The reason's numbers as one JSON object, `kind` first: what the decision log records
    /// beside the text.
    pub fn to_json(&self) -> String {
        if let Some(grass) = self.unpacked() {
            return grass.to_json();
        }
        match self {
            Reason::Late { progress, rate, slow_task_rate, time_left_s, rank, candidates, speculative_running, cap, slots } => {
                Obj::new()
                    .str("kind", "late")
                    .num("progress", *progress)
                    .num("rate_per_s", *rate)
                    .num("slow_task_rate_per_s", *slow_task_rate)
                    .num("time_left_s", *time_left_s)
                    .int("rank", *rank as i64)
                    .int("candidates", *candidates as i64)
                    .int("speculative_running", *speculative_running as i64)
                    .int("cap", *cap as i64)
                    .int("slots", *slots as i64)
            }
            Reason::Mantri { rule, t_rem_s, t_new_mean_s, probability, copies, delta_s, threshold } => Obj::new()
                .str("kind", "mantri")
                .str("rule", rule.name())
                .num("t_rem_s", *t_rem_s)
                .num("t_new_mean_s", *t_new_mean_s)
                .opt_num("probability", *probability)
                .int("copies", *copies as i64)
                .num("delta_s", *delta_s)
                .num("threshold", *threshold),
            Reason::Dolly { task_level, wanted, outlier_probability, epsilon, utilization, ceiling } => Obj::new()
                .str("kind", "dolly")
                .str("level", if *task_level { "task" } else { "job" })
                .int("wanted", *wanted as i64)
                .num("outlier_probability", *outlier_probability)
                .num("epsilon", *epsilon)
                .num("utilization", *utilization)
                .num("ceiling", *ceiling),
            Reason::Clone { policy, copies_per_task, tasks, free_slots, alpha, gamma, expected_flowtime_ratio } => Obj::new()
                .str("kind", "clone")
                .str("policy", policy)
                .int("copies_per_task", *copies_per_task as i64)
                .int("tasks", *tasks as i64)
                .int("free_slots", *free_slots as i64)
                .num("alpha", *alpha)
                .num("gamma", *gamma)
                .num("expected_flowtime_ratio", *expected_flowtime_ratio),
            Reason::Hadoop { estimated_end_s, replacement_s, value_s, speculating, allowed } => Obj::new()
                .str("kind", "hadoop")
                .num("estimated_end_s", *estimated_end_s)
                .num("replacement_s", *replacement_s)
                .num("value_s", *value_s)
                .int("speculating", *speculating as i64)
                .int("allowed", *allowed as i64),
            Reason::Baseline { policy, elapsed_s, bar_s, finished, tasks } => Obj::new()
                .str("kind", "baseline")
                .str("policy", policy)
                .num("elapsed_s", *elapsed_s)
                .num("bar_s", *bar_s)
                .int("finished", *finished as i64)
                .int("tasks", *tasks as i64),
            Reason::Ese { t_rem_s, sigma, mean_task_s, rank, candidates } => Obj::new()
                .str("kind", "ese")
                .num("t_rem_s", *t_rem_s)
                .num("sigma", *sigma)
                .num("mean_task_s", *mean_task_s)
                .int("rank", *rank as i64)
                .int("candidates", *candidates as i64),
            Reason::Veto { node, cause, veto, max, block } => Obj::new()
                .str("kind", "veto")
                .str("node", node)
                .str("cause", match cause {
                    VetoCause::Avoided => "avoided-node",
                    VetoCause::BesideSibling => "beside-sibling",
                })
                .int("veto", *veto as i64)
                .int("max", *max as i64)
                .boolean("block_node", *block),
            Reason::Placement { rack, running, planned, plan, busiest_link_mb, by_bytes, moves, max } => Obj::new()
                .str("kind", "placement")
                .str("rack", rack)
                .int("running", *running as i64)
                .int("planned", *planned as i64)
                .str("plan", plan)
                .num("busiest_link_mb", *busiest_link_mb)
                .boolean("by_bytes", *by_bytes)
                .int("moves", *moves as i64)
                .int("max", *max as i64),
            Reason::Straggler { progress, t_rem_s, t_new_s, by_bytes } => Obj::new()
                .str("kind", "straggler")
                .num("progress", *progress)
                .num("t_rem_s", *t_rem_s)
                .num("t_new_s", *t_new_s)
                .boolean("by_bytes", *by_bytes),
            Reason::Grass { rule, t_rem_s, t_new_s, copies, startup_s, startup_measured, base } => Obj::new()
                .str("kind", "grass")
                .str("rule", match rule {
                    GrassRule::ResourceAware => "resource-aware",
                    GrassRule::Greedy => "greedy",
                })
                .num("t_rem_s", *t_rem_s)
                .num("t_new_s", *t_new_s)
                .int("copies", *copies as i64)
                .num("startup_s", *startup_s)
                .boolean("startup_measured", *startup_measured)
                .raw("base", &base.to_json()),
            Reason::SlowNode { node, straggler } => Obj::new()
                .str("kind", "slow-node")
                .str("node", node)
                .str("straggler", &crate::ledger::task_name(*straggler)),
            Reason::LateGrass { .. } | Reason::AutoStraggler { .. } => unreachable!("unpacked above"),
            Reason::Auto { light, load, cutoff, alpha, base } => Obj::new()
                .str("kind", "auto")
                .str("regime", if *light { "light" } else { "heavy" })
                .num("load", *load)
                .num("cutoff", *cutoff)
                .num("alpha", *alpha)
                .raw("base", &base.to_json()),
        }
        .finish()
    }

    /// The policy's own estimate of the original attempt's time left, in seconds, when it made one.
    pub fn time_left_s(&self) -> Option<f64> {
        match self {
            Reason::Late { time_left_s, .. } | Reason::LateGrass { time_left_s, .. } => Some(*time_left_s),
            Reason::AutoStraggler { t_rem_s, .. }
            | Reason::Mantri { t_rem_s, .. }
            | Reason::Ese { t_rem_s, .. }
            | Reason::Straggler { t_rem_s, .. }
            | Reason::Grass { t_rem_s, .. } => Some(*t_rem_s),
            Reason::Hadoop { estimated_end_s, .. } => Some(*estimated_end_s),
            Reason::Auto { base, .. } => base.time_left_s(),
            _ => None,
        }
        .filter(|s| s.is_finite())
    }

    /// The policy's own estimate of a fresh copy's duration, in seconds, when it made one.
    pub fn new_copy_s(&self) -> Option<f64> {
        match self {
            Reason::Mantri { t_new_mean_s, .. } => Some(*t_new_mean_s),
            Reason::Straggler { t_new_s, .. }
            | Reason::Grass { t_new_s, .. }
            | Reason::LateGrass { t_new_s, .. }
            | Reason::AutoStraggler { t_new_s, .. } => Some(*t_new_s),
            Reason::Hadoop { replacement_s, .. } => Some(*replacement_s),
            Reason::Auto { base, .. } => base.new_copy_s(),
            _ => None,
        }
        .filter(|s| s.is_finite())
    }
}

fn secs(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1} s")
    } else {
        "inf".to_owned()
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(grass) = self.unpacked() {
            return grass.fmt(f);
        }
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
                "LATE §4: longest estimated time left {} (progress {:.3} at {:.5}/s, below \
                 SlowTaskThreshold {:.5}/s); rank {} of {} candidates; speculative copies running \
                 {} of cap {} ({} slots)",
                secs(*time_left_s), progress, rate, slow_task_rate, rank, candidates, speculative_running, cap,
                slots
            ),
            Reason::Mantri { rule, t_rem_s, t_new_mean_s, probability, copies, delta_s, threshold } => match rule {
                MantriRule::Restart => write!(
                    f,
                    "Mantri §5.1 restart: tasks wait for slots and t_rem {} > E[t_new] + Δ = {} \
                     (E[t_new] {}, Δ {})",
                    secs(*t_rem_s), secs(*threshold), secs(*t_new_mean_s), secs(*delta_s)
                ),
                MantriRule::DuplicateWhileWaiting => write!(
                    f,
                    "Mantri §5.1 duplicate: tasks wait for slots and P(t_rem > t_new·(c+1)/c) = {:.2} > δ = {:.2} \
                     (t_rem {}, E[t_new] {}, c = {})",
                    probability.unwrap_or(f64::NAN), threshold, secs(*t_rem_s), secs(*t_new_mean_s), copies
                ),
                MantriRule::DuplicateAtEnd => write!(
                    f,
                    "Mantri §5.1 duplicate: all tasks started and E[t_rem − t_new] = {} > ρΔ = {} \
                     (t_rem {}, E[t_new] {}, c = {})",
                    secs(t_rem_s - t_new_mean_s), secs(*threshold), secs(*t_rem_s), secs(*t_new_mean_s), copies
                ),
            },
            Reason::Dolly { task_level, wanted, outlier_probability, epsilon, utilization, ceiling } => write!(
                f,
                "Dolly §3.3 {}-level cloning: {} clone(s) wanted for ε = {:.3}, outlier probability with \
                 clones {:.4}; utilisation {:.2} under ceiling τ = {:.2}",
                if *task_level { "task" } else { "job" },
                wanted, epsilon, outlier_probability, utilization, ceiling
            ),
            Reason::Clone { policy, copies_per_task, tasks, free_slots, alpha, gamma, expected_flowtime_ratio } => {
                write!(
                    f,
                    "{policy}: {copies_per_task} copies per task maximise −E[flowtime] − γ·E[resource] \
                     (m = {tasks} tasks, N = {free_slots} free slots, Pareto α = {alpha:.2}, γ = {gamma}; \
                     E[flowtime] {:.0}% of one copy's)",
                    expected_flowtime_ratio * 100.0
                )
            }
            Reason::Hadoop { estimated_end_s, replacement_s, value_s, speculating, allowed } => write!(
                f,
                "Hadoop DefaultSpeculator model: estimated end in {}, a new attempt takes {}, gain {}; \
                 {} of {} allowed copies running",
                secs(*estimated_end_s), secs(*replacement_s), secs(*value_s), speculating, allowed
            ),
            Reason::Baseline { policy, elapsed_s, bar_s, finished, tasks } => write!(
                f,
                "{policy} baseline (Mantri §7): running {} past the bar of {}; {finished} of {tasks} tasks finished",
                secs(*elapsed_s), secs(*bar_s)
            ),
            Reason::Ese { t_rem_s, sigma, mean_task_s, rank, candidates } => write!(
                f,
                "ESE §V-A backup: t_rem {} > σ·E[x] = {:.2} × {} ; rank {} of {} in D",
                secs(*t_rem_s), sigma, secs(*mean_task_s), rank, candidates
            ),
            Reason::Straggler { progress, t_rem_s, t_new_s, by_bytes } => write!(
                f,
                "straggler at progress {progress:.3}: t_rem {} (Mantri §5.5) against t_new {} from its siblings{}",
                secs(*t_rem_s),
                secs(*t_new_s),
                if *by_bytes { " scaled by input bytes (Mantri §5.4)" } else { "" }
            ),
            Reason::LateGrass { .. } | Reason::AutoStraggler { .. } => unreachable!("unpacked above"),
            Reason::Grass { rule, t_rem_s, t_new_s, copies, startup_s, startup_measured, base } => write!(
                f,
                "{base}; GRASS §4 {} (t_rem {}, t_new {}, c = {copies}; start-up {} {})",
                rule.label(),
                secs(*t_rem_s),
                secs(*t_new_s),
                secs(*startup_s),
                if *startup_measured { "measured" } else { "by default" }
            ),
            Reason::SlowNode { node, straggler } => write!(
                f,
                "reduce on {node}, which the job named slow when it copied straggler {} off it; copied \
                 at once, away from the job's slow nodes, not judged after its maps and a sibling \
                 (rein.slow-node.copy-reduces)",
                crate::ledger::task_name(*straggler)
            ),
            Reason::Auto { light, load, cutoff, alpha, base } => write!(
                f,
                "auto: {} load, ω = {load:.2} {} ω^U = {cutoff:.2} (SCA/ESE §III-B, Pareto α = {alpha:.2}), so {}: {base}",
                if *light { "light" } else { "heavy" },
                if *light { "<" } else { "≥" },
                match (light, base.as_ref()) {
                    (_, Reason::Clone { .. }) => "cloning",
                    (_, Reason::SlowNode { .. }) => "no waiting for a reduce on a slow node",
                    (true, _) => "detection of a task not cloned",
                    (false, _) => "detection",
                }
            ),
            Reason::Veto { node, cause, veto, max, block } => {
                match cause {
                    VetoCause::Avoided => write!(f, "the copy landed on avoided node {node}")?,
                    VetoCause::BesideSibling => {
                        write!(f, "the copy landed on {node}, the node of another attempt of its task")?
                    }
                }
                write!(f, " (veto {veto} of {max} for this task); Hadoop places a replacement")?;
                if *block {
                    write!(f, ", and the job's later containers are kept off {node} (rein.veto.block-node)")?;
                }
                Ok(())
            }
            Reason::Placement { rack, running, planned, plan, busiest_link_mb, by_bytes, moves, max } => {
                write!(
                    f,
                    "Mantri §5.2 network-aware placement: the reduce started on rack {rack}, which runs \
                     {running} reduces against {planned} in the plan [{plan}] that minimises the busiest \
                     rack link ("
                )?;
                if *by_bytes {
                    write!(f, "{busiest_link_mb:.1} MB")?;
                } else {
                    write!(f, "weighed by finished maps, map output sizes unknown")?;
                }
                write!(f, "); move {moves} of {max} for this task; Hadoop places it again")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LATE's unboxed GRASS reason reads, prints and logs as the `Grass` around `Late` it stands
    /// for, built by hand here.
    #[test]
    fn late_grass_is_the_grass_around_late() {
        let decision = Arc::new(LateDecision {
            slow_task_rate: [0.004, 0.002],
            candidates: 7,
            speculating: 3,
            cap: 10,
            slots: 100,
            startup_s: 12.5,
            startup_measured: true,
        });
        for (kind, rule, time_left_s) in
            [(TaskKind::Map, GrassRule::Greedy, 80.0), (TaskKind::Reduce, GrassRule::ResourceAware, f64::INFINITY)]
        {
            let packed = Reason::LateGrass {
                progress: 0.25,
                rate: 0.001,
                time_left_s,
                kind,
                rank: 2,
                rule,
                t_new_s: 30.0,
                decision: decision.clone(),
            };
            let late = Reason::Late {
                progress: 0.25,
                rate: 0.001,
                slow_task_rate: decision.slow_task_rate[kind as usize],
                time_left_s,
                rank: 2,
                candidates: 7,
                speculative_running: 4,
                cap: 10,
                slots: 100,
            };
            let grass = Reason::Grass {
                rule,
                t_rem_s: time_left_s,
                t_new_s: 30.0,
                copies: 1,
                startup_s: 12.5,
                startup_measured: true,
                base: Box::new(late),
            };
            assert_eq!(packed.unpacked().as_ref(), Some(&grass));
            assert_eq!(packed.to_json(), grass.to_json());
            assert_eq!(packed.to_string(), grass.to_string());
            assert_eq!((packed.time_left_s(), packed.new_copy_s()), (grass.time_left_s(), grass.new_copy_s()));
            assert_eq!(grass.unpacked(), None);
        }
    }

    /// `auto`'s unboxed detection reason reads, prints and logs as the `Auto` around `Grass`
    /// around `Straggler` it stands for, built by hand here.
    #[test]
    fn auto_straggler_is_the_auto_around_grass_around_straggler() {
        let decision = Arc::new(AutoDecision {
            regimes: [
                AutoRegime { light: false, load: 0.875, cutoff: 0.75, alpha: 2.0 },
                AutoRegime { light: true, load: 0.25, cutoff: 0.36, alpha: 3.0 },
            ],
            startup_s: 4.5,
            startup_measured: false,
        });
        for (kind, rule, t_rem_s, copies, by_bytes) in [
            (TaskKind::Map, GrassRule::Greedy, f64::INFINITY, 1, true),
            (TaskKind::Reduce, GrassRule::ResourceAware, 95.0, 2, false),
        ] {
            let packed = Reason::AutoStraggler {
                progress: 0.21,
                t_rem_s,
                t_new_s: 31.0,
                copies,
                rule,
                by_bytes,
                kind,
                decision: decision.clone(),
            };
            let straggler = Reason::Straggler { progress: 0.21, t_rem_s, t_new_s: 31.0, by_bytes };
            let grass = Reason::Grass {
                rule,
                t_rem_s,
                t_new_s: 31.0,
                copies,
                startup_s: 4.5,
                startup_measured: false,
                base: Box::new(straggler),
            };
            let r = decision.regimes[kind as usize];
            let auto =
                Reason::Auto { light: r.light, load: r.load, cutoff: r.cutoff, alpha: r.alpha, base: Box::new(grass) };
            assert_eq!(packed.unpacked().as_ref(), Some(&auto));
            assert_eq!(packed.to_json(), auto.to_json());
            assert_eq!(packed.to_string(), auto.to_string());
            assert_eq!((packed.time_left_s(), packed.new_copy_s()), (auto.time_left_s(), auto.new_copy_s()));
            assert_eq!(auto.unpacked(), None);
        }
    }
}
