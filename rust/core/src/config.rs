//! Typed configuration, read from the job's `rein.*` string keys.
//!
//! Defaults are the papers' values. Every bad value is rejected with a [`ConfigError`] that names
//! the key, the value and the allowed range; keys rein does not know are reported as warnings.

use std::fmt;

use crate::topology::Topology;
use crate::model::TaskKind;

/// One configuration key: its name, default, allowed values and where it comes from.
pub struct KeySpec {
    pub key: &'static str,
    pub default: &'static str,
    pub allowed: &'static str,
    pub source: &'static str,
    pub meaning: &'static str,
}

const ESTIMATORS: &str = "progress-rate | phase-aware | mantri | exp-smoothing";

macro_rules! keys {
    ($( $key:literal, $default:literal, $allowed:expr, $source:literal, $meaning:literal; )*) => {
        /// Every `rein.*` key, engine and shim alike: the table the README documents.
        pub const KEYS: &[KeySpec] = &[
            $( KeySpec { key: $key, default: $default, allowed: $allowed, source: $source, meaning: $meaning }, )*
        ];
    };
}

keys! {
    "rein.policy", "auto", "auto | none | late | mantri | dolly | sca | ese | hadoop | mapreduce | dryad", "-",
        "the straggler policy that drives this job's speculation; auto clones under light load and detects stragglers under heavy load, per phase (SCA/ESE §III-B)";
    "rein.auto.cutoff", "auto", "auto | (0, 1]", "SCA/ESE §III-B, Eq. 1, 6–8",
        "auto: the load ω (a phase's unfinished tasks plus the slots held elsewhere, over the job's slots) below which a phase is lightly loaded and cloned; auto solves W_t^c < W_t for the fitted Pareto tail (0.75 at α = 2)";
    "rein.auto.clone-reduces", "false", "true | false", "Dolly §4 (rein)",
        "auto: clone reduces under light load too; off because a reduce clone fetches every map output again (the intermediate-data contention Dolly §4 leaves open), and on the bench none of 19 reduce clones won; true: every task, as SCA §IV clones";
    "rein.auto.max-copies", "3", "[2, 16]", "GRASS §4, Mantri §5.1",
        "auto: the most running attempts of a task (the original counted) that detection makes; a task whose copies all straggle too is judged by its fastest attempt and copied again when GRASS's resource-aware test passes with c running copies (c·t_rem > (c+1)·t_new, in the last wave too), at most every rein.mantri.recopy-after-ms; 2: one copy per task";
    "rein.slow-node.copy-reduces", "true", "true | false", "-",
        "auto, and the detecting partner of dolly and sca: in the job's last wave and under light load (SCA/ESE §III-B), a reduce whose only attempt runs on a node the job has copied a silent straggler off (one with no progress at all; that straggler not succeeded, nothing of the job finished there) is copied at once into a free slot, away from that node, instead of waiting for its maps and a finished sibling to be judged; false: it waits like any reduce";
    "rein.grass.startup-ms", "10000", "[0, 3600000]", "GRASS §4",
        "a fresh copy's start-up cost (launch to first progress) until the job's own attempts have measured it; nothing whose t_rem is below it is copied";
    "rein.cluster.slots", "(reported)", "[1, 10000000]", "LATE §4, Dolly §3.3, SCA §IV",
        "task slots (containers) the job can use; by default its allocator's resource limit, else the most attempts seen running at once";
    "rein.cluster.busy-slots", "0", "[0, 10000000]", "Dolly §3.3, SCA §IV",
        "slots other jobs hold, for the cloning policies' utilisation and free-slot count";
    "rein.estimator.smoothing-lambda-ms", "60000", "[1, 86400000]", "Hadoop",
        "time constant of the exp-smoothing estimator's progress rate";
    "rein.late.speculative-cap", "0.1", "(0, 1]", "LATE §4",
        "SpeculativeCap: copies running at once, as a fraction of slots (at least one)";
    "rein.late.slow-task-threshold", "0.25", "[0, 1]", "LATE §4",
        "SlowTaskThreshold: percentile of progress rates a task must fall below";
    "rein.late.slow-node-threshold", "0.25", "[0, 1]", "LATE §4, §5.4.3",
        "SlowNodeThreshold: percentile of node total progress below which a node is avoided";
    "rein.late.min-runtime-ms", "60000", "[0, 86400000]", "LATE §4",
        "a task must have run this long before it is judged";
    "rein.late.estimator", "progress-rate", ESTIMATORS, "LATE §4, §4.2",
        "how LATE estimates a task's time left";
    "rein.late.first-progress-factor", "1.5", "[0, 100]", "LATE §4 (rein)",
        "a task with no progress yet is judged only once it has run this many times its siblings' median launch-to-first-progress (never before a sibling has progressed); 0: at once, as LATE §4 prints it";
    "rein.late.silent-runtime-factor", "1.25", "[0, 100]", "LATE §4 (rein)",
        "a task with no progress yet is also judged once it has run this many times its siblings' median run time (Kaplan–Meier: running siblings count as at least their age, so about half must have finished; LATE and auto); 0: as soon as that median is known";
    "rein.late.reduce-waits-for-maps", "true", "true | false", "LATE §4 (rein)",
        "a reduce is not judged (nor, by auto, cloned) while maps of its job are unfinished: its shuffle waits on them, and so would a copy's (LATE and auto); false: reduces are judged at any time, as LATE §4 prints it";
    "rein.late.rate-pool", "judged", "judged | all", "LATE §4 (rein)",
        "the attempts whose progress rates SlowTaskThreshold is a percentile of: finished ones and running ones past the minimum run time that have shown progress (judged), or every started attempt (all)";
    "rein.late.cap-covers-slow-nodes", "true", "true | false", "LATE §4, §5.4.1",
        "SpeculativeCap is at least the tasks running on slow nodes (§5.4.1: a 10% cap lost because 15% of the nodes were slow); false: the fraction of slots only";
    "rein.late.grass", "true", "true | false", "GRASS §4",
        "copy only what GRASS finds worth it: c·t_rem > (c+1)·t_new while the phase's tasks wait, t_rem > t_new in its last wave, never t_rem below a copy's start-up; false: LATE's rule alone";
    "rein.mantri.delta-ms", "10000", "[100, 3600000]", "Mantri §5",
        "Δ: the progress-report period; restarts need t_rem > E[t_new] + Δ";
    "rein.mantri.duplicate-threshold", "0.25", "(0, 1)", "Mantri §5.1",
        "δ: duplicate while tasks wait if P(t_rem > t_new·(c+1)/c) > δ";
    "rein.mantri.rho", "3", "[0, 1000]", "Mantri §5.1",
        "ρ: once all tasks run, duplicate iff E[t_rem − t_new] > ρΔ";
    "rein.mantri.max-restarts", "3", "[0, 100]", "Mantri §5.1",
        "γ: kill-and-restart a task at most this many times";
    "rein.mantri.max-copies", "3", "[2, 16]", "Mantri §5.1",
        "running copies of a task at most (the two fastest and the newest)";
    "rein.mantri.recopy-after-ms", "30000", "[0, 86400000]", "Mantri §5.1",
        "no new copy of a task copied more recently than this (rein's reading of 'recently': ρΔ)";
    "rein.mantri.estimator", "mantri", ESTIMATORS, "Mantri §5.5",
        "how Mantri estimates t_rem";
    "rein.mantri.extrapolate-after-read", "true", "true | false", "Mantri §5.5",
        "once a task has read its input and its score has moved since, extrapolate the pace of its score since then over the rest (and, before any sibling has finished, the reading pace over the wrap-up); a score standing still since (a map sorting and spilling) gets the wrap-up of earlier tasks less the time since (once past it, as long again as it has overrun it), or the rest at its reading pace while none is known; false: the wrap-up of earlier tasks only, as §5.5 prints it";
    "rein.mantri.min-window-ms", "3000", "[0, 3600000]", "Mantri §5.5 (rein)",
        "a window of recent reports spanning less than this is read no slower than the attempt's average since launch: a pause of a second or two between close reports (a map blocked on a spill) is no straggler's pace; 0: the window's rate alone, however short, as §5.5's moving average (every policy that uses the Mantri estimate)";
    "rein.mantri.scale-startup", "false", "true | false", "Mantri §5.5",
        "t_new scales finished tasks' whole run time, start-up included, by the input bytes, as §5.5 prints it; false: their time per byte from first progress on, plus their mean start-up (launch to first progress) unscaled";
    "rein.mantri.first-progress-factor", "1.5", "[0, 100]", "Mantri §5.5 (rein)",
        "an attempt with no progress yet (t_rem infinite) is judged only once it has also run this many times its siblings' median launch-to-first-progress (silent siblings counted at their age); 0: once it has run E[t_new] + Δ, as §5.5 leaves it";
    "rein.mantri.reduce-moves-per-task", "2", "[0, 10]", "Mantri §5.2",
        "network-aware placement: kill a reduce that started on a rack running more reduces than the plan minimising the busiest rack link gives it, so that Hadoop places it again, at most this many times per task and only within Δ of its start; 0 turns it off";
    "rein.dolly.mode", "task", "task | job", "Dolly §3.1, §3.3",
        "task-level cloning (Pseudocode 1) or job-level cloning";
    "rein.dolly.epsilon", "0.05", "(0, 1)", "Dolly §3.3",
        "ε: acceptable probability that the job has an outlier";
    "rein.dolly.utilization-ceiling", "0.7", "(0, 1]", "Dolly §3.3",
        "τ: clone only while utilisation after cloning stays below this fraction of slots";
    "rein.dolly.outlier-probability", "0.1", "(0, 1)", "Dolly §3.2",
        "p: cluster-wide probability that a task is an outlier, and each machine's starting p_m";
    "rein.dolly.window-ms", "60000", "[1000, 86400000]", "Dolly §3.2",
        "length of the window after which p_m,t+1 = (p_m,t + p_m[t]) / 2";
    "rein.dolly.small-jobs-only", "false", "true | false", "Dolly §3.3",
        "clone only jobs with at most rein.dolly.small-job-tasks tasks";
    "rein.dolly.small-job-tasks", "10", "[1, 1000000]", "Dolly §2.2",
        "the largest job that counts as small";
    "rein.dolly.clone-reduces", "false", "true | false", "Dolly §4 (rein)",
        "Dolly clones reduces too; off, as for auto and SCA, because a reduce clone fetches every map output again (the intermediate-data contention §4 leaves open); true: every task, as Pseudocode 1 clones";
    "rein.dolly.reactive", "late", "late | mantri | none", "Dolly §3.3, §4 (rein)",
        "the reactive straggler mitigation that runs beside Dolly's clones for the tasks it did not clone (§4: cloning co-exists with LATE's or Mantri's speculation; §3.3 measured Dolly on a cluster running LATE); none: cloning only, as Pseudocode 1 prints it";
    "rein.sca.gamma", "0.05", "[0, 1000]", "SCA §IV, P1",
        "γ: weight of resource use against flowtime in the job utility";
    "rein.sca.max-copies", "8", "[1, 64]", "SCA §IV, P1",
        "r: copies of a task at most";
    "rein.sca.pareto-alpha", "2", "(1, 100]", "SCA §III",
        "tail index of task times until enough tasks have finished to fit it";
    "rein.sca.fit-min-samples", "5", "[2, 100000]", "SCA §IV",
        "finished tasks needed before the Pareto tail index is fitted from them";
    "rein.sca.reactive", "ese", "ese | none", "SCA/ESE §III-B, §V (rein)",
        "ESE's backups beside SCA's clones for the tasks SCA did not clone (a heavily loaded phase gets none: §III-B leaves it to straggler detection, §V's ESE); none: SCA alone";
    "rein.sca.clone-reduces", "false", "true | false", "Dolly §4 (rein)",
        "SCA clones reduces too; off, as for auto, because a reduce clone fetches every map output again; true: every task, as SCA §IV clones";
    "rein.ese.sigma", "auto", "auto | (0, 100]", "ESE §V-B",
        "σ: back up tasks with t_rem > σ·E[x]; auto minimises E[R] (Eq. 22–25) for the fitted tail";
    "rein.ese.eta", "1", "(0, 1000]", "ESE §V-A",
        "η: a job is small if m < η·N/|χ|";
    "rein.ese.xi-ms", "60000", "[1, 86400000]", "ESE §V-A",
        "ξ: a job is small only if E[x] < ξ";
    "rein.ese.expected-task-ms", "(fitted)", "[1, 86400000]", "ESE §V-A",
        "E[x] before any task has finished: the task-time prior ESE §V takes as known (e.g. the job's mean task time in its earlier runs), replaced by the finished tasks' mean as they come in; unset, backups wait for a finished task and step 3's small-job cloning, decided as tasks start, cannot fire";
    "rein.ese.prior-from-siblings", "true", "true | false", "ESE §V-A (rein)",
        "with no rein.ese.expected-task-ms, a task that started before any sibling finished is decided for small-job cloning once the first finishes, if it has run less than half E[x]; false: decided as it starts, when no E[x] is known";
    "rein.ese.wait-for-first-progress", "true", "true | false", "ESE §V-A (rein)",
        "an attempt that has not reported progress yet is backed up only once it is late to start against its siblings, as rein's LATE judges one (rein.late.first-progress-factor, rein.late.silent-runtime-factor); false: its unknown t_rem counts as infinite at once";
    "rein.ese.estimator", "mantri", ESTIMATORS, "ESE §V-A",
        "how ESE estimates t_rem";
    "rein.hadoop.cap-running-tasks", "0.1", "[0, 1]", "Hadoop DefaultSpeculator",
        "the hadoop model: copies at once, as a fraction of running tasks";
    "rein.hadoop.cap-total-tasks", "0.01", "[0, 1]", "Hadoop DefaultSpeculator",
        "the hadoop model: copies at once, as a fraction of all tasks";
    "rein.hadoop.minimum-allowed-tasks", "10", "[0, 1000000]", "Hadoop DefaultSpeculator",
        "the hadoop model: copies at once allowed in any case";
    "rein.hadoop.retry-after-speculate-ms", "15000", "[0, 86400000]", "Hadoop DefaultSpeculator",
        "the hadoop model: pause after a scan that launched a copy";
    "rein.mapreduce.finished-fraction", "0.9", "(0, 1]", "Mantri §7 (MapReduce)",
        "the mapreduce baseline: back up every remaining task once this share of the phase has finished";
    "rein.dryad.percentile", "0.95", "[0, 1]", "Mantri §7 (Dryad)",
        "the dryad baseline: back up tasks running longer than this percentile of finished durations";
    "rein.veto.max-per-task", "2", "[0, 10]", "LATE §4, MAPREDUCE-7169",
        "kill a copy that landed on a node it should avoid (its request's slow or lost nodes, the nodes of its task's other attempts) so that Hadoop places a replacement, at most this many times per task; 0 turns vetoes off";
    "rein.veto.block-node", "false", "true | false", "LATE §4, MAPREDUCE-7169",
        "with a veto of a copy that landed on a node its request avoided, keep the job's later containers off that node (Hadoop's job-level node blacklist, as after task failures there), so that the replacement cannot be drawn back to it";
    "rein.topology.racks", "(the cluster's racks)", "node=rack entries separated by commas or spaces; node is host:port or host", "Mantri §5.2",
        "the rack of each node, overriding what YARN reports (on a one-host test cluster every node is on /default-rack)";
    "rein.test.panic-on", "none", "none | event | decide", "-",
        "test only: make the engine panic on every event or decision, to exercise the fallback";
    "rein.fallback", "stock", "stock | none", "-",
        "what runs the job when the native engine cannot: Hadoop's DefaultSpeculator, or nothing";
    "rein.native.library", "(unset)", "a path to librein.so", "-",
        "load the engine from this file instead of java.library.path or the jar";
    "rein.native.extract-dir", "java.io.tmpdir", "a writable, executable directory", "-",
        "where the library bundled in the jar is extracted";
    "rein.scan-interval-ms", "1000", "[10, 600000]", "-",
        "how often the shim polls the job and asks the engine to decide";
    "rein.enabled", "true", "true | false", "-",
        "false: this job runs under Hadoop's DefaultSpeculator as if rein were not installed (a per-job opt-out, e.g. -Drein.enabled=false)";
    "rein.mode", "act", "act | shadow", "-",
        "shadow: Hadoop's DefaultSpeculator runs the job; rein sees the same events, decides, and only logs what it would have done";
    "rein.decision-log", "auto", "auto | off | a directory or a .jsonl file (any Hadoop file system)", "-",
        "the JSON-lines log of every decision and its outcome; auto: the job's history intermediate-done directory, next to its .jhist, as JOBID.rein-decisions.jsonl";
    "rein.decision-log.max-bytes", "16777216", "[4096, 1073741824]", "-",
        "the decision log's size bound; past it, decisions and outcomes are counted but not written, and the summary record is still written";
    "rein.max-copies-per-scan", "1000", "[0, 100000000]", "-",
        "copies of running stragglers one scan asks for at most (LATE's, Mantri's, ESE's and SCA's backups, auto's detection, the mapreduce and dryad baselines), the best ranked first by the policy's own order; the late tasks left over are judged again at the next scans. Clones made as tasks start (Dolly, SCA, ESE, auto) and Mantri's restarts (which reuse their straggler's slot) are not counted. It bounds what one scan costs the ApplicationMaster (ranking and booking a copy of each of 100K late tasks takes 3-6 ms) and the container requests one scan makes; 0: no bound, every free slot may take a copy in one decision, as in the papers";
    "rein.memory.huge-pages", "true", "true | false", "-",
        "advise the kernel (madvise MADV_HUGEPAGE) to map rein's big blocks of a job in transparent huge pages of 2 MB: its per-task records (tasks, briefs, bookings: about 30 MB at 100K tasks, reached at random by every event and walked by every decision), the stock model's memo per task, a first decision's list of Dolly's clones, and a decision's candidates under auto; only room just reserved and 4 MB or more (jobs of about 20K tasks and more). Fewer page faults and translation misses: a first decision cloning 100K tasks faults 216 times instead of 2,256 (rein's allocator starts every fresh block of 4 MB or more on a 2 MB boundary, so that the advice covers all of it but its tail). It takes effect where /sys/kernel/mm/transparent_hugepage/enabled is madvise or always; with never, nothing changes. false: the memory is used as the allocator gives it";
    "rein.log.copies-per-scan", "100", "[0, 1000000]", "-",
        "copies (speculate and clone actions) a scan logs one line each for, with its reason, in the ApplicationMaster's log; the scan's further copies are counted in one line, and their reasons are not formatted or sent across JNI. Kills (restart, veto, move) are always logged with their reason. The decision log keeps every action regardless, up to its bound (rein.decision-log.max-bytes)";
    "rein.never-copy.output-formats", "org.apache.hadoop.mapreduce.lib.db.DBOutputFormat, org.apache.hadoop.mapred.lib.db.DBOutputFormat, org.apache.hadoop.hbase.mapreduce.TableOutputFormat", "class names separated by commas", "-",
        "output formats with side effects: a job writing through one never gets a copy, restart or move of the tasks that write its output (its reduces, or its maps if it has none)";
    "rein.never-copy.committers", "(none)", "class names separated by commas", "-",
        "the same for output committers (the job's committer class, or its committer factory's)";
}

#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    pub key: String,
    pub value: String,
    pub allowed: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid value '{}' for {}: allowed {}", self.value, self.key, self.allowed)
    }
}

impl std::error::Error for ConfigError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyName {
    /// Cloning or detection per phase, by load regime (SCA/ESE §III-B).
    Auto,
    None,
    Late,
    Mantri,
    Dolly,
    Sca,
    Ese,
    /// A model of Hadoop's DefaultSpeculator, for the simulator.
    Hadoop,
    /// End-of-phase baselines of Mantri's evaluation.
    MapReduce,
    Dryad,
}

/// How a policy estimates an attempt's time left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EstimatorKind {
    /// LATE §4: (1 − score) / (score / elapsed).
    ProgressRate,
    /// LATE §4.2: per-phase rates, other tasks' averages for phases not reached.
    PhaseAware,
    /// Mantri §5.5: moving average of recent rates, no report ⇒ no progress, plus wrap-up.
    Mantri,
    /// Hadoop's exponentially smoothed progress rate.
    ExpSmoothing,
}

/// LATE's three parameters and the minimum run time (LATE §4).
#[derive(Clone, Debug, PartialEq)]
pub struct LateConfig {
    pub speculative_cap: f64,
    pub slow_task_threshold: f64,
    pub slow_node_threshold: f64,
    pub min_runtime_ms: i64,
    pub estimator: EstimatorKind,
    /// A task with no progress is judged after this many times its siblings' start-up; 0: at once.
    pub first_progress_factor: f64,
    /// ... or after this many times its siblings' (Kaplan–Meier) median run time.
    pub silent_runtime_factor: f64,
    /// SlowTaskThreshold over every started attempt (true) or only the judged ones (false).
    pub rate_pool_all: bool,
    /// SpeculativeCap at least the tasks running on slow nodes (§5.4.1 adaptation).
    pub cap_covers_slow_nodes: bool,
    /// GRASS §4's cost test on top of LATE's rule.
    pub grass: bool,
    /// No reduce is judged while maps of its job are unfinished (its shuffle waits on them).
    pub reduce_waits_for_maps: bool,
}

impl Default for LateConfig {
    fn default() -> Self {
        // LATE §4: "set the SpeculativeCap to 10% of available task slots and set the
        // SlowNodeThreshold and SlowTaskThreshold to the 25th percentile"; 1 minute minimum.
        LateConfig {
            speculative_cap: 0.1,
            slow_task_threshold: 0.25,
            slow_node_threshold: 0.25,
            min_runtime_ms: 60_000,
            estimator: EstimatorKind::ProgressRate,
            first_progress_factor: 1.5,
            silent_runtime_factor: 1.25,
            rate_pool_all: false,
            cap_covers_slow_nodes: true,
            grass: true,
            reduce_waits_for_maps: true,
        }
    }
}

/// Mantri's parameters (Mantri §5.1; digits restored from the slides).
#[derive(Clone, Debug, PartialEq)]
pub struct MantriConfig {
    pub delta_ms: i64,
    pub duplicate_threshold: f64,
    pub rho: f64,
    pub max_restarts: u32,
    pub max_copies: u32,
    pub recopy_after_ms: i64,
    pub estimator: EstimatorKind,
    /// Network-aware placement's moves per reduce at most (§5.2); 0 turns placement off.
    pub reduce_moves_per_task: u32,
    /// t_rem keeps extrapolating the attempt's own rate after its input is read (§5.5 adaptation).
    pub extrapolate_after_read: bool,
    /// `rein.mantri.min-window-ms`.
    pub min_window_ms: i64,
    /// t_new scales the whole run time, start-up included, by input bytes (§5.5 as printed).
    pub scale_startup: bool,
    /// A silent attempt must also be late to start against its siblings (0: off, §5.5 as printed).
    pub first_progress_factor: f64,
}

impl Default for MantriConfig {
    fn default() -> Self {
        MantriConfig {
            delta_ms: 10_000,
            duplicate_threshold: 0.25,
            rho: 3.0,
            max_restarts: 3,
            max_copies: 3,
            recopy_after_ms: 30_000,
            estimator: EstimatorKind::Mantri,
            reduce_moves_per_task: 2,
            extrapolate_after_read: true,
            min_window_ms: crate::estimate::MIN_WINDOW_MS,
            scale_startup: false,
            first_progress_factor: 1.5,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DollyMode {
    Task,
    Job,
}

/// Dolly's parameters (Dolly §3: ε = 0.05, τ = 70%).
#[derive(Clone, Debug, PartialEq)]
pub struct DollyConfig {
    pub mode: DollyMode,
    pub epsilon: f64,
    pub utilization_ceiling: f64,
    pub outlier_probability: f64,
    pub window_ms: i64,
    pub small_jobs_only: bool,
    pub small_job_tasks: u32,
    /// `rein.dolly.reactive`: the detecting policy beside the clones (Late or Mantri), if any.
    pub reactive: Option<PolicyName>,
    /// `rein.dolly.clone-reduces`.
    pub clone_reduces: bool,
}

impl Default for DollyConfig {
    fn default() -> Self {
        DollyConfig {
            mode: DollyMode::Task,
            epsilon: 0.05,
            utilization_ceiling: 0.7,
            // The paper gives no number; 0.1 makes its "≤ 5% chance of an outlier with three
            // replicas" hold for jobs of up to 50 tasks, as it reports for most jobs (§3.1).
            outlier_probability: 0.1,
            window_ms: 60_000,
            small_jobs_only: false,
            small_job_tasks: 10,
            reactive: Some(PolicyName::Late),
            clone_reduces: false,
        }
    }
}

/// SCA's parameters (Xu & Lau §IV: γ = 0.05, r = 8 in Fig. 1; Pareto α = 2).
#[derive(Clone, Debug, PartialEq)]
pub struct ScaConfig {
    pub gamma: f64,
    pub max_copies: u32,
    pub pareto_alpha: f64,
    pub fit_min_samples: u32,
    /// `rein.sca.reactive`: ESE beside the clones, or nothing.
    pub reactive: Option<PolicyName>,
    /// `rein.sca.clone-reduces`.
    pub clone_reduces: bool,
}

impl Default for ScaConfig {
    fn default() -> Self {
        ScaConfig {
            gamma: 0.05,
            max_copies: 8,
            pareto_alpha: 2.0,
            fit_min_samples: 5,
            reactive: Some(PolicyName::Ese),
            clone_reduces: false,
        }
    }
}

/// ESE's parameters (Xu & Lau §V). η and ξ are left to the operator by the paper.
#[derive(Clone, Debug, PartialEq)]
pub struct EseConfig {
    /// `None`: σ* from Eq. 22–25 for the fitted tail index.
    pub sigma: Option<f64>,
    pub eta: f64,
    pub xi_ms: i64,
    pub expected_task_ms: Option<i64>,
    /// Decide small-job cloning of tasks started before E[x] was known once it is (rein).
    pub prior_from_siblings: bool,
    /// Back up a silent attempt only once it is late to start (rein).
    pub wait_for_first_progress: bool,
    pub estimator: EstimatorKind,
}

impl Default for EseConfig {
    fn default() -> Self {
        EseConfig {
            sigma: None,
            eta: 1.0,
            xi_ms: 60_000,
            expected_task_ms: None,
            prior_from_siblings: true,
            wait_for_first_progress: true,
            estimator: EstimatorKind::Mantri,
        }
    }
}

/// Hadoop's DefaultSpeculator defaults (`mapreduce.job.speculative.*`).
#[derive(Clone, Debug, PartialEq)]
pub struct HadoopConfig {
    pub cap_running_tasks: f64,
    pub cap_total_tasks: f64,
    pub minimum_allowed_tasks: u32,
    pub retry_after_speculate_ms: i64,
}

impl Default for HadoopConfig {
    fn default() -> Self {
        HadoopConfig {
            cap_running_tasks: 0.1,
            cap_total_tasks: 0.01,
            minimum_allowed_tasks: 10,
            retry_after_speculate_ms: 15_000,
        }
    }
}

/// Where a test asks the engine to panic (`rein.test.panic-on`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PanicOn {
    Never,
    Event,
    Decide,
}

/// The end-of-phase baselines' thresholds (digits lost in the Mantri text: rein's choice).
#[derive(Clone, Debug, PartialEq)]
pub struct BaselineConfig {
    pub mapreduce_finished_fraction: f64,
    pub dryad_percentile: f64,
}

impl Default for BaselineConfig {
    fn default() -> Self {
        BaselineConfig { mapreduce_finished_fraction: 0.9, dryad_percentile: 0.95 }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub policy: PolicyName,
    /// `rein.auto.cutoff`: the light/heavy load cutoff ω^U, or None to solve it (SCA §III-B).
    pub auto_cutoff: Option<f64>,
    /// `rein.auto.clone-reduces`: auto clones reduces under light load too.
    pub auto_clone_reduces: bool,
    /// `rein.auto.max-copies`: the most running attempts of a task auto's detection makes.
    pub auto_max_copies: u32,
    /// `rein.grass.startup-ms`: a copy's start-up cost before the job has measured one.
    pub grass_startup_ms: i64,
    /// `rein.slow-node.copy-reduces`: auto and the cloning policies' detecting partner copy a
    /// reduce on a node the job has named slow at once.
    pub slow_node_copy_reduces: bool,
    pub panic_on: PanicOn,
    pub slots: Option<u32>,
    pub busy_slots: u32,
    pub smoothing_lambda_ms: i64,
    pub late: LateConfig,
    pub mantri: MantriConfig,
    pub dolly: DollyConfig,
    /// SCA's parameters; ESE's small-job cloning (Eq. 21) uses the same utility and distribution.
    pub sca: ScaConfig,
    pub ese: EseConfig,
    pub hadoop: HadoopConfig,
    pub baselines: BaselineConfig,
    /// Vetoes per task at most (`rein.veto.max-per-task`); 0 turns the veto loop off.
    pub veto_max_per_task: u32,
    /// Whether a veto for an avoided node also blocks that node for the job (`rein.veto.block-node`).
    pub veto_block_node: bool,
    /// Racks given in the configuration (`rein.topology.racks`), overriding the reported ones.
    pub topology: Topology,
    /// Hadoop's `mapreduce.map.speculative` and `mapreduce.reduce.speculative`: the engine sees
    /// every task, but copies, restarts and moves only tasks of a kind whose switch is on.
    pub speculate_maps: bool,
    pub speculate_reduces: bool,
    /// `rein.mode=shadow`: nothing the engine asks for is carried out; the ledger scores it.
    pub shadow: bool,
    /// Whether the engine keeps the decision log's records (the key is set and not `off`).
    pub decision_log: bool,
    /// The decision log's size bound in bytes (`rein.decision-log.max-bytes`): the engine stops
    /// making decision and outcome records once they would pass it (`ledger::Ledger`).
    pub decision_log_max_bytes: u64,
    /// `rein.memory.huge-pages`: a big job's blocks advised for transparent huge pages
    /// (`memory::reserve_exact`).
    pub huge_pages: bool,
    /// Copies per decision whose reason the ApplicationMaster logs (`rein.log.copies-per-scan`).
    pub log_copies_per_scan: u32,
    /// Copies of stragglers one decision asks for at most (`rein.max-copies-per-scan`); 0: no bound.
    pub max_copies_per_scan: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            policy: PolicyName::Auto,
            auto_cutoff: None,
            auto_clone_reduces: false,
            auto_max_copies: 3,
            grass_startup_ms: 10_000,
            slow_node_copy_reduces: true,
            panic_on: PanicOn::Never,
            slots: None,
            busy_slots: 0,
            smoothing_lambda_ms: 60_000,
            late: LateConfig::default(),
            mantri: MantriConfig::default(),
            dolly: DollyConfig::default(),
            sca: ScaConfig::default(),
            ese: EseConfig::default(),
            hadoop: HadoopConfig::default(),
            baselines: BaselineConfig::default(),
            veto_max_per_task: 2,
            veto_block_node: false,
            topology: Topology::default(),
            speculate_maps: true,
            speculate_reduces: true,
            shadow: false,
            decision_log: false,
            decision_log_max_bytes: 16 << 20,
            huge_pages: true,
            log_copies_per_scan: 100,
            max_copies_per_scan: 1000,
        }
    }
}

impl Config {
    /// Whether an estimator the configuration names reads an attempt's exponentially smoothed
    /// rate (`exp-smoothing`, `rein.estimator.smoothing-lambda-ms`): only then do progress reports
    /// keep it up to date (an exponential and two divisions a report otherwise spent for nothing).
    pub fn uses_smoothed_rate(&self) -> bool {
        [self.late.estimator, self.mantri.estimator, self.ese.estimator].contains(&EstimatorKind::ExpSmoothing)
    }

    /// Whether Hadoop's switch lets the engine act on tasks of this kind.
    pub fn speculates(&self, kind: TaskKind) -> bool {
        match kind {
            TaskKind::Map => self.speculate_maps,
            TaskKind::Reduce => self.speculate_reduces,
        }
    }
}

/// A parsed configuration and the warnings about keys it did not know.
#[derive(Debug)]
pub struct Parsed {
    pub config: Config,
    pub warnings: Vec<String>,
}

impl Config {
    /// Reads `rein.*` pairs; keys outside `rein.` are ignored, unknown `rein.*` keys warned about.
    pub fn from_pairs<'a, I>(pairs: I) -> Result<Parsed, ConfigError>
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let mut c = Config::default();
        let mut warnings = Vec::new();
        // Hadoop's own DefaultSpeculator keys, applied to the hadoop model unless a
        // rein.hadoop.* key says otherwise.
        let mut stock: Vec<(&str, &str)> = Vec::new();
        let mut own_hadoop: Vec<&str> = Vec::new();
        for (key, raw) in pairs {
            if key.starts_with(HADOOP_SPECULATIVE_PREFIX) {
                stock.push((key, raw));
                continue;
            }
            if key.starts_with("rein.hadoop.") {
                own_hadoop.push(key);
            }
            if key == HADOOP_MAP_SPECULATIVE || key == HADOOP_REDUCE_SPECULATIVE {
                let on = hadoop_boolean(key, raw)?;
                if key == HADOOP_MAP_SPECULATIVE {
                    c.speculate_maps = on;
                } else {
                    c.speculate_reduces = on;
                }
                continue;
            }
            if !key.starts_with("rein.") {
                continue;
            }
            let v = Value { key, raw, text: raw.trim() };
            match key {
                "rein.policy" => {
                    c.policy = match v.text {
                        "auto" => PolicyName::Auto,
                        "none" => PolicyName::None,
                        "late" => PolicyName::Late,
                        "mantri" => PolicyName::Mantri,
                        "dolly" => PolicyName::Dolly,
                        "sca" => PolicyName::Sca,
                        "ese" => PolicyName::Ese,
                        "hadoop" => PolicyName::Hadoop,
                        "mapreduce" => PolicyName::MapReduce,
                        "dryad" => PolicyName::Dryad,
                        _ => return Err(v.error()),
                    }
                }
                "rein.test.panic-on" => {
                    c.panic_on = match v.text {
                        "none" => PanicOn::Never,
                        "event" => PanicOn::Event,
                        "decide" => PanicOn::Decide,
                        _ => return Err(v.error()),
                    }
                }
                "rein.cluster.slots" => c.slots = Some(v.int(1, 10_000_000)? as u32),
                "rein.cluster.busy-slots" => c.busy_slots = v.int(0, 10_000_000)? as u32,
                "rein.estimator.smoothing-lambda-ms" => c.smoothing_lambda_ms = v.int(1, 86_400_000)?,
                "rein.late.speculative-cap" => c.late.speculative_cap = v.real(|x| x > 0.0 && x <= 1.0)?,
                "rein.late.slow-task-threshold" => c.late.slow_task_threshold = v.real(unit)?,
                "rein.late.slow-node-threshold" => c.late.slow_node_threshold = v.real(unit)?,
                "rein.late.min-runtime-ms" => c.late.min_runtime_ms = v.int(0, 86_400_000)?,
                "rein.late.estimator" => c.late.estimator = v.estimator()?,
                "rein.late.first-progress-factor" => {
                    c.late.first_progress_factor = v.real(|x| (0.0..=100.0).contains(&x))?
                }
                "rein.late.silent-runtime-factor" => {
                    c.late.silent_runtime_factor = v.real(|x| (0.0..=100.0).contains(&x))?
                }
                "rein.late.rate-pool" => {
                    c.late.rate_pool_all = match v.text {
                        "judged" => false,
                        "all" => true,
                        _ => return Err(v.error()),
                    }
                }
                "rein.late.cap-covers-slow-nodes" => c.late.cap_covers_slow_nodes = v.boolean()?,
                "rein.late.grass" => c.late.grass = v.boolean()?,
                "rein.late.reduce-waits-for-maps" => c.late.reduce_waits_for_maps = v.boolean()?,
                "rein.grass.startup-ms" => c.grass_startup_ms = v.int(0, 3_600_000)?,
                "rein.auto.clone-reduces" => c.auto_clone_reduces = v.boolean()?,
                "rein.auto.max-copies" => c.auto_max_copies = v.int(2, 16)? as u32,
                "rein.slow-node.copy-reduces" => c.slow_node_copy_reduces = v.boolean()?,
                "rein.auto.cutoff" => {
                    c.auto_cutoff = if v.text == "auto" { None } else { Some(v.real(|x| x > 0.0 && x <= 1.0)?) }
                }
                "rein.mantri.delta-ms" => c.mantri.delta_ms = v.int(100, 3_600_000)?,
                "rein.mantri.duplicate-threshold" => c.mantri.duplicate_threshold = v.real(open_unit)?,
                "rein.mantri.rho" => c.mantri.rho = v.real(|x| (0.0..=1000.0).contains(&x))?,
                "rein.mantri.max-restarts" => c.mantri.max_restarts = v.int(0, 100)? as u32,
                "rein.mantri.max-copies" => c.mantri.max_copies = v.int(2, 16)? as u32,
                "rein.mantri.recopy-after-ms" => c.mantri.recopy_after_ms = v.int(0, 86_400_000)?,
                "rein.mantri.estimator" => c.mantri.estimator = v.estimator()?,
                "rein.mantri.extrapolate-after-read" => c.mantri.extrapolate_after_read = v.boolean()?,
                "rein.mantri.min-window-ms" => c.mantri.min_window_ms = v.int(0, 3_600_000)?,
                "rein.mantri.scale-startup" => c.mantri.scale_startup = v.boolean()?,
                "rein.mantri.first-progress-factor" => {
                    c.mantri.first_progress_factor = v.real(|x| (0.0..=100.0).contains(&x))?
                }
                "rein.dolly.mode" => {
                    c.dolly.mode = match v.text {
                        "task" => DollyMode::Task,
                        "job" => DollyMode::Job,
                        _ => return Err(v.error()),
                    }
                }
                "rein.dolly.epsilon" => c.dolly.epsilon = v.real(open_unit)?,
                "rein.dolly.utilization-ceiling" => {
                    c.dolly.utilization_ceiling = v.real(|x| x > 0.0 && x <= 1.0)?
                }
                "rein.dolly.outlier-probability" => c.dolly.outlier_probability = v.real(open_unit)?,
                "rein.dolly.window-ms" => c.dolly.window_ms = v.int(1000, 86_400_000)?,
                "rein.dolly.small-jobs-only" => c.dolly.small_jobs_only = v.boolean()?,
                "rein.dolly.small-job-tasks" => c.dolly.small_job_tasks = v.int(1, 1_000_000)? as u32,
                "rein.sca.gamma" => c.sca.gamma = v.real(|x| (0.0..=1000.0).contains(&x))?,
                "rein.sca.max-copies" => c.sca.max_copies = v.int(1, 64)? as u32,
                "rein.sca.pareto-alpha" => c.sca.pareto_alpha = v.real(|x| x > 1.0 && x <= 100.0)?,
                "rein.sca.fit-min-samples" => c.sca.fit_min_samples = v.int(2, 100_000)? as u32,
                "rein.sca.clone-reduces" => c.sca.clone_reduces = v.boolean()?,
                "rein.sca.reactive" => {
                    c.sca.reactive = match v.text {
                        "ese" => Some(PolicyName::Ese),
                        "none" => None,
                        _ => return Err(v.error()),
                    }
                }
                "rein.dolly.clone-reduces" => c.dolly.clone_reduces = v.boolean()?,
                "rein.dolly.reactive" => {
                    c.dolly.reactive = match v.text {
                        "late" => Some(PolicyName::Late),
                        "mantri" => Some(PolicyName::Mantri),
                        "none" => None,
                        _ => return Err(v.error()),
                    }
                }
                "rein.ese.sigma" => {
                    c.ese.sigma = if v.text == "auto" { None } else { Some(v.real(|x| x > 0.0 && x <= 100.0)?) }
                }
                "rein.ese.eta" => c.ese.eta = v.real(|x| x > 0.0 && x <= 1000.0)?,
                "rein.ese.xi-ms" => c.ese.xi_ms = v.int(1, 86_400_000)?,
                "rein.ese.expected-task-ms" => c.ese.expected_task_ms = Some(v.int(1, 86_400_000)?),
                "rein.ese.estimator" => c.ese.estimator = v.estimator()?,
                "rein.ese.prior-from-siblings" => c.ese.prior_from_siblings = v.boolean()?,
                "rein.ese.wait-for-first-progress" => c.ese.wait_for_first_progress = v.boolean()?,
                "rein.hadoop.cap-running-tasks" => c.hadoop.cap_running_tasks = v.real(unit)?,
                "rein.hadoop.cap-total-tasks" => c.hadoop.cap_total_tasks = v.real(unit)?,
                "rein.hadoop.minimum-allowed-tasks" => c.hadoop.minimum_allowed_tasks = v.int(0, 1_000_000)? as u32,
                "rein.mapreduce.finished-fraction" => {
                    c.baselines.mapreduce_finished_fraction = v.real(|x| x > 0.0 && x <= 1.0)?
                }
                "rein.dryad.percentile" => c.baselines.dryad_percentile = v.real(unit)?,
                "rein.hadoop.retry-after-speculate-ms" => c.hadoop.retry_after_speculate_ms = v.int(0, 86_400_000)?,
                "rein.veto.max-per-task" => c.veto_max_per_task = v.int(0, 10)? as u32,
                "rein.veto.block-node" => c.veto_block_node = v.boolean()?,
                "rein.mantri.reduce-moves-per-task" => c.mantri.reduce_moves_per_task = v.int(0, 10)? as u32,
                "rein.topology.racks" => {
                    c.topology = Topology::parse(v.text).map_err(|why| {
                        let mut err = v.error();
                        err.allowed = format!("{} ({why})", err.allowed);
                        err
                    })?
                }
                "rein.mode" => {
                    c.shadow = match v.text {
                        "act" => false,
                        "shadow" => true,
                        _ => return Err(v.error()),
                    }
                }
                "rein.decision-log" => c.decision_log = !matches!(v.text, "off" | "false" | "none" | ""),
                "rein.decision-log.max-bytes" => c.decision_log_max_bytes = v.int(4096, 1 << 30)? as u64,
                "rein.memory.huge-pages" => c.huge_pages = v.boolean()?,
                "rein.log.copies-per-scan" => c.log_copies_per_scan = v.int(0, 1_000_000)? as u32,
                "rein.max-copies-per-scan" => c.max_copies_per_scan = v.int(0, 100_000_000)? as u32,
                _ if KEYS.iter().any(|k| k.key == key) => {}
                _ => warnings.push(format!("unknown key {key} (value '{raw}') is ignored")),
            }
        }
        for (key, raw) in stock {
            let Some(&(_, own)) = STOCK_KEYS.iter().find(|(k, _)| *k == key) else { continue };
            if own_hadoop.contains(&own) {
                continue;
            }
            let bad = || ConfigError { key: key.to_owned(), value: raw.to_owned(), allowed: "a number".to_owned() };
            let x: f64 = raw.trim().parse().ok().filter(|x: &f64| x.is_finite() && *x >= 0.0).ok_or_else(bad)?;
            match own {
                "rein.hadoop.cap-running-tasks" => c.hadoop.cap_running_tasks = x.min(1.0),
                "rein.hadoop.cap-total-tasks" => c.hadoop.cap_total_tasks = x.min(1.0),
                "rein.hadoop.minimum-allowed-tasks" => c.hadoop.minimum_allowed_tasks = x.min(1e6) as u32,
                _ => c.hadoop.retry_after_speculate_ms = x.min(86_400_000.0) as i64,
            }
        }
        Ok(Parsed { config: c, warnings })
    }
}

/// Hadoop's own per-kind speculation switches, which the shim passes with the `rein.*` keys.
pub const HADOOP_MAP_SPECULATIVE: &str = "mapreduce.map.speculative";
pub const HADOOP_REDUCE_SPECULATIVE: &str = "mapreduce.reduce.speculative";
/// Hadoop's DefaultSpeculator keys (`MRJobConfig.SPECULATIVE_*`).
pub const HADOOP_SPECULATIVE_PREFIX: &str = "mapreduce.job.speculative.";

/// The DefaultSpeculator keys the hadoop model honours, and the rein.hadoop.* key each sets.
/// `retry-after-no-speculate` and `slowtaskthreshold` have no counterpart in the model.
pub const STOCK_KEYS: [(&str, &str); 4] = [
    ("mapreduce.job.speculative.speculative-cap-running-tasks", "rein.hadoop.cap-running-tasks"),
    ("mapreduce.job.speculative.speculative-cap-total-tasks", "rein.hadoop.cap-total-tasks"),
    ("mapreduce.job.speculative.minimum-allowed-tasks", "rein.hadoop.minimum-allowed-tasks"),
    ("mapreduce.job.speculative.retry-after-speculate", "rein.hadoop.retry-after-speculate-ms"),
];

/// A boolean as Hadoop's `Configuration.getBoolean` reads one: `true` or `false`, any case.
fn hadoop_boolean(key: &str, raw: &str) -> Result<bool, ConfigError> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ConfigError { key: key.to_owned(), value: raw.to_owned(), allowed: "true | false".to_owned() }),
    }
}

fn unit(x: f64) -> bool {
    (0.0..=1.0).contains(&x)
}

fn open_unit(x: f64) -> bool {
    x > 0.0 && x < 1.0
}

/// One raw value being parsed, with what an error about it must say.
struct Value<'a> {
    key: &'a str,
    raw: &'a str,
    text: &'a str,
}

impl Value<'_> {
    fn error(&self) -> ConfigError {
        let allowed = KEYS.iter().find(|k| k.key == self.key).expect("every parsed key is in KEYS").allowed;
        ConfigError { key: self.key.to_owned(), value: self.raw.to_owned(), allowed: allowed.to_owned() }
    }

    fn real(&self, ok: impl Fn(f64) -> bool) -> Result<f64, ConfigError> {
        match self.text.parse::<f64>() {
            Ok(x) if x.is_finite() && ok(x) => Ok(x),
            _ => Err(self.error()),
        }
    }

    fn int(&self, lo: i64, hi: i64) -> Result<i64, ConfigError> {
        match self.text.parse::<i64>() {
            Ok(x) if (lo..=hi).contains(&x) => Ok(x),
            _ => Err(self.error()),
        }
    }

    fn boolean(&self) -> Result<bool, ConfigError> {
        match self.text {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.error()),
        }
    }

    fn estimator(&self) -> Result<EstimatorKind, ConfigError> {
        Ok(match self.text {
            "progress-rate" => EstimatorKind::ProgressRate,
            "phase-aware" => EstimatorKind::PhaseAware,
            "mantri" => EstimatorKind::Mantri,
            "exp-smoothing" => EstimatorKind::ExpSmoothing,
            _ => return Err(self.error()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> Result<Parsed, ConfigError> {
        Config::from_pairs(pairs.iter().copied())
    }

    #[test]
    fn defaults_are_the_papers() {
        let c = parse(&[]).unwrap().config;
        assert_eq!(c.policy, PolicyName::Auto);
        assert_eq!((c.late.speculative_cap, c.late.slow_task_threshold, c.late.min_runtime_ms), (0.1, 0.25, 60_000));
        let m = &c.mantri;
        assert_eq!((m.delta_ms, m.duplicate_threshold, m.rho, m.max_restarts, m.max_copies), (10_000, 0.25, 3.0, 3, 3));
        assert_eq!((c.dolly.epsilon, c.dolly.utilization_ceiling), (0.05, 0.7));
        assert_eq!((c.sca.gamma, c.sca.max_copies, c.sca.pareto_alpha), (0.05, 8, 2.0));
        assert_eq!(c.ese.sigma, None);
        assert_eq!(c.veto_max_per_task, 2);
        assert!(c.huge_pages, "a big job's blocks are advised for huge pages unless turned off");
        assert!(!parse(&[("rein.memory.huge-pages", "false")]).unwrap().config.huge_pages);
    }

    /// Bad values for every key the engine reads, each rejected naming key, value and range.
    #[test]
    fn every_key_rejects_bad_values_naming_key_value_and_range() {
        let bad: &[(&str, &[&str])] = &[
            ("rein.policy", &["fast", "LATE", ""]),
            ("rein.cluster.slots", &["0", "-3", "2.5", "many"]),
            ("rein.cluster.busy-slots", &["-1", "x"]),
            ("rein.estimator.smoothing-lambda-ms", &["0", "NaN"]),
            ("rein.late.speculative-cap", &["0", "-0.1", "1.5", "NaN", "inf", "ten", ""]),
            ("rein.late.slow-task-threshold", &["-0.01", "1.01", "NaN", "x"]),
            ("rein.late.slow-node-threshold", &["-1", "2", "NaN"]),
            ("rein.late.min-runtime-ms", &["-1", "1.5", "86400001", "soon"]),
            ("rein.late.estimator", &["magic", ""]),
            ("rein.late.first-progress-factor", &["-1", "101", "NaN"]),
            ("rein.late.rate-pool", &["running", ""]),
            ("rein.late.cap-covers-slow-nodes", &["yes"]),
            ("rein.late.grass", &["1"]),
            ("rein.late.reduce-waits-for-maps", &["yes"]),
            ("rein.grass.startup-ms", &["-1", "3600001", "5s"]),
            ("rein.auto.cutoff", &["0", "1.5", "Auto", "NaN"]),
            ("rein.auto.max-copies", &["1", "17", "x"]),
            ("rein.ese.prior-from-siblings", &["no"]),
            ("rein.mantri.delta-ms", &["99", "-10", "x"]),
            ("rein.mantri.duplicate-threshold", &["0", "1", "NaN"]),
            ("rein.mantri.rho", &["-1", "1001", "NaN"]),
            ("rein.mantri.max-restarts", &["-1", "101"]),
            ("rein.mantri.max-copies", &["1", "17"]),
            ("rein.mantri.recopy-after-ms", &["-5"]),
            ("rein.mantri.estimator", &["hadoop"]),
            ("rein.mantri.extrapolate-after-read", &["yes", "1"]),
            ("rein.mantri.min-window-ms", &["-1", "3600001", "x"]),
            ("rein.mantri.scale-startup", &["yes", "1"]),
            ("rein.mantri.first-progress-factor", &["-1", "101", "NaN"]),
            ("rein.dolly.mode", &["both"]),
            ("rein.dolly.epsilon", &["0", "1", "-0.5"]),
            ("rein.dolly.utilization-ceiling", &["0", "1.01"]),
            ("rein.dolly.outlier-probability", &["0", "1"]),
            ("rein.dolly.window-ms", &["999"]),
            ("rein.dolly.small-jobs-only", &["yes", "1"]),
            ("rein.dolly.small-job-tasks", &["0"]),
            ("rein.sca.gamma", &["-0.01", "NaN"]),
            ("rein.sca.max-copies", &["0", "65"]),
            ("rein.sca.pareto-alpha", &["1", "0.5", "101"]),
            ("rein.sca.fit-min-samples", &["1"]),
            ("rein.sca.reactive", &["late", ""]),
            ("rein.sca.clone-reduces", &["yes"]),
            ("rein.dolly.reactive", &["ese", "LATE"]),
            ("rein.dolly.clone-reduces", &["no"]),
            ("rein.slow-node.copy-reduces", &["on"]),
            ("rein.ese.sigma", &["0", "-1", "Auto", "101"]),
            ("rein.ese.eta", &["0", "1001"]),
            ("rein.ese.xi-ms", &["0"]),
            ("rein.ese.expected-task-ms", &["0", "auto"]),
            ("rein.ese.estimator", &["fast"]),
            ("rein.hadoop.cap-running-tasks", &["-0.1", "1.1"]),
            ("rein.hadoop.cap-total-tasks", &["2"]),
            ("rein.hadoop.minimum-allowed-tasks", &["-1"]),
            ("rein.hadoop.retry-after-speculate-ms", &["-1", "x"]),
            ("rein.test.panic-on", &["always"]),
            ("rein.mapreduce.finished-fraction", &["0", "1.5"]),
            ("rein.dryad.percentile", &["-0.1", "2"]),
            ("rein.veto.max-per-task", &["-1", "11", "1.5", "off"]),
            ("rein.mantri.reduce-moves-per-task", &["-1", "11", "two"]),
            ("rein.topology.racks", &["localhost:1", "a=/r,b", "a=/r a=/s"]),
            ("rein.mode", &["shadows", ""]),
            ("rein.log.copies-per-scan", &["-1", "1000001", "all"]),
            ("rein.max-copies-per-scan", &["-1", "100000001", "none"]),
            ("rein.memory.huge-pages", &["yes", "1"]),
        ];
        for (key, values) in bad {
            for value in *values {
                let err = parse(&[(key, value)]).unwrap_err();
                assert_eq!((err.key.as_str(), err.value.as_str()), (*key, *value));
                let allowed = KEYS.iter().find(|k| k.key == *key).unwrap().allowed;
                let text = err.to_string();
                assert!(text.contains(key) && text.contains(allowed) && text.contains(&format!("'{value}'")), "{text}");
            }
        }
    }

    #[test]
    fn good_values_are_taken_and_whitespace_trimmed() {
        let c = parse(&[
            ("rein.policy", " mantri "),
            ("rein.late.speculative-cap", "1"),
            ("rein.late.estimator", "phase-aware"),
            ("rein.cluster.slots", "12"),
            ("rein.mantri.delta-ms", "2000"),
            ("rein.dolly.mode", "job"),
            ("rein.dolly.small-jobs-only", "true"),
            ("rein.ese.sigma", "1.5"),
        ])
        .unwrap()
        .config;
        assert_eq!(c.policy, PolicyName::Mantri);
        assert_eq!(c.late.speculative_cap, 1.0);
        assert_eq!(c.late.estimator, EstimatorKind::PhaseAware);
        assert_eq!(c.slots, Some(12));
        assert_eq!(c.mantri.delta_ms, 2000);
        assert_eq!(c.dolly.mode, DollyMode::Job);
        assert!(c.dolly.small_jobs_only);
        assert_eq!(c.ese.sigma, Some(1.5));
    }

    #[test]
    fn unknown_rein_keys_warn_and_foreign_keys_are_ignored() {
        let p = parse(&[
            ("rein.late.speculativecap", "0.2"),
            ("mapreduce.map.speculative", "true"),
            ("rein.fallback", "none"),
        ])
        .unwrap();
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].contains("rein.late.speculativecap"));
    }

    #[test]
    fn the_hadoop_model_honours_defaultspeculators_keys_unless_rein_hadoop_keys_say_otherwise() {
        let c = parse(&[
            ("mapreduce.job.speculative.speculative-cap-running-tasks", "0.2"),
            ("mapreduce.job.speculative.minimum-allowed-tasks", "3"),
            ("mapreduce.job.speculative.retry-after-speculate", "5000"),
            ("mapreduce.job.speculative.speculative-cap-total-tasks", "0.05"),
            ("rein.hadoop.cap-total-tasks", "0.02"),
            ("mapreduce.job.speculative.slowtaskthreshold", "1.0"),
        ])
        .unwrap();
        assert!(c.warnings.is_empty());
        let h = &c.config.hadoop;
        assert_eq!((h.cap_running_tasks, h.cap_total_tasks, h.minimum_allowed_tasks, h.retry_after_speculate_ms), (0.2, 0.02, 3, 5000));
        let err = parse(&[("mapreduce.job.speculative.minimum-allowed-tasks", "ten")]).unwrap_err();
        assert_eq!(err.key, "mapreduce.job.speculative.minimum-allowed-tasks");
    }

    #[test]
    fn mode_and_decision_log() {
        let c = parse(&[("rein.mode", "shadow"), ("rein.decision-log", "auto")]).unwrap().config;
        assert!(c.shadow && c.decision_log);
        let c = parse(&[("rein.decision-log", "off")]).unwrap().config;
        assert!(!c.shadow && !c.decision_log);
        assert!(!parse(&[]).unwrap().config.decision_log, "off unless the caller asks (the simulator does not)");
    }
}
