//! The discrete-event loop: job arrivals, a cluster-wide FIFO scheduler, attempts that run on
//! nodes, and one `rein_core::Engine` per job fed only what an ApplicationMaster would see.
//!
//! What the engine is told: the job's task counts and map split sizes, container needs (±1 when a
//! task starts or stops waiting for a slot), attempt starts with node `n{idx}:1` and rack `/r{k}`,
//! progress reports every Δ, attempt ends, and the cluster's total and free slots. It never sees a
//! node's speed, an attempt's drawn duration or the outlier processes.
//!
//! Simplifications, on purpose:
//! - Reduces ask for slots only when every map has finished (the barrier, without slow-start).
//! - Scheduling is FIFO across jobs by arrival (or smallest workload first). Whether a free slot
//!   goes to a waiting first attempt (or a replacement) or to a policy's copy first is the policy's
//!   queue discipline (`CopyQueue`): Hadoop and LATE serve first attempts first (LATE §2.1); ESE
//!   (Algorithm 2) and Mantri (Pseudocode 1) give the slot to the copy.
//! - A copy the engine asks for waits in the copy queue until a slot frees; a copy whose task has
//!   finished by then is dropped silently (the engine no longer cares about that task).
//! - Killing an attempt of an unfinished task (Restart, Veto) queues a replacement, as Hadoop does;
//!   the replacement of a vetoed copy is placed like any other attempt, and may be vetoed again.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};
use std::sync::Arc;

use rein_core::policy::OutlierLearner;
use rein_core::{Action, Engine, Event, Millis, Outcome, Phase, PolicyName, TaskId};

use crate::cluster::Plan;
use crate::rng::Rng;
use crate::scenario::{CopyQueue, Placement, PolicySpec, Scenario, Scheduler};
use crate::workload::TaskSpec;

/// Why an attempt exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Origin {
    /// Hadoop's own attempt: the first one, or a replacement after a kill or a loss.
    First,
    /// A policy's speculative copy (Action::Speculate).
    Copy,
    /// A policy's clone (Action::Clone).
    Clone,
}

/// One job's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct JobRecord {
    pub submit_ms: Millis,
    pub finish_ms: Millis,
    pub tasks: u32,
    pub container_ms: i64,
    pub wasted_ms: i64,
    /// When the reduce phase became runnable (every map finished); None for a map-only job.
    pub reduces_at: Option<Millis>,
}

impl JobRecord {
    pub fn seconds(&self) -> f64 {
        (self.finish_ms - self.submit_ms) as f64 / 1000.0
    }

    /// The reduce phase's completion time, from the moment its reduces could start to the job's
    /// end (Mantri §6.3 measures reduce phases, not jobs).
    pub fn reduce_phase_seconds(&self) -> Option<f64> {
        self.reduces_at.map(|at| (self.finish_ms - at) as f64 / 1000.0)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counters {
    pub attempts: u64,
    pub speculative_launched: u64,
    pub speculative_won: u64,
    pub clones: u64,
    pub clones_won: u64,
    pub restarts: u64,
    pub vetoes: u64,
    /// Reduces Mantri's network-aware placement killed to have them placed again (§5.2).
    pub moves: u64,
    pub copies_dropped: u64,
    pub nodes_lost: u64,
    pub maps_recomputed: u64,
    /// Map outputs replicated by Mantri §5.3's cost-benefit check.
    pub outputs_replicated: u64,
    /// Clones killed because cluster utilisation passed Dolly's ceiling τ (Dolly §3.3).
    pub clones_yielded: u64,
    /// Copies Mantri's Pseudocode 1 line 3 pruned (slower than the task's second fastest).
    pub copies_pruned: u64,
}

#[derive(Clone, Debug)]
pub struct RunResult {
    pub jobs: Vec<JobRecord>,
    pub counters: Counters,
    /// Events popped from the simulator's queue.
    pub sim_events: u64,
    /// Events fed to the engines.
    pub engine_events: u64,
    /// `decide` calls.
    pub decisions: u64,
    pub end_ms: Millis,
}

struct Attempt {
    job: u32,
    task: u32,
    n: u32,
    node: u32,
    plan: Plan,
    origin: Origin,
    generation: u32,
    live: bool,
    /// A reduce that finished its work while a lost map output was being recomputed.
    held: bool,
}

#[derive(Clone, Default)]
struct TaskRun {
    done: bool,
    next_n: u32,
    /// First-attempt requests queued for this task (so stale queue entries can be skipped).
    waiting: u32,
    /// The node holding a finished map's output.
    output_node: Option<u32>,
    /// When a replica of that output on another machine of the rack was complete (Mantri §5.3).
    replica_at: Option<Millis>,
}

struct JobRun {
    engine: Option<Engine>,
    maps: u32,
    tasks: Vec<TaskRun>,
    maps_left: u32,
    reduces_left: u32,
    reduces_released: bool,
    running: Vec<u32>,
    report_ms: Millis,
    last_decide: Millis,
    decide_pending: bool,
    priority: u64,
    container_ms: i64,
    wasted_ms: i64,
    finished: bool,
    /// This job's speculative copies running or queued.
    copies_live: u32,
    /// Machines that died holding map outputs this job still needs, and when, until the job
    /// finds out (a fetch failure, or the ResourceManager declaring the node lost).
    lost: Vec<(u32, Millis)>,
    /// Mantri §5.3's replication budget, in bytes: 10% of the data the job's tasks processed.
    tokens: f64,
    /// When the reduces were released.
    reduces_at: Option<Millis>,
    /// Run times of the job's succeeded first-finishing attempts, in ms, per kind (kept only when
    /// the cluster learns the task-time tail for SCA/ESE).
    durations: [Vec<(f64, bool)>; 2],
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Arrive(u32),
    End { slot: u32, generation: u32 },
    Tick(u32),
    /// A decision after attempts ended, coalesced to one per scan interval.
    Decide(u32),
    /// A machine dies: its attempts freeze, its disks are gone.
    NodeLost(u32),
    /// A job's reduces have failed to fetch from a dead machine often enough for the AM to
    /// declare the map outputs there lost.
    FetchFailure { job: u32, node: u32 },
    /// The ResourceManager declares a silent machine lost.
    Expire(u32),
}

/// The ResourceManager declares a NodeManager lost after this long without a heartbeat
/// (`yarn.nm.liveness-monitor.expiry-interval-ms`); until then its attempts are only silent.
const NM_EXPIRY_MS: Millis = 600_000;
/// From a reduce's first fetch from a dead machine to the AM declaring the map output lost: three
/// fetch-failure notifications (MRJobConfig's MAX_FETCH_FAILURES_NOTIFICATIONS) from fetchers
/// retrying about every 10 s.
const FETCH_DETECT_MS: Millis = 30_000;
/// Mantri §5.3's t_rep: a copy of the output to another machine of the rack at 1 Gbit/s.
const REPLICA_BYTES_PER_MS: f64 = 125_000.0;
/// The prior of the machine loss rate before any loss is seen: one per 1,000 machine-hours.
const PRIOR_MACHINE_MS_PER_LOSS: f64 = 1000.0 * 3_600_000.0;
/// Mantri §5.3: replicated data at most 10% of the data the job processed.
const REPLICA_TOKEN_SHARE: f64 = 0.1;

/// How often the AM shim's scan thread asks the engine at most (`rein.scan-interval-ms`).
const SCAN_MS: Millis = 1000;

/// (job priority, sequence, job, task, origin, nodes to avoid); the smallest first.
type CopyRequest = Reverse<(u64, u64, u32, u32, Origin, Vec<u32>)>;

pub struct Sim<'a> {
    sc: &'a Scenario,
    policy: &'a PolicySpec,
    seed: u64,
    rng: Rng,
    now: Millis,
    seq: u64,
    queue: BinaryHeap<Reverse<(Millis, u64, Kind)>>,
    /// One entry per free slot: the node's index.
    free: Vec<u32>,
    dead: Vec<bool>,
    total_slots: u32,
    /// (job priority, order within the job, sequence, job, task) of waiting first attempts; the
    /// smallest first. The order is 0 (arrival) or, largest input first, bytes' complement.
    first: BinaryHeap<Reverse<(u64, u64, u64, u32, u32)>>,
    copies: BinaryHeap<CopyRequest>,
    attempts: Vec<Attempt>,
    free_attempts: Vec<u32>,
    jobs: Vec<Option<JobRun>>,
    /// The jobs that have arrived and not finished, in job order.
    live_jobs: BTreeSet<u32>,
    rack_shuffles: Vec<u32>,
    records: Vec<Option<JobRecord>>,
    counters: Counters,
    sim_events: u64,
    engine_events: u64,
    decisions: u64,
    node_names: Vec<(String, String)>,
    finished_jobs: usize,
    /// Per-machine outlier probabilities learned from finished jobs, window by window (Dolly §3.2),
    /// and the snapshot handed to new jobs, refreshed when a window closes.
    learner: Option<OutlierLearner>,
    priors: Arc<HashMap<String, f64>>,
    priors_at: Millis,
    /// Speculative copies running or queued, cluster-wide (LATE's cap is on all of them).
    copies_live: u32,
    /// Machines the cluster has found lost so far (Mantri §5.3's loss probability).
    found: Vec<bool>,
    /// Dolly's utilisation ceiling τ when the policy is Dolly: clones give way above it (§3.3).
    tau: Option<f64>,
    /// Clones running now, cluster-wide.
    clones_live: u32,
    /// The task-time tail learned from finished jobs for SCA and ESE: (samples, Σ ln(x / x_min)).
    tail: Option<(f64, f64)>,
}

/// How stale the per-machine outlier probabilities handed to a new job may be.
const PRIOR_REFRESH_MS: Millis = 60_000;

fn task_id(maps: u32, idx: u32) -> TaskId {
    if idx < maps {
        TaskId::map(idx)
    } else {
        TaskId::reduce(idx - maps)
    }
}

/// The node index in a name `n{idx}:1`.
fn parse_node(name: &str) -> Option<u32> {
    name.strip_prefix('n')?.split(':').next()?.parse().ok()
}

impl<'a> Sim<'a> {
    pub fn new(sc: &'a Scenario, policy: &'a PolicySpec, seed: u64) -> Sim<'a> {
        let mut free = Vec::new();
        for (i, n) in sc.cluster.nodes.iter().enumerate() {
            for _ in 0..n.slots {
                free.push(i as u32);
            }
        }
        let node_names =
            sc.cluster.nodes.iter().enumerate().map(|(i, n)| (format!("n{i}:1"), format!("/r{}", n.rack))).collect();
        let mut sim = Sim {
            sc,
            policy,
            seed,
            rng: Rng::new(seed ^ 0x005E_ED0F_51A1),
            now: 0,
            seq: 0,
            queue: BinaryHeap::new(),
            total_slots: free.len() as u32,
            free,
            dead: vec![false; sc.cluster.nodes.len()],
            first: BinaryHeap::new(),
            copies: BinaryHeap::new(),
            attempts: Vec::new(),
            free_attempts: Vec::new(),
            jobs: (0..sc.jobs.len()).map(|_| None).collect(),
            live_jobs: BTreeSet::new(),
            rack_shuffles: vec![0; sc.cluster.racks as usize + 1],
            records: vec![None; sc.jobs.len()],
            counters: Counters::default(),
            sim_events: 0,
            engine_events: 0,
            decisions: 0,
            node_names,
            finished_jobs: 0,
            learner: None,
            priors: Arc::default(),
            priors_at: Millis::MIN / 2,
            copies_live: 0,
            found: vec![false; sc.cluster.nodes.len()],
            tau: None,
            clones_live: 0,
            tail: None,
        };
        for (j, job) in sc.jobs.iter().enumerate() {
            sim.push(job.submit_ms, Kind::Arrive(j as u32));
        }
        for (i, n) in sc.cluster.nodes.iter().enumerate() {
            if let Some(t) = n.lost_at {
                sim.push(t, Kind::NodeLost(i as u32));
            }
        }
        if matches!(sim.engine_policy(), "sca" | "ese") {
            sim.tail = Some((0.0, 0.0));
        }
        sim
    }

    /// The engine policy the spec names (its last `rein.policy`).
    fn engine_policy(&self) -> &'a str {
        self.policy.pairs.iter().rev().find(|(k, _)| k == "rein.policy").map_or("", |(_, v)| v.as_str())
    }

    /// SCA §III and ESE §V take the task-time distribution as known from history: the tail index
    /// learned from finished jobs, once it rests on enough samples (`rein.sca.fit-min-samples`'s
    /// default, 5). Each job-phase contributes the maximum-likelihood terms of a Pareto with its
    /// own scale (its fastest succeeded attempt) and right-censoring: an attempt killed when a
    /// sibling won is known only to have outlasted its run time. Winners alone would be the
    /// minimum of each task's copies, a lighter tail than the tasks' own (cloning c copies of a
    /// Pareto of index α leaves winners of index c·α).
    fn learned_alpha(&self) -> Option<f64> {
        let (n, sum_ln) = self.tail?;
        (n >= 5.0 && sum_ln > 0.0).then(|| ((n - 1.0) / sum_ln).clamp(1.05, 50.0))
    }

    fn push(&mut self, t: Millis, kind: Kind) {
        self.seq += 1;
        self.queue.push(Reverse((t, self.seq, kind)));
    }

    /// Runs to the end; `progress(done, total)` is called as jobs finish.
    pub fn run(mut self, progress: &mut dyn FnMut(usize, usize)) -> RunResult {
        while let Some(Reverse((t, _, kind))) = self.queue.pop() {
            self.now = t;
            self.sim_events += 1;
            match kind {
                Kind::Arrive(j) => self.arrive(j),
                Kind::End { slot, generation } => self.end(slot, generation),
                Kind::Tick(j) => self.tick(j),
                Kind::Decide(j) => {
                    if let Some(job) = self.jobs[j as usize].as_mut() {
                        job.decide_pending = false;
                        self.decide(j);
                    }
                }
                Kind::NodeLost(n) => self.node_lost(n),
                Kind::FetchFailure { job, node } => {
                    if self.policy.options.recompute_aware {
                        // Pre-compute (Mantri §5.3): a recompute marks the machine failing, and
                        // every job's outputs there are redone now, before their own fetches fail.
                        self.found_lost(node);
                    } else {
                        self.detect(job, node);
                    }
                }
                Kind::Expire(n) => self.expire(n),
            }
            let before = self.finished_jobs;
            self.dispatch();
            if self.tau.is_some() {
                self.yield_clones();
                self.dispatch();
            }
            if self.finished_jobs != before {
                progress(self.finished_jobs, self.sc.jobs.len());
            }
        }
        let jobs: Vec<JobRecord> = self.records.into_iter().flatten().collect();
        RunResult {
            jobs,
            counters: self.counters,
            sim_events: self.sim_events,
            engine_events: self.engine_events,
            decisions: self.decisions,
            end_ms: self.now,
        }
    }

    fn tell(&mut self, job: u32, event: Event) {
        if let Some(e) = self.jobs[job as usize].as_mut().and_then(|j| j.engine.as_mut()) {
            e.ingest(self.now, event);
            self.engine_events += 1;
        }
    }

    fn spec(&self, job: u32, task: u32) -> &'a TaskSpec {
        let spec = &self.sc.jobs[job as usize];
        let maps = spec.maps.len() as u32;
        if task < maps {
            &spec.maps[task as usize]
        } else {
            &spec.reduces[(task - maps) as usize]
        }
    }

    fn arrive(&mut self, j: u32) {
        let spec = &self.sc.jobs[j as usize];
        // Racks matter for transfers only under a network model; without one, Mantri's reduce
        // moves (§5.2) would show their cost and none of their gain, so they are off (a policy's
        // own setting, later in the list, still wins).
        let no_net = self.sc.net.is_none().then_some(("rein.mantri.reduce-moves-per-task", "0"));
        let maps = spec.maps.len() as u32;
        let n = spec.tasks();
        let mean_work = spec.maps.iter().map(|t| t.work_ms).sum::<f64>() / maps.max(1) as f64;
        // ESE (§V) takes the task-time distribution as known: a recurring job's mean task time
        // from its earlier runs, which is what `rein.ese.expected-task-ms` carries in an AM. The
        // simulator gives each job its nominal mean (a policy's own setting, later, still wins).
        let prior = (self.policy.pairs.iter().any(|(k, v)| k == "rein.policy" && v == "ese") && mean_work >= 1.0)
            .then(|| (mean_work.round().min(86_400_000.0) as i64).to_string());
        let prior = prior.as_deref().map(|v| ("rein.ese.expected-task-ms", v));
        let alpha = self.learned_alpha().map(|a| format!("{a:.3}"));
        let alpha = alpha.as_deref().map(|v| ("rein.sca.pareto-alpha", v));
        let pairs = no_net
            .into_iter()
            .chain(prior)
            .chain(alpha)
            .chain(self.policy.pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let (engine, _warnings) = Engine::from_pairs(pairs).unwrap_or_else(|e| panic!("policy {}: {e}", self.policy.label));
        let engine_cfg = engine.config().clone();
        // Ten reports in a task's life when that is more often than Δ (Mantri §5), 1 s at least.
        let report_ms = self.sc.report_ms.min(((mean_work / 10.0) as Millis).max(1000));
        self.live_jobs.insert(j);
        self.jobs[j as usize] = Some(JobRun {
            engine: Some(engine),
            maps,
            tasks: vec![TaskRun::default(); n],
            maps_left: maps,
            reduces_left: spec.reduces.len() as u32,
            reduces_released: false,
            running: Vec::new(),
            report_ms,
            last_decide: Millis::MIN / 2,
            decide_pending: false,
            priority: match self.sc.scheduler {
                Scheduler::Fifo => j as u64,
                Scheduler::SmallestFirst => (mean_work * n as f64) as u64,
            },
            container_ms: 0,
            wasted_ms: 0,
            finished: false,
            copies_live: 0,
            lost: Vec::new(),
            tokens: 0.0,
            reduces_at: None,
            durations: Default::default(),
        });
        if engine_cfg.policy == PolicyName::Dolly {
            self.tau = Some(engine_cfg.dolly.utilization_ceiling);
        }
        if self.learner.is_none() && engine_cfg.policy == PolicyName::Dolly {
            self.learner = Some(OutlierLearner::new(engine_cfg.dolly.window_ms, engine_cfg.dolly.outlier_probability));
        }
        if let Some(learner) = self.learner.as_mut() {
            if learner.close(self.now) || self.now - self.priors_at >= PRIOR_REFRESH_MS {
                self.priors = Arc::new(learner.probabilities().clone());
                self.priors_at = self.now;
            }
        }
        if let Some(e) = self.jobs[j as usize].as_mut().and_then(|job| job.engine.as_mut()) {
            e.set_node_outlier_priors(self.priors.clone());
        }
        self.tell(j, Event::JobCreated { maps, reduces: spec.reduces.len() as u32 });
        for (i, t) in spec.maps.iter().enumerate() {
            self.tell(j, Event::TaskInput { task: TaskId::map(i as u32), bytes: t.input_bytes });
        }
        // A reduce's input is its partition of the map output, which an AM learns from the map
        // outputs' index files (Mantri §5.5 scales t_new by it).
        for (i, t) in spec.reduces.iter().enumerate() {
            self.tell(j, Event::TaskInput { task: TaskId::reduce(i as u32), bytes: t.input_bytes });
        }
        self.capacity(j);
        for i in 0..maps {
            self.request_first(j, i);
        }
        if maps == 0 {
            self.release_reduces(j);
        }
        self.push(self.now + report_ms, Kind::Tick(j));
    }

    fn capacity(&mut self, j: u32) {
        let (total, free) = (self.total_slots, self.free.len() as u32);
        self.tell(j, Event::Capacity { total_slots: total, free_slots: Some(free) });
    }

    fn request_first(&mut self, j: u32, task: u32) {
        let (maps, priority) = {
            let job = self.jobs[j as usize].as_mut().unwrap();
            job.tasks[task as usize].waiting += 1;
            (job.maps, job.priority)
        };
        self.tell(j, Event::ContainerNeed { task: task_id(maps, task), delta: 1 });
        let order = if self.policy.options.largest_first { u64::MAX - self.spec(j, task).input_bytes } else { 0 };
        self.seq += 1;
        self.first.push(Reverse((priority, order, self.seq, j, task)));
    }

    fn release_reduces(&mut self, j: u32) {
        let job = self.jobs[j as usize].as_mut().unwrap();
        job.reduces_released = true;
        job.reduces_at.get_or_insert(self.now);
        let (maps, n) = (job.maps, job.tasks.len() as u32);
        for r in maps..n {
            self.request_first(j, r);
        }
        // Reduces that start fetching find the outputs lost on dead machines.
        let lost: Vec<u32> = job_lost(self.jobs[j as usize].as_ref().unwrap());
        for node in lost {
            self.push(self.now + FETCH_DETECT_MS, Kind::FetchFailure { job: j, node });
        }
    }

    /// Gives free slots to waiting first attempts and to policy copies, in the order of the
    /// policy's queue discipline.
    fn dispatch(&mut self) {
        let copies_first = self.policy.options.copy_queue == CopyQueue::AheadOfFirst;
        while !self.free.is_empty() {
            if copies_first && !self.copies.is_empty() {
                if !self.start_copy() {
                    continue;
                }
            } else if let Some(Reverse((_, _, _, j, task))) = self.first.pop() {
                let Some(job) = self.jobs[j as usize].as_mut() else { continue };
                let t = &mut job.tasks[task as usize];
                if job.finished || t.waiting == 0 {
                    continue;
                }
                t.waiting -= 1;
                let maps = job.maps;
                self.tell(j, Event::ContainerNeed { task: task_id(maps, task), delta: -1 });
                let node = self.pick_node(j, task, &[]);
                self.start(j, task, Origin::First, node);
            } else if !self.copies.is_empty() {
                self.start_copy();
            } else if !(self.policy.options.native_2008 && self.native_copy()) {
                break;
            }
        }
    }

    /// LATE §2.1's native speculation for one free slot: the first straggler, in FIFO job order
    /// then task order, gets a copy. A straggler has run for a minute, has no other attempt, and
    /// its progress score is at least 0.2 below its category's average (every task of the
    /// category counted: finished at 1, waiting at 0). Hadoop 0.18's `TaskInProgress`
    /// (`SPECULATIVE_GAP` 0.2, `SPECULATIVE_LAG` 60 s, one copy at a time); ties, broken by data
    /// locality in Hadoop, go to the lowest task index (the simulator has no locality).
    fn native_copy(&mut self) -> bool {
        const GAP: f64 = 0.2;
        const LAG_MS: Millis = 60_000;
        let now = self.now;
        let mut found = None;
        'jobs: for &j in &self.live_jobs {
            let Some(job) = self.jobs[j as usize].as_ref().filter(|job| !job.finished) else { continue };
            // No attempt has run for a minute: no candidate here.
            if !job.running.iter().any(|&s| now - self.attempts[s as usize].plan.start() >= LAG_MS) {
                continue;
            }
            // The running tasks in task order: (task, best score, attempts, first start).
            let mut attempts: Vec<(u32, f64, Millis)> = job
                .running
                .iter()
                .map(|&s| {
                    let a = &self.attempts[s as usize];
                    (a.task, self.score(a.task >= job.maps, a.plan.progress(now)).min(if a.held { 0.99 } else { 1.0 }), a.plan.start())
                })
                .collect();
            attempts.sort_unstable_by_key(|a| a.0);
            let tasks: Vec<(u32, f64, u32, Millis)> = attempts
                .chunk_by(|a, b| a.0 == b.0)
                .map(|g| (g[0].0, g.iter().fold(0.0f64, |p, a| p.max(a.1)), g.len() as u32, g.iter().map(|a| a.2).min().unwrap()))
                .collect();
            // Candidates: one attempt, a minute old, of a task (a reduce only once reduces run).
            let candidate = |&(t, _, live, started): &(u32, f64, u32, Millis)| {
                live == 1 && now - started >= LAG_MS && !job.tasks[t as usize].done && (t < job.maps || job.reduces_released)
            };
            if !tasks.iter().any(candidate) {
                continue;
            }
            // Per kind, Σ progress over every task in task order (finished at 1, waiting at 0).
            let n = job.tasks.len() as u32;
            let mut sum = [0.0f64; 2];
            let mut running = tasks.iter().peekable();
            for t in 0..n {
                let kind = usize::from(t >= job.maps);
                let progress = running.next_if(|r| r.0 == t).map_or(0.0, |r| r.1);
                sum[kind] += if job.tasks[t as usize].done { 1.0 } else { progress };
            }
            let count = [job.maps as f64, (n - job.maps) as f64];
            for &(t, progress, _, _) in tasks.iter().filter(|c| candidate(c)) {
                let kind = usize::from(t >= job.maps);
                if sum[kind] / count[kind] - progress >= GAP {
                    let node = job.running.iter().map(|&s| &self.attempts[s as usize]).find(|a| a.task == t).map(|a| a.node);
                    found = Some((j, t, node));
                    break 'jobs;
                }
            }
        }
        let Some((j, task, node)) = found else { return false };
        let job = self.jobs[j as usize].as_mut().unwrap();
        job.copies_live += 1;
        self.copies_live += 1;
        let avoid: Vec<u32> = node.into_iter().collect();
        let node = self.pick_node(j, task, &avoid);
        self.start(j, task, Origin::Copy, node);
        true
    }

    /// Dolly §3.3: clones run only while cluster utilisation stays under τ, and "Dolly will
    /// immediately abort clones in case utilization crosses that threshold" (§1), as an incoming
    /// job's task claims its slot by killing clones in progress (§3.3). Above τ, queued clones are
    /// dropped and running ones killed, the youngest first, never a task's last attempt, until
    /// utilisation is back at τ. The freed slots go to waiting first attempts.
    fn yield_clones(&mut self) {
        let Some(tau) = self.tau else { return };
        let total = self.total_slots.max(1) as f64;
        let busy = |sim: &Sim| (sim.total_slots as usize - sim.free.len().min(sim.total_slots as usize)) as f64;
        if busy(self) / total <= tau || (self.clones_live == 0 && !self.copies.iter().any(|c| c.0 .4 == Origin::Clone)) {
            return;
        }
        let queued = std::mem::take(&mut self.copies);
        for Reverse(c) in queued {
            if c.4 == Origin::Clone {
                if let Some(job) = self.jobs[c.2 as usize].as_ref().filter(|job| !job.finished) {
                    let id = task_id(job.maps, c.3);
                    self.tell(c.2, Event::CopyDropped { task: id });
                }
            } else {
                self.copies.push(Reverse(c));
            }
        }
        let mut clones: Vec<(Millis, u32)> = (0..self.attempts.len() as u32)
            .filter(|&s| {
                let a = &self.attempts[s as usize];
                a.live && a.origin == Origin::Clone && !a.held
            })
            .map(|s| (self.attempts[s as usize].plan.start(), s))
            .collect();
        clones.sort_unstable_by(|a, b| b.cmp(a));
        for (_, s) in clones {
            if busy(self) / total <= tau {
                break;
            }
            let (j, task) = (self.attempts[s as usize].job, self.attempts[s as usize].task);
            let Some(job) = self.jobs[j as usize].as_ref() else { continue };
            let siblings = job.running.iter().filter(|&&o| self.attempts[o as usize].task == task).count();
            if !self.attempts[s as usize].live || siblings < 2 {
                continue;
            }
            self.counters.clones_yielded += 1;
            self.stop(s, Outcome::Killed);
        }
    }

    /// Mantri Pseudocode 1, line 3: a copy that has run for Δ and whose estimated end (from its
    /// progress) is later than the task's second fastest copy's is killed, for good.
    fn prune(&mut self, j: u32, delta: Millis) {
        let now = self.now;
        let Some(job) = self.jobs[j as usize].as_ref() else { return };
        let mut by_task: Vec<(u32, Millis, f64, u32)> = job
            .running
            .iter()
            .map(|&s| {
                let a = &self.attempts[s as usize];
                let p = a.plan.progress(now);
                let ran = now - a.plan.start();
                // A dead machine's attempt reports nothing: it shows no progress, the slowest.
                let end = if p > 0.0 && !self.dead[a.node as usize] { a.plan.start() as f64 + ran as f64 / p } else { f64::INFINITY };
                (a.task, ran, end, s)
            })
            .collect();
        if by_task.len() < 3 {
            return;
        }
        by_task.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.2.total_cmp(&b.2)));
        let mut kill = Vec::new();
        for group in by_task.chunk_by(|a, b| a.0 == b.0) {
            if group.len() < 3 {
                continue;
            }
            let second = group[1].2;
            kill.extend(group[2..].iter().filter(|c| c.1 >= delta && c.2 > second).map(|c| c.3));
        }
        for s in kill {
            let a = &self.attempts[s as usize];
            // A silent attempt on a dead machine is the ResourceManager's to end (at expiry).
            if a.live && !a.held && !self.dead[a.node as usize] {
                self.counters.copies_pruned += 1;
                self.stop(s, Outcome::Killed);
            }
        }
    }

    /// Starts the first queued copy in a free slot; false if it was stale and dropped.
    fn start_copy(&mut self) -> bool {
        let Some(Reverse((_, _, j, task, origin, avoid))) = self.copies.pop() else { return false };
        let Some(job) = self.jobs[j as usize].as_mut() else { return false };
        if job.finished || job.tasks[task as usize].done {
            if origin == Origin::Copy {
                job.copies_live -= 1;
                self.copies_live -= 1;
            }
            return false;
        }
        let node = self.pick_node(j, task, &avoid);
        self.start(j, task, origin, node);
        true
    }

    /// Takes a free slot: a random one, away from `avoid` when possible; reduces go to the least
    /// loaded rack under network-aware placement.
    fn pick_node(&mut self, j: u32, task: u32, avoid: &[u32]) -> u32 {
        let is_reduce = task >= self.jobs[j as usize].as_ref().unwrap().maps;
        let mut pick = None;
        if is_reduce && self.sc.net.is_some() && self.policy.options.placement == Placement::NetworkAware {
            let racks = &self.sc.cluster;
            pick = (0..self.free.len())
                .min_by_key(|&i| (self.rack_shuffles[racks.nodes[self.free[i] as usize].rack as usize], i));
        }
        if pick.is_none() && !avoid.is_empty() {
            if self.free.len() <= 64 {
                pick = (0..self.free.len()).find(|&i| !avoid.contains(&self.free[i]));
            } else {
                pick = (0..8).map(|_| self.rng.below(self.free.len())).find(|&i| !avoid.contains(&self.free[i]));
            }
        }
        let i = pick.unwrap_or_else(|| self.rng.below(self.free.len()));
        self.free.swap_remove(i)
    }

    fn start(&mut self, j: u32, task: u32, origin: Origin, node: u32) {
        let now = self.now;
        let spec = self.spec(j, task);
        let job = self.jobs[j as usize].as_mut().unwrap();
        let maps = job.maps;
        let t = &mut job.tasks[task as usize];
        let n = t.next_n;
        t.next_n += 1;
        // Each attempt has its own random stream, so attempt n of a task draws the same noise
        // under every policy (common random numbers make the comparison fair).
        let mut arng = Rng::new(
            self.seed ^ (j as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ((task as u64) << 20) ^ ((n as u64) << 52),
        );
        let cluster = &self.sc.cluster;
        let mut work = self.sc.model.draw_work(spec, cluster.outlier_p(node as usize, now), &mut arng);
        if task < maps && !self.sc.model.slow_maps {
            work *= cluster.nodes[node as usize].speed;
        }
        let rack = cluster.nodes[node as usize].rack as usize;
        let plan = match (self.sc.net, task >= maps) {
            (Some(net), true) => {
                // The shuffle: the reduce's share of map output from other racks over the rack's
                // uplink, shared with the shuffles already under way there; the first third of
                // the reduce's progress, as in Hadoop.
                let remote = 1.0 - 1.0 / cluster.racks.max(1) as f64;
                let share = net.rack_bytes_per_ms / (self.rack_shuffles[rack] + 1) as f64;
                let shuffle = (spec.input_bytes as f64 * remote / share).ceil() as Millis;
                self.rack_shuffles[rack] += 1;
                let rest = cluster.plan(node as usize, now + shuffle, work);
                let mut points = vec![(now, 0.0)];
                points.extend(rest.points.iter().map(|&(t, f)| (t, 1.0 / 3.0 + f * 2.0 / 3.0)));
                Plan { points }
            }
            _ => cluster.plan(node as usize, now, work),
        };
        let end = plan.end();
        let slot = match self.free_attempts.pop() {
            Some(s) => s,
            None => {
                self.attempts.push(Attempt {
                    job: 0,
                    task: 0,
                    n: 0,
                    node: 0,
                    plan: Plan { points: Vec::new() },
                    origin: Origin::First,
                    generation: 0,
                    live: false,
                    held: false,
                });
                (self.attempts.len() - 1) as u32
            }
        };
        let a = &mut self.attempts[slot as usize];
        let generation = a.generation + 1;
        *a = Attempt { job: j, task, n, node, plan, origin, generation, live: true, held: false };
        job.running.push(slot);
        self.counters.attempts += 1;
        match origin {
            Origin::First => {}
            Origin::Copy => self.counters.speculative_launched += 1,
            Origin::Clone => {
                self.counters.clones += 1;
                self.clones_live += 1;
            }
        }
        self.push(end, Kind::End { slot, generation });
        let (name, rack) = self.node_names[node as usize].clone();
        self.tell(j, Event::AttemptStarted { attempt: task_id(maps, task).attempt(n), node: Some(name), rack: Some(rack) });
    }

    /// Ends a live attempt: books its container time, frees its slot, tells the engine.
    fn stop(&mut self, slot: u32, outcome: Outcome) {
        let now = self.now;
        let a = &mut self.attempts[slot as usize];
        debug_assert!(a.live);
        a.live = false;
        a.held = false;
        let (j, task, n, node) = (a.job, a.task, a.n, a.node);
        let used = (now - a.plan.start()).max(0);
        a.plan.points = Vec::new();
        self.free_attempts.push(slot);
        let origin = a.origin;
        let job = self.jobs[j as usize].as_mut().unwrap();
        if origin == Origin::Copy {
            job.copies_live -= 1;
            self.copies_live -= 1;
        }
        if origin == Origin::Clone {
            self.clones_live -= 1;
        }
        if self.tail.is_some() && outcome != Outcome::Failed && used > 0 {
            let kind = usize::from(task >= job.maps);
            job.durations[kind].push((used as f64, outcome == Outcome::Succeeded));
        }
        job.container_ms += used;
        if outcome != Outcome::Succeeded {
            job.wasted_ms += used;
        }
        if let Some(i) = job.running.iter().position(|&s| s == slot) {
            job.running.swap_remove(i);
        }
        let maps = job.maps;
        if self.sc.net.is_some() && task >= maps {
            let rack = self.sc.cluster.nodes[node as usize].rack as usize;
            self.rack_shuffles[rack] = self.rack_shuffles[rack].saturating_sub(1);
        }
        if !self.dead[node as usize] {
            self.free.push(node);
        }
        if outcome == Outcome::Succeeded && task < maps {
            // A map's output is taken to be as large as its input.
            let bytes = self.spec(j, task).input_bytes;
            self.tell(j, Event::TaskOutput { task: task_id(maps, task), bytes });
        }
        self.tell(j, Event::AttemptFinished { attempt: task_id(maps, task).attempt(n), outcome });
    }

    fn end(&mut self, slot: u32, generation: u32) {
        let a = &self.attempts[slot as usize];
        if !a.live || a.generation != generation {
            return;
        }
        if self.dead[a.node as usize] {
            // Its machine is dead: the attempt never ends; the AM learns of it only at expiry.
            return;
        }
        let (j, task) = (a.job, a.task);
        let shuffled_at = a.plan.start() + (a.plan.end() - a.plan.start()) / 3;
        let job = self.jobs[j as usize].as_ref().unwrap();
        // A lost map output is being recomputed, or was lost before this reduce fetched it: the
        // reduce cannot finish without it.
        if task >= job.maps && (job.maps_left > 0 || job.lost.iter().any(|&(_, died)| died < shuffled_at)) {
            self.attempts[slot as usize].held = true;
            return;
        }
        self.succeed(slot);
    }

    fn succeed(&mut self, slot: u32) {
        let a = &self.attempts[slot as usize];
        let (j, task, origin, node) = (a.job, a.task, a.origin, a.node);
        let ran_ms = self.now - a.plan.start();
        match origin {
            Origin::First => {}
            Origin::Copy => self.counters.speculative_won += 1,
            Origin::Clone => self.counters.clones_won += 1,
        }
        self.stop(slot, Outcome::Succeeded);
        let job = self.jobs[j as usize].as_mut().unwrap();
        let maps = job.maps;
        let t = &mut job.tasks[task as usize];
        t.done = true;
        t.output_node = Some(node);
        t.replica_at = None;
        if self.policy.options.recompute_aware {
            self.consider_replica(j, task, ran_ms);
        }
        let job = self.jobs[j as usize].as_mut().unwrap();
        let t = &mut job.tasks[task as usize];
        let waiting = std::mem::take(&mut t.waiting);
        let siblings: Vec<u32> =
            job.running.iter().copied().filter(|&s| self.attempts[s as usize].task == task).collect();
        if waiting > 0 {
            self.tell(j, Event::ContainerNeed { task: task_id(maps, task), delta: -(waiting as i32) });
        }
        for s in siblings {
            self.stop(s, Outcome::Killed);
        }
        let job = self.jobs[j as usize].as_mut().unwrap();
        if task < maps {
            job.maps_left -= 1;
            if job.maps_left == 0 {
                if !job.reduces_released {
                    self.release_reduces(j);
                } else {
                    let held: Vec<u32> =
                        job.running.iter().copied().filter(|&s| self.attempts[s as usize].held).collect();
                    for s in held {
                        // An earlier one may have finished the job, or its task, killing this one.
                        if self.attempts[s as usize].live && self.attempts[s as usize].held {
                            self.succeed(s);
                        }
                    }
                    if self.jobs[j as usize].as_ref().map_or(true, |job| job.finished) {
                        return;
                    }
                }
            }
        } else {
            job.reduces_left -= 1;
        }
        let job = self.jobs[j as usize].as_mut().unwrap();
        if job.maps_left == 0 && job.reduces_left == 0 && job.reduces_released && !job.finished {
            self.finish_job(j);
        } else if !job.finished && !job.decide_pending {
            // A slot freed: ask soon, but no more often than the AM's scan thread would.
            job.decide_pending = true;
            let at = self.now.max(job.last_decide + SCAN_MS);
            self.push(at, Kind::Decide(j));
        }
    }

    fn finish_job(&mut self, j: u32) {
        let job = self.jobs[j as usize].as_mut().unwrap();
        job.finished = true;
        // Stragglers of a finished job (held reduces cannot remain) are killed; then free the engine.
        let left: Vec<u32> = job.running.clone();
        for s in left {
            self.stop(s, Outcome::Killed);
        }
        let mut job = self.jobs[j as usize].take().unwrap();
        self.live_jobs.remove(&j);
        if let (Some(e), Some(learner)) = (job.engine.as_mut(), self.learner.as_mut()) {
            learner.observe(self.now, e.node_outlier_observations(self.now));
        }
        self.copies_live -= job.copies_live;
        let spec = &self.sc.jobs[j as usize];
        self.records[j as usize] = Some(JobRecord {
            submit_ms: spec.submit_ms,
            finish_ms: self.now,
            tasks: spec.tasks() as u32,
            container_ms: job.container_ms,
            wasted_ms: job.wasted_ms,
            reduces_at: job.reduces_at,
        });
        if let Some((n, sum_ln)) = self.tail.as_mut() {
            for kind in &job.durations {
                let Some(x_min) = kind.iter().filter(|d| d.1).map(|d| d.0).reduce(f64::min).filter(|x| *x > 0.0) else {
                    continue;
                };
                let done = kind.iter().filter(|d| d.1).count();
                if done >= 2 {
                    *n += (done - 1) as f64;
                    *sum_ln += kind.iter().filter(|d| d.0 > x_min).map(|d| (d.0 / x_min).ln()).sum::<f64>();
                }
            }
        }
        self.finished_jobs += 1;
    }

    fn tick(&mut self, j: u32) {
        let now = self.now;
        let Some(job) = self.jobs[j as usize].as_ref() else { return };
        let maps = job.maps;
        let report_ms = job.report_ms;
        let reports: Vec<Event> = job
            .running
            .iter()
            .filter(|&&s| !self.dead[self.attempts[s as usize].node as usize])
            .map(|&s| {
                let a = &self.attempts[s as usize];
                let progress = self.score(a.task >= maps, a.plan.progress(now)).min(if a.held { 0.99 } else { 1.0 });
                let phase = if a.task < maps {
                    Phase::Map
                } else if progress < 1.0 / 3.0 {
                    Phase::Shuffle
                } else if progress < 2.0 / 3.0 {
                    Phase::Sort
                } else {
                    Phase::Reduce
                };
                Event::AttemptStatus { attempt: task_id(maps, a.task).attempt(a.n), progress, phase }
            })
            .collect();
        for r in reports {
            self.tell(j, r);
        }
        if self.policy.options.prune_copies {
            self.prune(j, report_ms);
        }
        self.decide(j);
        self.push(now + report_ms, Kind::Tick(j));
    }

    /// The progress score Hadoop reports for an attempt that has done `done` of its work: a map's
    /// is its share of input read; a reduce's copy phase counts for a third, whatever share of
    /// its work it is (LATE §2.1), sort and reduce for a third each.
    fn score(&self, reduce: bool, done: f64) -> f64 {
        let share = self.sc.copy_phase;
        if !reduce || (share - 1.0 / 3.0).abs() < 1e-9 {
            return done;
        }
        if done < share {
            done / share / 3.0
        } else {
            1.0 / 3.0 + (done - share) / (1.0 - share) * 2.0 / 3.0
        }
    }

    /// Asks the job's engine what to do and does it.
    fn decide(&mut self, j: u32) {
        self.capacity(j);
        let now = self.now;
        let Some(job) = self.jobs[j as usize].as_mut() else { return };
        job.last_decide = now;
        let elsewhere = self.copies_live - job.copies_live;
        let Some(engine) = job.engine.as_mut() else { return };
        engine.set_copies_elsewhere(elsewhere);
        let actions = engine.decide(now);
        self.decisions += 1;
        for action in actions {
            self.act(j, action);
        }
    }

    fn act(&mut self, j: u32, action: Action) {
        let job = self.jobs[j as usize].as_ref().unwrap();
        let maps = job.maps;
        let index = |t: TaskId| match t.kind {
            rein_core::TaskKind::Map => t.index,
            rein_core::TaskKind::Reduce => maps + t.index,
        };
        let live_attempt = |id: rein_core::AttemptId| {
            job.running.iter().copied().find(|&s| {
                let a = &self.attempts[s as usize];
                a.task == index(id.task) && a.n == id.n && !a.held
            })
        };
        match action {
            Action::Speculate { task, avoid_nodes, .. } => {
                let avoid: Vec<u32> = avoid_nodes.iter().filter_map(|n| parse_node(n)).collect();
                self.queue_copy(j, index(task), Origin::Copy, avoid);
            }
            Action::Clone { task, copies, .. } => {
                for _ in 0..copies {
                    self.queue_copy(j, index(task), Origin::Clone, Vec::new());
                }
            }
            Action::Restart { attempt, .. } | Action::Veto { attempt, .. } | Action::Move { attempt, .. } => {
                let veto = matches!(action, Action::Veto { .. });
                if let Some(slot) = live_attempt(attempt) {
                    let task = self.attempts[slot as usize].task;
                    match action {
                        Action::Restart { .. } => self.counters.restarts += 1,
                        Action::Veto { .. } => self.counters.vetoes += 1,
                        _ => self.counters.moves += 1,
                    }
                    self.stop(slot, Outcome::Killed);
                    self.request_first(j, task);
                } else if veto {
                    // Not carried out: the replacement the engine booked as the copy never comes.
                    self.tell(j, Event::CopyDropped { task: attempt.task });
                }
            }
        }
    }

    fn queue_copy(&mut self, j: u32, task: u32, origin: Origin, avoid: Vec<u32>) {
        let job = self.jobs[j as usize].as_ref().unwrap();
        if job.tasks[task as usize].done {
            self.counters.copies_dropped += 1;
            let maps = job.maps;
            self.tell(j, Event::CopyDropped { task: task_id(maps, task) });
            return;
        }
        let priority = job.priority;
        if origin == Origin::Copy {
            self.jobs[j as usize].as_mut().unwrap().copies_live += 1;
            self.copies_live += 1;
        }
        self.seq += 1;
        self.copies.push(Reverse((priority, self.seq, j, task, origin, avoid)));
    }

    /// A machine dies with its disks (Mantri §5.3). Nothing tells the AM at once: its attempts go
    /// silent (a policy may copy them) until the ResourceManager declares the node lost, and the
    /// map outputs on it that reduces still need are found lost only when reduces fail to fetch
    /// them — unless they were replicated, or outputs are protected (the ideal).
    fn node_lost(&mut self, node: u32) {
        self.dead[node as usize] = true;
        self.free.retain(|&n| n != node);
        self.total_slots -= self.sc.cluster.nodes[node as usize].slots;
        self.counters.nodes_lost += 1;
        self.push(self.now + NM_EXPIRY_MS, Kind::Expire(node));
        if self.policy.options.protect_outputs {
            return;
        }
        let now = self.now;
        for j in 0..self.jobs.len() as u32 {
            let Some(job) = self.jobs[j as usize].as_mut() else { continue };
            if self.sc.jobs[j as usize].reduces.is_empty() {
                continue;
            }
            let holds = (0..job.maps).any(|m| {
                let t = &job.tasks[m as usize];
                t.done && t.output_node == Some(node) && t.replica_at.is_none_or(|at| at > now)
            });
            if holds {
                job.lost.push((node, now));
                if job.reduces_released {
                    self.push(now + FETCH_DETECT_MS, Kind::FetchFailure { job: j, node });
                }
            }
        }
    }

    /// The ResourceManager declares the machine lost: its attempts fail and are replaced, every
    /// job hears of the loss, and (as Hadoop's JobImpl does for unusable nodes) the map outputs
    /// still there are recomputed.
    fn expire(&mut self, node: u32) {
        let victims: Vec<u32> = (0..self.attempts.len() as u32)
            .filter(|&s| self.attempts[s as usize].live && self.attempts[s as usize].node == node)
            .collect();
        for s in victims {
            let (j, task) = (self.attempts[s as usize].job, self.attempts[s as usize].task);
            self.stop(s, Outcome::Failed);
            self.request_first(j, task);
        }
        let name = self.node_names[node as usize].0.clone();
        for j in 0..self.jobs.len() as u32 {
            if self.jobs[j as usize].is_some() {
                self.tell(j, Event::NodeLost { node: name.clone() });
            }
        }
        self.found[node as usize] = true;
        self.found_lost(node);
    }

    /// Every job's outputs lost on `node` are recomputed now.
    fn found_lost(&mut self, node: u32) {
        for j in 0..self.jobs.len() as u32 {
            self.detect(j, node);
        }
    }

    /// Job `j` finds its map outputs on the dead `node` lost: they are recomputed, and reduces
    /// waiting only for this discovery go on.
    fn detect(&mut self, j: u32, node: u32) {
        let Some(job) = self.jobs[j as usize].as_mut() else { return };
        let Some(&(_, died)) = job.lost.iter().find(|l| l.0 == node) else { return };
        job.lost.retain(|l| l.0 != node);
        self.found[node as usize] = true;
        let redo: Vec<u32> = (0..job.maps)
            .filter(|&m| {
                let t = &job.tasks[m as usize];
                t.done && t.output_node == Some(node) && t.replica_at.is_none_or(|at| at > died)
            })
            .collect();
        for &m in &redo {
            job.tasks[m as usize].done = false;
            job.maps_left += 1;
        }
        self.counters.maps_recomputed += redo.len() as u64;
        for &m in &redo {
            self.request_first(j, m);
        }
        let job = self.jobs[j as usize].as_ref().unwrap();
        if job.maps_left == 0 && job.reduces_released {
            let held: Vec<u32> = job.running.iter().copied().filter(|&s| self.attempts[s as usize].held).collect();
            for s in held {
                let a = &self.attempts[s as usize];
                let still_waiting = self.jobs[a.job as usize].as_ref().is_some_and(|job| {
                    let shuffled_at = a.plan.start() + (a.plan.end() - a.plan.start()) / 3;
                    job.lost.iter().any(|&(_, d)| d < shuffled_at)
                });
                if a.live && a.held && !still_waiting {
                    self.succeed(s);
                }
            }
        }
    }

    /// Mantri §5.3: replicate a finished map's output iff the cost to recompute it — the
    /// probability its machine is lost while the output is needed, times t_redo — exceeds t_rep,
    /// and the job's tokens (10% of the data it processed) cover it. A map reads replicated input
    /// from the file system, so t_redo is its own run time (no recursion into earlier phases).
    fn consider_replica(&mut self, j: u32, task: u32, ran_ms: Millis) {
        let spec = &self.sc.jobs[j as usize];
        let bytes = self.spec(j, task).input_bytes as f64;
        let job = self.jobs[j as usize].as_mut().unwrap();
        job.tokens += REPLICA_TOKEN_SHARE * bytes;
        if task >= job.maps || spec.reduces.is_empty() {
            return;
        }
        let machines = self.sc.cluster.nodes.len() as f64;
        let found = self.found.iter().filter(|f| **f).count();
        let rate = (found as f64 + 1.0)
            / (machines * self.now.max(0) as f64 + PRIOR_MACHINE_MS_PER_LOSS);
        // The output is needed until the job's reduces have read it: as long again as the job
        // has run so far, at least the map's own time.
        let exposure = (self.now - spec.submit_ms).max(ran_ms) as f64;
        let p_loss = -(-rate * exposure).exp_m1();
        let t_redo = ran_ms as f64;
        let t_rep = bytes / REPLICA_BYTES_PER_MS;
        if p_loss * t_redo > t_rep && job.tokens >= bytes {
            job.tokens -= bytes;
            job.tasks[task as usize].replica_at = Some(self.now + t_rep.ceil() as Millis);
            self.counters.outputs_replicated += 1;
        }
    }
}

/// The dead machines whose loss job `job` has yet to find.
fn job_lost(job: &JobRun) -> Vec<u32> {
    job.lost.iter().map(|l| l.0).collect()
}

/// Runs one policy through a scenario.
pub fn simulate(sc: &Scenario, policy: &PolicySpec, seed: u64, progress: &mut dyn FnMut(usize, usize)) -> RunResult {
    Sim::new(sc, policy, seed).run(progress)
}
