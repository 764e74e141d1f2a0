//! The engine: one per job. Events in with the caller's time, actions out from `decide`.

use crate::action::Action;
use crate::config::{Config, ConfigError, PanicOn, PolicyName};
use crate::event::{Event, Outcome};
use crate::idmap::{take, IdMap};
use crate::ledger::{Ledger, Roi};
use crate::model::{prefetch_lines, AttemptId, AttemptState, JobState, Millis, NodeIdx, NodeName, TaskId, TaskKind};
use crate::placement::ReducePlacement;
use crate::policy::{self, Policy};
use crate::veto::VetoLoop;

/// How many events ahead [`Engine::ingest_all`] asks for an event's task records: enough for
/// their loads from memory to overlap, few enough that they are still in the caches when their
/// event comes.
pub const INGEST_AHEAD: usize = 8;

/// How many actions ahead of its turn a decision's booking asks for an action: a decision can
/// return 100K of them (8.8 MB, out of the caches by then).
const BOOK_AHEAD: usize = 16;

pub struct Engine {
    config: Config,
    job: JobState,
    policy: Box<dyn Policy>,
    vetoes: VetoLoop,
    /// Mantri's network-aware placement of reduces (§5.2), when the policy is Mantri.
    placement: Option<ReducePlacement>,
    /// Kills asked for and not yet seen through: what to give back if the caller drops one.
    kills: IdMap<AttemptId, Kill>,
    /// The decision log's records and the job's return on investment (`rein.decision-log`).
    ledger: Ledger,
    /// `rein.estimator.smoothing-lambda-ms` when an estimator the configuration names reads the
    /// smoothed rate (`Config::uses_smoothed_rate`), else None: reports then leave it alone.
    smoothing_ms: Option<f64>,
}

/// Which budget a kill the engine asked for was charged to.
#[derive(Clone, Copy, Debug)]
enum Kill {
    Restart,
    Veto,
    Move,
}

impl Engine {
    pub fn new(config: Config) -> Engine {
        let policy = policy::build(&config);
        let mut job = JobState::default();
        job.reported_slots = config.slots;
        job.max_copies_per_scan = (config.max_copies_per_scan > 0).then_some(config.max_copies_per_scan);
        job.huge_pages = config.huge_pages;
        if policy.reads_startup_bar() {
            job.keep_running_starts();
        }
        if policy.fits_tails() {
            job.keep_duration_sums();
        }
        let vetoes = VetoLoop::new(if policy.vetoes_copies() { config.veto_max_per_task } else { 0 }, config.veto_block_node);
        let placement = (config.policy == PolicyName::Mantri && config.mantri.reduce_moves_per_task > 0).then(|| {
            let racks = config.topology.racks().map(str::to_owned).collect();
            ReducePlacement::new(config.mantri.reduce_moves_per_task, config.mantri.delta_ms, racks)
        });
        let ledger = Ledger::new(config.decision_log, config.shadow, policy.name(), config.decision_log_max_bytes);
        let smoothing_ms = config.uses_smoothed_rate().then_some(config.smoothing_lambda_ms as f64);
        Engine { config, job, policy, vetoes, placement, kills: IdMap::default(), ledger, smoothing_ms }
    }

    /// Builds an engine from `rein.*` key/value pairs; also returns warnings about unknown keys.
    pub fn from_pairs<'a, I>(pairs: I) -> Result<(Engine, Vec<String>), ConfigError>
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let parsed = Config::from_pairs(pairs)?;
        Ok((Engine::new(parsed.config), parsed.warnings))
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn policy_name(&self) -> &'static str {
        self.policy.name()
    }

    pub fn job(&self) -> &JobState {
        &self.job
    }

    /// Per-machine outlier probabilities learned from earlier jobs on the cluster (Dolly §3.2),
    /// by node name; a machine not in the map starts at `rein.dolly.outlier-probability`.
    /// Only Dolly reads them. Shared, so that handing them to every new job costs nothing.
    pub fn set_node_outlier_priors(&mut self, priors: std::sync::Arc<std::collections::HashMap<String, f64>>) {
        self.policy.set_node_outlier_priors(priors);
    }

    /// Per machine, this job's attempts finished by `now` and how many were outliers (Dolly
    /// §3.2): for a caller that learns p_m across jobs (`policy::OutlierLearner`).
    pub fn node_outlier_observations(&mut self, now: Millis) -> Vec<(NodeName, u32, u32)> {
        self.policy.node_outlier_observations(now, &self.job)
    }

    /// Speculative copies other jobs of the cluster run or wait for, when the caller knows it
    /// (a simulator does; an AM does not): LATE's SpeculativeCap counts them (LATE §4: the cap is
    /// on the cluster's copies).
    pub fn set_copies_elsewhere(&mut self, copies: u32) {
        self.job.copies_elsewhere = copies;
    }

    /// An attempt started, on `node` when known.
    fn attempt_started(&mut self, now: Millis, attempt: AttemptId, node: Option<NodeIdx>) {
        let job = &mut self.job;
        let started = job.start_attempt(attempt, now, node);
        if started.new {
            self.ledger.started(attempt, started.is_copy);
        }
        if !started.placed_before && node.is_some() {
            // Only the engine's copies are vetoed: Hadoop's own attempts are not looked up again.
            if started.is_copy {
                self.vetoes.placed(job, attempt);
            }
            if let Some(p) = self.placement.as_mut() {
                p.placed(job, attempt);
            }
        }
    }

    /// Takes one event at the caller's time. Times are taken as given: an attempt's start may be
    /// reported after later events, and every duration derived from them is clamped at zero.
    pub fn ingest(&mut self, now: Millis, event: Event) {
        if self.config.panic_on == PanicOn::Event {
            panic!("injected panic on an event (rein.test.panic-on=event)");
        }
        let job = &mut self.job;
        match event {
            Event::JobCreated { maps, reduces } => {
                job.ensure_tasks(TaskKind::Map, maps);
                job.ensure_tasks(TaskKind::Reduce, reduces);
            }
            Event::TaskInput { task, bytes } => job.set_input_bytes(task, bytes),
            Event::TaskOutput { task, bytes } => job.task_mut(task).set_output_bytes(Some(bytes)),
            Event::ContainerNeed { task, delta } => job.add_container_need(task, delta, now),
            Event::AttemptStarted { attempt, node, rack } => {
                let topology = &self.config.topology;
                let node = node.map(|n| job.intern_node(&n, topology.rack_of(&n).or(rack.as_deref())));
                self.attempt_started(now, attempt, node);
            }
            Event::NodeNamed { id, node, rack } => {
                let idx = job.intern_node(&node, self.config.topology.rack_of(&node).or(rack.as_deref()));
                job.name_node(id, idx);
            }
            Event::AttemptStartedOn { attempt, node } => {
                let node = job.named_node(node);
                self.attempt_started(now, attempt, node);
            }
            Event::AttemptStatus { attempt, progress, phase } => {
                job.report(attempt, now, progress, phase, self.smoothing_ms);
            }
            Event::AttemptFinished { attempt, outcome } => {
                let state = match outcome {
                    Outcome::Succeeded => AttemptState::Succeeded,
                    Outcome::Failed => AttemptState::Failed,
                    Outcome::Killed => AttemptState::Killed,
                };
                job.finish_attempt(attempt, now, state);
                take(&mut self.kills, &attempt);
                self.ledger.finished(now, attempt, outcome, job);
            }
            Event::Capacity { total_slots, free_slots } => {
                if self.config.slots.is_none() {
                    job.reported_slots = Some(total_slots.max(1));
                }
                job.free_slots = free_slots;
            }
            Event::NodeLost { node } => {
                let idx = job.intern_node(&node, self.config.topology.rack_of(&node));
                job.mark_node_lost(idx);
            }
            Event::CopyDropped { task } => {
                self.ledger.copy_dropped(now, task);
                job.drop_copy_pending(task);
            }
            Event::KillDropped { attempt } => {
                self.ledger.kill_dropped(now, attempt);
                match self.kills.remove(&attempt) {
                    Some(Kill::Restart) => job.book_restart(attempt.task, true),
                    Some(Kill::Veto) => {
                        // The veto booked its copy's replacement as pending: no replacement comes.
                        job.drop_copy_pending(attempt.task);
                        self.vetoes.undo(attempt.task);
                    }
                    Some(Kill::Move) => {
                        if let Some(p) = self.placement.as_mut() {
                            p.undo(attempt);
                        }
                    }
                    None => {}
                }
            }
        }
    }

    /// Takes the events in order, as [`Engine::ingest`] one by one would, leaving `events` empty
    /// (its room kept for the caller's next batch), and asks for each event's task records
    /// [`INGEST_AHEAD`] events before its turn: what a batch from the caller (the JNI glue's
    /// `ingest_batch`) gains over single events, whose misses on those records come one after
    /// another.
    pub fn ingest_all(&mut self, events: &mut Vec<(Millis, Event)>) {
        let mut events = events.drain(..);
        for (_, event) in events.as_slice().iter().take(INGEST_AHEAD) {
            self.prefetch_for(event);
        }
        while let Some((now, event)) = events.next() {
            if let Some((_, ahead)) = events.as_slice().get(INGEST_AHEAD - 1) {
                self.prefetch_for(ahead);
            }
            self.ingest(now, event);
        }
    }

    /// Asks for the records `event` will read.
    fn prefetch_for(&self, event: &Event) {
        match event {
            // A progress report reads no booking unless its task runs two attempts.
            Event::AttemptStatus { attempt, .. } => self.job.prefetch_task(attempt.task, false),
            // A finish also looks up its task's first success.
            Event::AttemptFinished { attempt, .. } => {
                self.job.prefetch_task(attempt.task, true);
                self.job.prefetch_first_place(attempt.task);
            }
            other => {
                if let Some(task) = other.task() {
                    self.job.prefetch_task(task, true);
                }
            }
        }
    }

    /// Vetoes the copies that landed where they should not have (booking their replacements as
    /// pending copies) and, under Mantri, moves the reduces that started on a rack over its plan;
    /// then asks the policy what to do at `now` and books the copies it requests as pending.
    /// Vetoes come first, then moves.
    pub fn decide(&mut self, now: Millis) -> Vec<Action> {
        if self.config.panic_on == PanicOn::Decide {
            panic!("injected panic on a decision (rein.test.panic-on=decide)");
        }
        let mut actions = self.vetoes.decide(&mut self.job);
        if let Some(p) = self.placement.as_mut().filter(|_| self.config.speculate_reduces) {
            actions.extend(p.decide(now, &self.job));
        }
        for action in &actions {
            kill_asked(&mut self.kills, action);
        }
        let mut proposed = self.policy.decide(now, &self.job);
        let (job, config, kills, vetoes) = (&mut self.job, &self.config, &mut self.kills, &mut self.vetoes);
        vetoes.reserve(job, proposed.len());
        // One pass over the policy's actions: each is checked, then booked, while its task is at
        // hand (a decision can return 100K of them, in the order of their rank, not of tasks).
        // Each action is booked on the job's compact records (`model::Booking`, the succeeded
        // bitset), not on its task's: the actions come in rank order, the tasks at random.
        // Kept in place, in order, by hand rather than by `retain`: its call for each action was
        // not inlined (a call, a frame and six registers saved per copy of 100K).
        let mut kept = 0;
        for i in 0..proposed.len() {
            if let Some(ahead) = proposed.get(i + BOOK_AHEAD) {
                prefetch_lines(ahead);
            }
            if book(&proposed[i], job, config, kills, vetoes, now) {
                if kept != i {
                    proposed.swap(kept, i);
                }
                kept += 1;
            }
        }
        proposed.truncate(kept);
        // Usually nothing was vetoed or moved: the policy's list is the answer, not copied.
        if actions.is_empty() {
            actions = proposed;
        } else {
            actions.append(&mut proposed);
        }
        if self.ledger.is_on() {
            self.ledger.reserve(actions.len());
            for action in &actions {
                self.ledger.decided(now, action, &self.job);
            }
        }
        actions
    }

    /// The decision log's records since the last call, one JSON object each, oldest first:
    /// decisions and their outcomes. Empty unless `rein.decision-log` is on.
    pub fn take_records(&mut self) -> Vec<String> {
        self.ledger.take()
    }

    /// The decision log's summary record at `now` (actions, copies, cost, savings, their ratio).
    pub fn summary_record(&self, now: Millis) -> String {
        self.ledger.summary(now, &self.job)
    }

    /// Return on investment so far (zero unless `rein.decision-log` is on).
    pub fn roi(&self) -> Roi {
        self.ledger.roi()
    }
}

/// Remembers a kill the engine asks for, and which budget it was charged to.
fn kill_asked(kills: &mut IdMap<AttemptId, Kill>, action: &Action) {
    let kill = match action {
        Action::Restart { attempt, .. } => Some((*attempt, Kill::Restart)),
        Action::Veto { attempt, .. } => Some((*attempt, Kill::Veto)),
        Action::Move { attempt, .. } => Some((*attempt, Kill::Move)),
        Action::Speculate { .. } | Action::Clone { .. } => None,
    };
    if let Some((attempt, kill)) = kill {
        kills.insert(attempt, kill);
    }
}

/// Checks one of the policy's actions and books it (`Engine::decide`): false for one to drop.
#[inline(always)]
fn book(action: &Action, job: &mut JobState, config: &Config, kills: &mut IdMap<AttemptId, Kill>, vetoes: &mut VetoLoop, now: Millis) -> bool {
    // A task the job has, not succeeded, of a kind the job speculates: the booking below
    // takes all three as checked. Asked in each arm, on the task the arm reads (one
    // match on the action, not two).
    let admitted = |job: &JobState, task: TaskId| job.has_task(task) && !job.task_succeeded(task) && config.speculates(task.kind);
    match action {
        Action::Speculate { task, avoid_nodes, .. } => {
            if !admitted(job, *task) {
                return false;
            }
            vetoes.asked_copy(job, *task, Some(avoid_nodes));
            job.book_copies(*task, 1, now);
        }
        // A clone avoids its task's running attempts, which the veto loop's judgement
        // adds anyway.
        Action::Clone { task, copies, .. } => {
            if !admitted(job, *task) {
                return false;
            }
            vetoes.asked_copy(job, *task, None);
            if *copies > 0 {
                job.book_copies(*task, *copies, now);
            }
        }
        Action::Restart { attempt, .. } => {
            // Never a kill that could land on finished work (see `Attempt::finishing`).
            let safe = job.attempt(*attempt).is_some_and(|x| !x.finishing());
            if !admitted(job, attempt.task) || !safe {
                return false;
            }
            kill_asked(kills, action);
            job.book_restart(attempt.task, false);
        }
        Action::Veto { attempt, .. } | Action::Move { attempt, .. } => {
            if !admitted(job, attempt.task) {
                return false;
            }
            kill_asked(kills, action);
        }
    }
    true
}
