//! Mantri — resource-aware restart (Ananthanarayanan et al., OSDI 2010, §5.1 Pseudocode 1, with
//! the estimates of §5.5 and the data-aware view of §5.4).
//!
//! For each running task: t_rem from progress reports (moving average, silence counts as no
//! progress, plus wrap-up), and t_new as a distribution = process rate of the phase (time per
//! byte of finished tasks) × the task's input bytes + scheduling lag. Then, while tasks wait for
//! slots: kill and restart if t_rem > E[t_new] + Δ (at most γ times), else duplicate if
//! P(t_rem > t_new·(c+1)/c) > δ; once every task has started: duplicate iff
//! E[t_rem − t_new] > ρΔ. A task is not copied again soon after a copy, never beyond three
//! running copies, and ties go to the task that gains most. Because t_new scales with the input a
//! task must read, a task that runs long only because it has more data is left alone.
//!
//! Where Hadoop forces an approximation:
//! - Line 3 prunes copies slower than the two fastest. In Hadoop killing an attempt of an
//!   unfinished task always creates a replacement, so a copy cannot be pruned; rein instead never
//!   starts a copy beyond the cap, so the pruning never has anything to remove.
//! - "Start the waiting task with the largest input first" orders the scheduler's queue, which
//!   the AM's allocator owns; a speculator cannot reorder it.
//! - The location factor of the candidate machine is 1: the AM does not know where a copy will
//!   land. Copies name the nodes of the task's running attempts to avoid.
//! - "While slots are available" is the caller's free-slot count when reported, else the job's
//!   slots less what it runs or waits for, and at least one copy per decision: the AM does not
//!   see the moment a slot frees, and a copy it asks for queues like any other request.
//! - "All tasks have begun" is read as: no task of the job waits for a container.
//! - An attempt that has not reported any progress yet (its JVM is starting) is not judged until
//!   it has run longer than E[t_new] + Δ: with no report there is no estimate, and Hadoop's first
//!   report comes only after JVM start-up, which can exceed Δ.
//! - t_new keeps start-up out of the scaling by data (`rein.mantri.scale-startup`, default false):
//!   §5.5 scales "the process rate, i.e. Δtime/Δdata" of finished tasks by the task's input, and
//!   their run time from launch includes a container's start-up (JVM, task set-up: seconds to
//!   tens of seconds), which does not grow with the data. Scaled whole, a task with four times
//!   its siblings' input is given a copy time of four start-ups. rein takes each finished task's
//!   time per byte from its first progress on, and adds the mean start-up (launch to first
//!   progress) once: t_new = start-up + processRate·d + schedLag. So that t_rem does not count
//!   start-up as work either, an attempt with a single report (its score over its whole life,
//!   start-up included, is all the pace it shows) is judged only after a second report or Δ of
//!   silence. With `true`, the whole run time is scaled and judging waits for nothing, as printed.

use std::sync::Arc;

use crate::action::{Action, AvoidNodes, MantriRule, Reason, SharedNodes};
use crate::config::{Config, MantriConfig};
use crate::estimate::{Estimator, EstimatorMemo};
use crate::model::{AttemptId, Brief, Done, JobState, Millis, NodeIdx, NodeName, Task, TaskId, TaskKind};
use crate::policy::grass::{Silence, StartupBar};
use crate::policy::{copy_room, rank_descending, rank_descending_top, walk_running, Policy, TopFloor};
use crate::stats::{from_order_key, order_key};

pub struct Mantri {
    cfg: MantriConfig,
    /// Δ in seconds, from `cfg`: worked out once, not for every task judged (a division each).
    delta_s: f64,
    samples: [Samples; 2],
    estimators: EstimatorMemo,
}

/// The distribution of t_new for tasks of one kind: samples of seconds per byte of input (or,
/// when sizes are unknown, seconds per task), sorted, the start-up added to them unscaled, and
/// the scheduling lag.
struct NewCopyModel<'s> {
    per_unit: &'s [f64],
    mean_per_unit: f64,
    by_bytes: bool,
    startup_s: f64,
    lag_s: f64,
}

/// The samples behind [`NewCopyModel`] for one task kind, kept between decisions: a decision
/// adds the tasks that succeeded since the last one instead of collecting and sorting them all.
#[derive(Default)]
struct Samples {
    /// `JobState::inputs_epoch`, the first successes (`JobState::first_success_count`) and the
    /// succeeded attempts when last brought up to date.
    epoch: u64,
    successes: usize,
    attempts: usize,
    by_bytes: bool,
    per_unit: Vec<f64>,
    mean_per_unit: f64,
    /// Whether the whole run time is scaled by bytes (`rein.mantri.scale-startup`); if not, the
    /// samples' start-ups are kept apart: their sum, and their mean once sizes are in use.
    scale_startup: bool,
    startup_sum: f64,
    startup_s: f64,
    /// The values of the samples a decision adds, before they are merged in: kept between
    /// decisions, so that its room is reused. Made afresh each time, the tens of thousands a
    /// second of a big job's scans brings at a wave's end were fresh memory that the job's own
    /// growing lists had taken meanwhile: 900 of the 1,250 page faults of a streamed job's
    /// decisions (`job_stream mantri`, events in batches), about 1.7 µs each.
    fresh_units: Vec<f64>,
}

/// One finished task as t_new sees it: its first succeeded attempt's run time and start-up
/// (launch to first progress; zero when it showed none before it ended), and its input bytes.
#[derive(Clone, Copy)]
struct Sample {
    secs: f64,
    startup: f64,
    bytes: Option<u64>,
}

impl Sample {
    /// Task `id`'s sample from its first success (its run time and start-up); its input bytes
    /// only `with_bytes`.
    fn of(job: &JobState, id: TaskId, first: &Done, with_bytes: bool) -> Sample {
        let startup = first.startup_ms().map_or(0.0, |ms| (ms as f64 / 1000.0).min(first.secs));
        Sample { secs: first.secs, startup, bytes: if with_bytes { job.input_bytes(id) } else { None } }
    }
}

/// Floats in `total_cmp`'s order.
fn sorted(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut sorted: Vec<f64> = values.collect();
    sort_by_order_key(&mut sorted);
    sorted
}

/// Sorts floats in `total_cmp`'s order, as the whole numbers whose order that is (`order_key`),
/// each held in its float's place meanwhile (`to_bits` and `from_bits` keep every bit): tens of
/// thousands a scan at the end of a wave, where comparing the floats took longer. Equal keys are
/// equal floats, so the order is the one sort there is.
fn sort_by_order_key(values: &mut [f64]) {
    values.iter_mut().for_each(|x| *x = f64::from_bits(order_key(*x)));
    values.sort_unstable_by_key(|x| x.to_bits());
    values.iter_mut().for_each(|x| *x = from_order_key(x.to_bits()));
}

impl Samples {
    fn new(scale_startup: bool) -> Samples {
        Samples { scale_startup, ..Samples::default() }
    }

    /// The samples of the tasks whose first successes (`Done::was_first`) are among `done`, a
    /// stretch of the job's succeeded attempts (`JobState::succeeded_attempts`), in their order:
    /// each task's first succeeded attempt (in attempt order), its start-up kept with it, found
    /// through the job's index of first successes (`JobState::first_success`), without reading
    /// the tasks' records: a second of a big job's scans brings tens of thousands, listed in the
    /// order they finished as the successes are. Their input bytes are read only `with_bytes`
    /// (else None): a job that reports none has no use for them, and each is a read at random.
    fn samples(job: &JobState, kind: TaskKind, done: &[Done], with_bytes: bool) -> Vec<Sample> {
        let task = |d: &Done| TaskId { kind, index: d.key.0 };
        // Room for every attempt of the stretch: a filtered list's length is not known ahead.
        let mut samples = Vec::with_capacity(done.len());
        samples.extend(done.iter().enumerate().filter(|(_, d)| d.was_first()).map(|(i, d)| {
            // The tasks lie at random: their places are asked for 16 ahead, what the places
            // point to 8 ahead, and the reads overlap instead of waiting one after another.
            if let Some(ahead) = done.get(i + 16) {
                job.prefetch_first_place(task(ahead));
            }
            if let Some(ahead) = done.get(i + 8) {
                job.prefetch_first_success(task(ahead));
            }
            let first = job.first_success(task(d)).expect("a task that succeeded has a success listed");
            Sample::of(job, task(d), first, with_bytes)
        }));
        samples
    }

    /// `samples` of the tasks that first succeeded since `succeeded_attempts` held `from`
    /// attempts, where every attempt that succeeded since was its task's first success and none
    /// was ever lost (`JobState::success_ever_lost`): each such task's first success is the one
    /// listed with it, so they are read in the list's order, one after another, instead of
    /// through the index of first successes, a read at random each (a third of Mantri's scans at
    /// the end of a wave, where 33K succeed in a second).
    fn listed(job: &JobState, kind: TaskKind, from: usize, with_bytes: bool) -> impl Iterator<Item = Sample> + '_ {
        job.succeeded_attempts(kind)[from..].iter().map(move |done| {
            let id = TaskId { kind, index: done.key.0 };
            debug_assert_eq!(job.first_success(id).map(|d| d.key), Some(done.key), "a first success");
            Sample::of(job, id, done, with_bytes)
        })
    }

    /// A sample's value: seconds per byte of its work (with or without its start-up), or
    /// seconds per task.
    fn unit(&self, s: Sample, by_bytes: bool) -> f64 {
        match (by_bytes, self.scale_startup) {
            (true, true) => s.secs / s.bytes.unwrap() as f64,
            (true, false) => (s.secs - s.startup) / s.bytes.unwrap() as f64,
            (false, _) => s.secs,
        }
    }

    /// Brings the samples up to date with the job; exactly what collecting every finished task's
    /// first succeeded attempt and sorting would give.
    fn update(&mut self, job: &JobState, kind: TaskKind) {
        let firsts = job.first_success_count(kind);
        let attempts = job.succeeded_attempts(kind).len();
        let fresh = firsts.saturating_sub(self.successes);
        let incremental = self.epoch == job.inputs_epoch()
            && self.successes <= firsts
            // A task that succeeded twice could change which attempt is its first.
            && attempts - self.attempts == fresh
            // The tasks that first succeeded since are those of the attempts listed since.
            && (!self.by_bytes || job.first_successes(kind, self.attempts).all(|t| job.input_bytes(TaskId { kind, index: t }).is_some_and(|b| b > 0)));
        if incremental && (self.successes > 0 || firsts == 0) {
            if fresh == 0 {
                return;
            }
            // Merged in together, not each put in its place in turn: a second of a big job's
            // scans can bring tens of thousands, and each insertion moved half the list.
            let mut units = std::mem::take(&mut self.fresh_units);
            units.clear();
            let mut startup_sum = self.startup_sum;
            let mut add = |s: Sample| {
                startup_sum += s.startup;
                units.push(self.unit(s, self.by_bytes));
            };
            if job.success_ever_lost() {
                Samples::samples(job, kind, &job.succeeded_attempts(kind)[self.attempts..], self.by_bytes).into_iter().for_each(&mut add);
            } else {
                Samples::listed(job, kind, self.attempts, self.by_bytes).for_each(&mut add);
            }
            debug_assert_eq!(units.len(), fresh);
            sort_by_order_key(&mut units);
            crate::model::merge_sorted(&mut self.per_unit, &units);
            (self.startup_sum, self.fresh_units) = (startup_sum, units);
        } else {
            let samples = Samples::samples(job, kind, job.succeeded_attempts(kind), true);
            self.by_bytes = samples.iter().all(|s| s.bytes.is_some_and(|b| b > 0));
            self.per_unit = sorted(samples.iter().map(|s| self.unit(*s, self.by_bytes)));
            self.startup_sum = samples.iter().map(|s| s.startup).sum();
        }
        self.epoch = job.inputs_epoch();
        self.successes = firsts;
        self.attempts = attempts;
        let n = self.per_unit.len() as f64;
        self.mean_per_unit = self.per_unit.iter().sum::<f64>() / n;
        self.startup_s = if self.by_bytes && !self.scale_startup { self.startup_sum / n } else { 0.0 };
    }
}

impl<'s> NewCopyModel<'s> {
    fn new(job: &JobState, kind: TaskKind, samples: &'s mut Samples) -> Option<NewCopyModel<'s>> {
        samples.update(job, kind);
        if samples.per_unit.is_empty() {
            return None;
        }
        let lag_s = job.sched_lag.get().unwrap_or(0.0) / 1000.0;
        Some(NewCopyModel {
            per_unit: &samples.per_unit,
            mean_per_unit: samples.mean_per_unit,
            by_bytes: samples.by_bytes,
            startup_s: samples.startup_s,
            lag_s,
        })
    }

    /// The data a new copy of `task` must process, in the samples' unit.
    fn scale(&self, job: &JobState, task: TaskId) -> Option<f64> {
        if self.by_bytes {
            job.input_bytes(task).filter(|b| *b > 0).map(|b| b as f64)
        } else {
            Some(1.0)
        }
    }

    /// E[t_new] (Mantri §5.5, Eq. 2, location factor 1; start-up apart, see the module notes).
    fn mean(&self, scale: f64) -> f64 {
        self.startup_s + self.mean_per_unit * scale + self.lag_s
    }

    /// P(t_new < x), by binary search over the sorted samples.
    fn prob_below(&self, scale: f64, x: f64) -> f64 {
        let bound = (x - self.lag_s - self.startup_s) / scale;
        self.per_unit.partition_point(|r| *r < bound) as f64 / self.per_unit.len() as f64
    }
}

/// What one decision sees of the job for a task kind: its estimates, whether tasks wait, and the
/// kind's start-up bar (GRASS's, built at its first use).
struct View<'a> {
    now: Millis,
    job: &'a JobState,
    model: &'a NewCopyModel<'a>,
    estimator: &'a Estimator,
    waiting: bool,
    /// The gain a duplicate must have to make the free slots, as the walk has found so far.
    floor: &'a TopFloor,
    bar: std::cell::OnceCell<StartupBar>,
}

/// A rule that fired for a task, with the numbers behind it: small to rank (48 bytes), made an
/// action once it is known to be taken. What the action needs of the task is taken while the
/// task is at hand: candidates are taken in rank order, and a decision can rank 100K of them. The
/// gain and the bar the rule cleared follow from these (`gain_s`, `threshold`). The attempt's id
/// is kept in its parts, so that the kind and the rule share a word.
struct Candidate {
    t_rem: f64,
    t_new: f64,
    /// P(t_rem > t_new·(c+1)/c): what the duplicate-while-waiting rule read (`probability`).
    p: f64,
    kind: TaskKind,
    rule: MantriRule,
    /// The task's index, and the number of its attempt with the least time left.
    index: u32,
    n: u32,
    /// The node of the task's only placed running attempt (None if none is placed), or None
    /// when more than one is placed.
    own_node: Option<Option<NodeIdx>>,
    copies: u32,
}

const _: () = assert!(std::mem::size_of::<Candidate>() <= 48);

impl Candidate {
    fn attempt(&self) -> AttemptId {
        TaskId { kind: self.kind, index: self.index }.attempt(self.n)
    }

    /// The probability behind the rule, for the one rule that reads one.
    fn probability(&self) -> Option<f64> {
        (self.rule == MantriRule::DuplicateWhileWaiting).then_some(self.p)
    }

    /// What a copy would gain: t_rem − E[t_new].
    fn gain_s(&self) -> f64 {
        self.t_rem - self.t_new
    }
}

/// What Mantri's rules read of a task (`id`) and its running attempts (`Mantri::judge`): of the
/// one with the least time left, and of them all.
struct Seen {
    id: TaskId,
    t_rem: f64,
    /// The number of the attempt with the least time left, its progress, time run and last
    /// report's time, and whether its window holds a single report.
    n: u32,
    progress: f64,
    elapsed_ms: Millis,
    reported_at: Millis,
    one_report: bool,
    /// Whether every running attempt has run less than Δ.
    all_young: bool,
    running: u32,
    /// As `Candidate::own_node`.
    own_node: Option<Option<NodeIdx>>,
}

impl Mantri {
    pub fn new(config: &Config) -> Mantri {
        let samples = [Samples::new(config.mantri.scale_startup), Samples::new(config.mantri.scale_startup)];
        let delta_s = config.mantri.delta_ms as f64 / 1000.0;
        Mantri { cfg: config.mantri.clone(), delta_s, samples, estimators: EstimatorMemo::default() }
    }

    /// Judges a task from the attempts of its record (`judge`).
    fn consider(&self, task: &Task, view: &View) -> Option<Candidate> {
        let (now, job) = (view.now, view.job);
        let running = || job.running_attempts_of(task);
        let (t_rem, attempt) = running()
            .map(|a| (view.estimator.time_left_s(task.id.kind, a), a))
            .min_by(|x, y| x.0.total_cmp(&y.0))?;
        let mut placed = running().filter_map(|a| a.node);
        let seen = Seen {
            id: task.id,
            t_rem,
            n: attempt.id.n,
            progress: attempt.progress,
            elapsed_ms: attempt.elapsed(now),
            reported_at: attempt.reported_at(),
            one_report: attempt.reports().nth(1).is_none(),
            all_young: running().all(|a| a.elapsed(now) < self.cfg.delta_ms),
            running: running().count() as u32,
            own_node: match (placed.next(), placed.next()) {
                (first, None) => Some(first),
                _ => None,
            },
        };
        let late_to_start = || Silence::of(attempt, now).late_to_start(job, task.id.kind, now, self.cfg.first_progress_factor, &view.bar);
        self.judge(&seen, view, late_to_start)
    }

    /// Judges a task with one running attempt from the task's brief (`judge`), without reading
    /// its record, and pushes the candidate it makes onto `out`: false when the brief does not
    /// hold all the judgement reads (an attempt whose estimate needs more:
    /// `Estimator::brief_time_left_s`). The same judgement as `consider`'s, on the same values; an
    /// attempt with no progress is asked whether it is late to start from its brief too (a wave's
    /// newly started attempts). The candidate is written straight into `out`: returned, it was
    /// written field by field and read back in wider pieces, which the processor cannot forward
    /// from its stores (a tenth of a decision that judges 100K tasks).
    fn consider_brief(&self, id: TaskId, b: &Brief, view: &View, out: &mut Vec<Candidate>) -> bool {
        let (now, job) = (view.now, view.job);
        // An attempt younger than Δ is not judged (`judge`): let go before it is estimated
        // (after a wave's end, the 33K just started).
        let elapsed_ms = b.elapsed(now);
        let all_young = elapsed_ms < self.cfg.delta_ms;
        if all_young {
            return true;
        }
        let Some(t_rem) = view.estimator.brief_time_left_s(id.kind, b) else { return false };
        let seen = Seen {
            id,
            t_rem,
            n: b.attempt(id).n,
            progress: b.progress(),
            elapsed_ms,
            reported_at: b.reported_at(),
            one_report: b.report_count() < 2,
            all_young,
            running: 1,
            own_node: Some(b.node()),
        };
        let late_to_start = || Silence::of_brief(b, now).late_to_start(job, id.kind, now, self.cfg.first_progress_factor, &view.bar);
        if let Some(c) = self.judge(&seen, view, late_to_start) {
            out.push(c);
        }
        true
    }

    /// Pseudocode 1's rules for one task, from what was seen of its running attempts;
    /// `late_to_start` is asked only of an attempt that has shown no progress.
    fn judge(&self, seen: &Seen, view: &View, late_to_start: impl FnOnce() -> bool) -> Option<Candidate> {
        let (now, job, model) = (view.now, view.job, view.model);
        let (id, waiting) = (seen.id, view.waiting);
        let delta_s = self.delta_s;
        let t_rem = seen.t_rem;
        // "after Δ time has passed since begin": judge a task only once it has reported.
        if seen.all_young {
            return None;
        }
        let scale = model.scale(job, id)?;
        let t_new = model.mean(scale);
        // An attempt that has reported no progress yet (a JVM still starting) carries no
        // information; it is judged, at an infinite t_rem, only once it has run longer than a
        // fresh copy would take.
        if seen.progress <= 0.0 && (seen.elapsed_ms as f64 / 1000.0) < t_new + delta_s {
            return None;
        }
        // E[t_new] early in a wave is the mean of the quickest finishers only, and on a loaded
        // node a JVM can take longer to start than they took in all: a healthy bench run had three
        // maps restarted, silent at 27 s against E[t_new] + Δ = 26 s, a second before each would
        // have finished. With `rein.mantri.first-progress-factor` such an attempt must also be late
        // to start against its siblings (LATE's start-up bar, `grass::Silence::late_to_start`).
        if seen.progress <= 0.0 && !late_to_start() {
            return None;
        }
        // With start-up kept out of t_new (`rein.mantri.scale-startup` false), neither may t_rem
        // count it as work: an attempt's first report gives no pace but its score over its whole
        // life, start-up included. It is judged once a second report shows its pace, or once it
        // has been silent for Δ (§5.5: no progress assumed since the last report).
        if !self.cfg.scale_startup && seen.one_report && now - seen.reported_at <= self.cfg.delta_ms {
            return None;
        }
        let gain_s = t_rem - t_new;
        // With no task waiting, nothing is restarted and a duplicate must gain more than ρΔ: most
        // tasks of a scan end here, before what only a candidate needs is looked up.
        if !waiting && gain_s <= self.threshold(MantriRule::DuplicateAtEnd, t_new) {
            return None;
        }
        // Nor one that the duplicates already found outrank for every free slot (`TopFloor`).
        if !view.floor.admits(gain_s) {
            return None;
        }
        let booked = job.booking(id);
        let copies = seen.running + booked.copies_pending();
        let (kind, index, n, own_node) = (id.kind, id.index, seen.n, seen.own_node);

        // A restart replaces the task's only running attempt. A duplicate asked for earlier that
        // has not found a slot (it queues like any request) does not count: it must not block
        // the restart that frees the straggler's slot.
        if waiting && seen.running == 1 && booked.restarts() < self.cfg.max_restarts && t_rem > t_new + delta_s {
            let rule = MantriRule::Restart;
            return Some(Candidate { t_rem, t_new, p: 0.0, kind, rule, index, n, own_node, copies });
        }
        let recently = booked.last_copy_at().is_some_and(|at| now - at < self.cfg.recopy_after_ms);
        if copies >= self.cfg.max_copies || booked.copies_pending() > 0 || recently {
            return None;
        }
        let (rule, p) = if waiting {
            // P(t_rem > t_new·(c+1)/c) = P(t_new < t_rem·c/(c+1)).
            let c = copies as f64;
            let p = model.prob_below(scale, t_rem * c / (c + 1.0));
            if p <= self.cfg.duplicate_threshold {
                return None;
            }
            (MantriRule::DuplicateWhileWaiting, p)
        } else {
            // Its bar, gain_s > ρΔ, was cleared above.
            (MantriRule::DuplicateAtEnd, 0.0)
        };
        Some(Candidate { t_rem, t_new, p, kind, rule, index, n, own_node, copies })
    }

    /// The bar a rule's numbers must clear: E[t_new] + Δ in seconds (restart), δ (duplicate
    /// while tasks wait), ρΔ in seconds (duplicate at the end).
    fn threshold(&self, rule: MantriRule, t_new: f64) -> f64 {
        let delta_s = self.delta_s;
        match rule {
            MantriRule::Restart => t_new + delta_s,
            MantriRule::DuplicateWhileWaiting => self.cfg.duplicate_threshold,
            MantriRule::DuplicateAtEnd => self.cfg.rho * delta_s,
        }
    }

    /// The action for a candidate; a copy avoids the nodes of the task's running attempts and
    /// the `lost` ones (sorted). Made where it is to lie, in the list of actions: inlined into
    /// the `extend` that writes it, its reason made in each arm (where it lies at a place of its
    /// own in the action). Made once before the arms, or returned from a call, or pushed, each
    /// action was first written field by field to the stack, then copied to its place by loads
    /// wider than those writes, which the processor cannot serve from them and waits on (0.7 ms
    /// of the 100K copies of a first decision where all are late).
    #[inline(always)]
    fn action(&self, job: &JobState, c: &Candidate, lost: &SharedNodes) -> Action {
        let reason = || Reason::Mantri {
            rule: c.rule,
            t_rem_s: c.t_rem,
            t_new_mean_s: c.t_new,
            probability: c.probability(),
            copies: c.copies,
            delta_s: self.delta_s,
            threshold: self.threshold(c.rule, c.t_new),
        };
        if c.rule == MantriRule::Restart {
            return Action::Restart { attempt: c.attempt(), reason: reason() };
        }
        let avoid = match c.own_node {
            // The usual case, one running attempt: the lost nodes are shared, not copied.
            Some(own) => AvoidNodes::new(lost, own.map(|n| job.node(n).name)),
            None => {
                let task = job.task(c.attempt().task).expect("a candidate's task is the job's");
                let own = job.running_attempts_of(task).filter_map(|a| a.node).map(|n| job.node(n).name);
                own.chain(lost.iter().cloned()).collect()
            }
        };
        Action::Speculate { task: c.attempt().task, avoid_nodes: avoid, prefer_rack: None, reason: reason() }
    }
}

impl Policy for Mantri {
    fn name(&self) -> &'static str {
        "mantri"
    }

    fn reads_startup_bar(&self) -> bool {
        true
    }

    fn decide(&mut self, now: Millis, job: &JobState) -> Vec<Action> {
        let estimator = self.estimators.estimator(self.cfg.estimator, job, now, self.cfg.delta_ms)
            .extrapolate_after_read(self.cfg.extrapolate_after_read)
            .min_window_ms(self.cfg.min_window_ms);
        // Tasks wait for slots (§5.1): the containers the job waits for beyond its own copies, whose
        // requests Hadoop counts too (`JobState::containers_wanted_beyond_copies`).
        let waiting = job.containers_wanted_beyond_copies() > 0;
        let running = job.running_task_total();
        let mut candidates = Vec::with_capacity(running);
        // Pseudocode 1 runs once per freed slot; a scan stands for at least one such moment, and
        // for no more than `rein.max-copies-per-scan` of them (`copy_room`).
        let mut slots = copy_room(job).max(1);
        // With no task waiting every candidate is a duplicate, each taking a slot, and only the
        // first `slots` of the order are read: the walk lets go a task that `slots` candidates
        // found before it outrank (`TopFloor`).
        let floor = TopFloor::new(if waiting { usize::MAX } else { slots as usize }, running, true);
        let mut samples = std::mem::take(&mut self.samples);
        for (kind, samples) in TaskKind::ALL.into_iter().zip(samples.iter_mut()) {
            let Some(model) = NewCopyModel::new(job, kind, samples) else { continue };
            let view = View { now, job, model: &model, estimator: &estimator, waiting, floor: &floor, bar: std::cell::OnceCell::new() };
            // Only a task with a running attempt can be judged (`consider`).
            // With no task waiting, a copy must gain more than ρΔ over E[t_new]: a task whose one
            // attempt is certainly short of that is passed over from its brief, without estimating
            // it or reading its record (most of a healthy scan's tasks; every path of `consider`
            // ends the same for it).
            // The shortcut is tried as the walk chooses: on a job where all are late it fails on
            // each task, a bound worked out for nothing before the estimate (0.4 ms of the first
            // decision at 100K; a healthy scan pays 0.02 ms for the tasks it then estimates).
            let passed_over = |id: TaskId, shortcut: bool| {
                if waiting || !shortcut {
                    return false;
                }
                match (job.brief(id), model.scale(job, id)) {
                    (Some(b), Some(scale)) => {
                        let t_new = model.mean(scale);
                        let least = t_new + self.threshold(MantriRule::DuplicateAtEnd, t_new);
                        estimator.brief_time_left_clearly_at_most(kind, b, least)
                    }
                    _ => false,
                }
            };
            // A task with one running attempt is judged from its brief where the brief holds all
            // the judgement reads (every late task of a job where all are late); the walk reads
            // the records of the others only.
            let look = |id: TaskId, candidates: &mut Vec<Candidate>| match job.brief(id) {
                Some(b) => !self.consider_brief(id, b, &view, candidates),
                None => true,
            };
            let read = |task| self.consider(task, &view);
            let raise = |list: &[Candidate]| floor.raise(list, Candidate::gain_s);
            walk_running(job, kind, passed_over, look, read, &mut candidates, raise);
        }
        self.samples = samples;
        // Ties go to the task that gains most; among equal gains, the lower task id. With no task
        // waiting every candidate is a duplicate, each taking a slot: only the first `slots` of
        // the order are read, so only they are sorted (the exact prefix of the full order).
        let gains = candidates.iter().map(Candidate::gain_s);
        let order = if waiting { rank_descending(gains) } else { rank_descending_top(gains, slots as usize) };
        // Node names are interned, so sorting leaves no repeats.
        let mut lost: Vec<NodeName> = job.nodes().filter(|(_, n)| n.lost).map(|(_, n)| n.name).collect();
        lost.sort();
        let lost = Arc::new(lost);
        let mut actions = Vec::with_capacity(order.places().len());
        // With no task waiting, every candidate is a duplicate and the order holds as many as
        // there are slots: one `extend` of a list of known length (`action`).
        if !waiting {
            actions.extend(order.of(&candidates).map(|c| self.action(job, c, &lost)));
            return actions;
        }
        for c in order.of(&candidates) {
            if c.rule != MantriRule::Restart {
                if slots == 0 {
                    continue;
                }
                slots -= 1;
            }
            actions.push(self.action(job, c, &lost));
        }
        actions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, Outcome};
    use crate::model::{Phase, TaskId};
    use crate::Engine;

    /// A straggler is judged from Δ after it started, not before: its brief, read without its
    /// record, is let go while younger than Δ and judged from Δ on, as `judge` would (one
    /// millisecond either side of Δ).
    #[test]
    fn a_straggler_is_judged_from_delta_after_its_start() {
        let start: Millis = 20_000;
        let copies_at = |now: Millis| {
            let mut e = Engine::from_pairs([("rein.policy", "mantri")]).unwrap().0;
            e.ingest(0, Event::JobCreated { maps: 12, reduces: 0 });
            for i in 0..11 {
                let attempt = TaskId::map(i).attempt(0);
                e.ingest(0, Event::AttemptStarted { attempt, node: Some(format!("n{i}:1")), rack: None });
                e.ingest(2_000, Event::AttemptStatus { attempt, progress: 0.5, phase: Phase::Map });
                e.ingest(4_000, Event::AttemptFinished { attempt, outcome: Outcome::Succeeded });
            }
            let attempt = TaskId::map(11).attempt(0);
            e.ingest(start, Event::AttemptStarted { attempt, node: Some("n11:1".into()), rack: None });
            e.ingest(start + 2_000, Event::AttemptStatus { attempt, progress: 0.001, phase: Phase::Map });
            e.ingest(start + 4_000, Event::AttemptStatus { attempt, progress: 0.002, phase: Phase::Map });
            assert!(e.job().brief(TaskId::map(11)).is_some(), "the straggler is read from its brief");
            e.decide(now).iter().filter(|a| a.task() == TaskId::map(11)).count()
        };
        let delta = Engine::from_pairs([("rein.policy", "mantri")]).unwrap().0.config().mantri.delta_ms;
        assert_eq!(copies_at(start + delta - 1), 0, "judged before Δ");
        assert_eq!(copies_at(start + delta), 1, "not judged at Δ");
    }

    /// With no task waiting and fewer free slots than stragglers, the duplicates go to those that
    /// gain most (t_rem − E[t_new]), most first, equal gains to the lower task id (Pseudocode 1
    /// run once per free slot); with a slot for each, every straggler is copied in that order.
    #[test]
    fn duplicates_at_the_end_go_to_the_largest_gains_first() {
        let copied = |free: u32| {
            let mut e = Engine::from_pairs([("rein.policy", "mantri")]).unwrap().0;
            e.ingest(0, Event::JobCreated { maps: 12, reduces: 0 });
            e.ingest(0, Event::Capacity { total_slots: 100, free_slots: Some(free) });
            for i in 0..12 {
                let attempt = TaskId::map(i).attempt(0);
                e.ingest(0, Event::AttemptStarted { attempt, node: Some(format!("n{i}:1")), rack: None });
            }
            // Four siblings take 20 s; the other eight report at 10 s and 30 s, each at its own
            // steady pace (a task's progress at 30 s below: the smaller, the more time left).
            for i in 0..4 {
                e.ingest(20_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
            }
            let at_30s = [0.10, 0.05, 0.20, 0.05, 0.30, 0.02, 0.40, 0.60];
            for (i, p) in (4..12).zip(at_30s) {
                let attempt = TaskId::map(i).attempt(0);
                e.ingest(10_000, Event::AttemptStatus { attempt, progress: p / 3.0, phase: Phase::Map });
                e.ingest(30_000, Event::AttemptStatus { attempt, progress: p, phase: Phase::Map });
            }
            let actions = e.decide(30_000);
            assert!(actions.iter().all(|a| matches!(a, Action::Speculate { .. })), "{actions:?}");
            actions.iter().map(|a| a.task().index).collect::<Vec<_>>()
        };
        // E[t_new] is 20 s: maps 10 and 11 (t_rem 45 s and 20 s) gain no more than ρΔ (30 s) and
        // are never copied; maps 5 and 7 gain the same.
        assert_eq!(copied(3), [9, 5, 7]);
        assert_eq!(copied(1), [9]);
        assert_eq!(copied(100), [9, 5, 7, 4, 6, 8]);
    }

    /// Samples brought up to date decision after decision, tasks finishing in batches in any
    /// order, are exactly the samples collected afresh from the job: with every task's input
    /// size known (samples per byte), none, or some (per task, their sizes not read).
    ///
    /// With `churn`, some tasks also have a second attempt that succeeds after the first, and
    /// some lose their success (reported killed after it) and succeed again with a new attempt:
    /// the samples are then read through the index of first successes, not in the list's order.
    #[test]
    fn samples_kept_up_to_date_equal_samples_collected_afresh() {
        for churn in [false, true] {
            for sizes in [1, 0, 2] {
                samples_kept_up_to_date(sizes, churn);
            }
        }
    }

    /// The test above for a job where 1 in `sizes` tasks report their input size (none for 0).
    fn samples_kept_up_to_date(sizes: u64, churn: bool) {
        let n = 2_000u32;
        let mut e = Engine::from_pairs([("rein.policy", "mantri")]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: n, reduces: 0 });
        let mut next = crate::test_below();
        for i in 0..n {
            let attempt = TaskId::map(i).attempt(0);
            if sizes > 0 && next(sizes) == 0 {
                e.ingest(0, Event::TaskInput { task: TaskId::map(i), bytes: 1 + next(1 << 20) });
            }
            e.ingest(0, Event::AttemptStarted { attempt, node: Some(format!("n{}:1", i % 7)), rack: None });
            e.ingest(next(5_000) as Millis, Event::AttemptStatus { attempt, progress: 0.1, phase: Phase::Map });
        }
        let mut order: Vec<u32> = (0..n).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, next(i as u64 + 1) as usize);
        }
        let mut kept = Samples::new(false);
        let mut at = 10_000;
        // Tasks whose second attempt finishes in the next batch.
        let mut seconds: Vec<u32> = Vec::new();
        for batch in order.chunks(1 + next(300) as usize) {
            for i in std::mem::take(&mut seconds) {
                at += 1 + next(50) as Millis;
                e.ingest(at, Event::AttemptFinished { attempt: TaskId::map(i).attempt(1), outcome: Outcome::Succeeded });
            }
            for &i in batch {
                at += 1 + next(50) as Millis;
                e.ingest(at, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
                if churn && next(20) == 0 {
                    if next(2) == 0 {
                        e.ingest(at, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Killed });
                    }
                    let node = Some(format!("n{}:1", (i + 1) % 7));
                    e.ingest(at, Event::AttemptStarted { attempt: TaskId::map(i).attempt(1), node, rack: None });
                    e.ingest(at + 1_000, Event::AttemptStatus { attempt: TaskId::map(i).attempt(1), progress: 0.1, phase: Phase::Map });
                    seconds.push(i);
                }
            }
            kept.update(e.job(), TaskKind::Map);
            let mut fresh = Samples::new(false);
            fresh.update(e.job(), TaskKind::Map);
            assert_eq!(kept.per_unit, fresh.per_unit);
            assert_eq!((kept.mean_per_unit, kept.startup_s, kept.by_bytes), (fresh.mean_per_unit, fresh.startup_s, fresh.by_bytes));
            assert_eq!(kept.by_bytes, sizes == 1, "samples per byte exactly when every task has a size");
        }
        if !churn {
            assert_eq!(kept.per_unit.len(), n as usize);
        }
    }
}
