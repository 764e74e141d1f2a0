//! auto — cloning under light load, straggler detection under heavy load, per job and phase
//! (Xu & Lau, INFOCOM 2015, §III-B), with GRASS's cost test on every detected copy.
//!
//! Xu & Lau §III-B split a cluster's load ω = λ·E[m]·E[s]/M at a cutoff ω^U: below it, cloning
//! every task (at least two copies each) lowers the mean task delay of an M/G/1 machine,
//! W_t^c < W_t (Eq. 1, 6, 7), and SCA (§IV) clones; above it only detection helps (§V). Task times
//! are Pareto(α): for α ≤ 2 the second moment is infinite, W_t is unbounded and ω^U is Theorem 1's
//! overload bound (2α − 1)/(4(α − 1)), 0.75 at α = 2; for α > 2 ω^U is where W_t^c meets W_t
//! (≈ 0.36 at α = 3). [`cloning_cutoff`] solves it.
//!
//! In an ApplicationMaster the load a phase offers is its unfinished tasks (one copy each) plus
//! what else holds the job's slots — the other phase's running attempts and the slots other jobs
//! are known to hold — over the job's slots: ω = (m_left + busy) / slots. Per phase, then:
//! - ω < ω^U (light): each map is cloned as its first attempt starts, with SCA's P2 copy count
//!   for the tasks left and the slots free (which is one copy, no clone, when 2·m exceeds them).
//!   Reduces only with `rein.auto.clone-reduces`: a reduce clone fetches every map's output again,
//!   the intermediate-data contention Dolly §4 leaves open;
//! - otherwise (heavy), and for every task not cloned: detection. A running task is judged once
//!   it has run Δ and shown progress (or is late to start against its siblings, as in rein's
//!   LATE, and, where t_new scales with input bytes, has run `rein.late.silent-runtime-factor`
//!   times its own t_new); its t_rem is Mantri's §5.5 estimate, extrapolated past the input; t_new is what its
//!   siblings took (or their rate since first progress plus the measured start-up), scaled by
//!   input bytes so that a task long for its data is left alone (Mantri §5.4). A copy is made
//!   only if GRASS §4 finds it worth it — c·t_rem > (c+1)·t_new while the phase's tasks wait,
//!   t_rem > t_new in its last wave, never t_rem below a copy's start-up — largest gain first,
//!   into the free slots (at least one per decision, as Mantri's "a slot frees"). As in rein's
//!   LATE, a reduce is neither judged nor cloned while maps of its job run (its shuffle waits on
//!   them, and so would a copy's); for Δ after the last map ends only a reduce that has never
//!   reported is judged (its JVM is not up: it waits on no input). Like LATE's,
//!   a copy avoids the straggler's node; it also avoids the nodes of the other stragglers copied
//!   in the same decision and lost nodes.
//!
//! On a healthy cluster no task is a phase's worth behind its siblings, so t_rem ≤ t_new and
//! detection copies nothing; the cost test is what keeps auto at `none`'s cost there.

use std::sync::Arc;

use crate::action::{Action, AutoDecision, AutoRegime, AvoidNodes, Reason};
use crate::config::{Config, ScaConfig};
use crate::estimate::{Estimator, EstimatorMemo};
use crate::model::{Booking, JobState, Millis, NodeIdx, Task, TaskId, TaskKind};
use crate::policy::grass::{
    grass_allows, shuffle_wait, shuffle_waits_on_maps, startup_cost_s, GrassRule, Silence,
    NewCopyTimeMemo, ShuffleWait,
};
use crate::policy::sca::TailMemo;
use crate::policy::slow_node::SlowNodeReduces;
use crate::policy::{
    clone_started, copies_per_scan, decide_all_newly_started, free_slots, newly_started_of, rank_descending_top_tied, shared_avoid_list, walk_running, Policy, Sca,
    TaskSet, TopFloor,
};

/// Xu & Lau §III-B's cutoff ω^U on the load ω = λ·E[m]·E[s]/M below which cloning every task
/// lowers the mean task delay, for Pareto task times of tail index `alpha`.
pub fn cloning_cutoff(alpha: f64) -> f64 {
    let a = alpha;
    // Theorem 1: cloning does not overload the cluster only if ω·4(α − 1)/(2α − 1) < 1.
    let overload = if a > 1.0 { (2.0 * a - 1.0) / (4.0 * (a - 1.0)) } else { f64::INFINITY };
    let hi = overload.min(1.0);
    if a <= 2.0 {
        // E[s²] is infinite: W_t (Eq. 1) is unbounded at any load, so only Theorem 1 binds.
        return hi;
    }
    // Eq. 1 and Eq. 6, both over E[s].
    let w = |o: f64| o * (a - 1.0).powi(2) / (2.0 * a * (a - 2.0) * (1.0 - o)) + 1.0;
    let wc = |o: f64| {
        (o * (a - 1.0) * (1.0 - 4.0 * a * a + 4.0 * a) / (a * (2.0 * a - 1.0)) + 2.0 * (a - 1.0))
            / (2.0 * a - 1.0 - 4.0 * o * (a - 1.0))
    };
    let gain = |o: f64| w(o) - wc(o);
    // gain(0) = 1/(2α − 1) > 0, and W_t^c grows without bound towards the overload bound.
    let (mut lo, mut up) = (0.0, hi * (1.0 - 1e-9));
    if gain(up) > 0.0 {
        return hi;
    }
    for _ in 0..100 {
        let mid = (lo + up) / 2.0;
        if gain(mid) > 0.0 {
            lo = mid;
        } else {
            up = mid;
        }
    }
    lo
}

pub struct Auto {
    cutoff: Option<f64>,
    sca: ScaConfig,
    first_progress_factor: f64,
    silent_runtime_factor: f64,
    reduce_waits_for_maps: bool,
    clone_reduces: bool,
    delta_ms: Millis,
    /// `rein.mantri.min-window-ms`: the shortest window of reports read at its own pace.
    min_window_ms: Millis,
    recopy_after_ms: Millis,
    /// `rein.auto.max-copies`: the most running attempts of a task detection makes.
    max_copies: u32,
    grass_startup_ms: Millis,
    decided: TaskSet,
    /// Per task kind, the phase's tail fit and cutoff ω^U.
    tails: [TailMemo; 2],
    estimators: EstimatorMemo,
    copy_times: NewCopyTimeMemo,
    /// `rein.slow-node.copy-reduces`: reduces on the nodes detection copied stragglers off.
    slow_node: Option<SlowNodeReduces>,
}

/// A phase's load regime at one decision (what a reason shows of it, `AutoRegime`).
pub(crate) type Regime = AutoRegime;

impl AutoRegime {
    /// The regime of `kind`'s phase: its load ω — the phase's unfinished tasks (one copy each)
    /// plus the other phase's running attempts and the slots other jobs are known to hold, over
    /// the job's slots — against `cutoff`, or ω^U solved for the Pareto tail fitted to
    /// `durations`, the phase's finished tasks (SCA's prior until enough have finished).
    pub(crate) fn of(job: &JobState, kind: TaskKind, durations: &[f64], cutoff: Option<f64>, sca: &ScaConfig) -> Regime {
        let alpha = Sca::tail(sca, durations).alpha;
        Regime::at(job, kind, alpha, cutoff.unwrap_or_else(|| cloning_cutoff(alpha)))
    }

    /// The regime of `kind`'s phase for a tail α and cutoff ω^U already known.
    fn at(job: &JobState, kind: TaskKind, alpha: f64, cutoff: f64) -> Regime {
        // From the job's counts: a phase can have 100K tasks.
        let left = (job.tasks(kind).len() - job.succeeded_task_count(kind) as usize) as f64;
        let other = match kind {
            TaskKind::Map => TaskKind::Reduce,
            TaskKind::Reduce => TaskKind::Map,
        };
        let busy = job.running_attempt_count(other) as f64 + job.busy_elsewhere as f64;
        let load = (left + busy) / job.slots() as f64;
        Regime { light: load < cutoff, load, cutoff, alpha }
    }

    fn reason(&self, base: Reason) -> Reason {
        Reason::Auto { light: self.light, load: self.load, cutoff: self.cutoff, alpha: self.alpha, base: Box::new(base) }
    }
}

/// A task detection found worth a copy, with the numbers of its reason. 48 bytes: the walk writes
/// one for each of up to 100K late tasks and the ranking reads them all back, so the task is held
/// as its index and kind (no padding), the node as a number, and what the decision or the job
/// knows already — whether t_new scales with bytes, the successes on the node — is not copied in.
struct Candidate {
    index: u32,
    kind: TaskKind,
    rule: GrassRule,
    copies: u32,
    /// The judged attempt's node, `NO_NODE` for none.
    node: u32,
    /// The judged attempt's progress.
    progress: f64,
    t_rem: f64,
    t_new: f64,
    /// The judged attempt's age: read while the attempt is at hand, for the order among equal
    /// gains.
    age: Millis,
}

const _: () = assert!(std::mem::size_of::<Candidate>() <= 48);

/// `Candidate::node` of an attempt whose node is not known.
const NO_NODE: u32 = u32::MAX;

impl Candidate {
    /// What a copy would gain: the ranking's key.
    fn gain(&self) -> f64 {
        self.t_rem - self.t_new
    }

    fn task(&self) -> TaskId {
        TaskId { kind: self.kind, index: self.index }
    }

    fn node(&self) -> Option<NodeIdx> {
        (self.node != NO_NODE).then_some(NodeIdx(self.node))
    }
}

/// What detection reads of a task's judged attempt, its fastest running one: from the task's
/// brief or from its record (`Auto::detect`).
struct Seen {
    id: TaskId,
    /// The task's running attempts.
    copies: u32,
    progress: f64,
    shown_progress: bool,
    elapsed_ms: Millis,
    node: Option<NodeIdx>,
    /// `started_or_late` of the attempt.
    started: bool,
    t_rem: f64,
}

impl Auto {
    pub fn new(config: &Config) -> Auto {
        Auto {
            cutoff: config.auto_cutoff,
            sca: config.sca.clone(),
            first_progress_factor: config.late.first_progress_factor,
            silent_runtime_factor: config.late.silent_runtime_factor,
            clone_reduces: config.auto_clone_reduces,
            reduce_waits_for_maps: config.late.reduce_waits_for_maps,
            delta_ms: config.mantri.delta_ms,
            min_window_ms: config.mantri.min_window_ms,
            recopy_after_ms: config.mantri.recopy_after_ms,
            max_copies: config.auto_max_copies,
            grass_startup_ms: config.grass_startup_ms,
            decided: TaskSet::default(),
            tails: Default::default(),
            estimators: EstimatorMemo::default(),
            copy_times: NewCopyTimeMemo::default(),
            slow_node: config.slow_node_copy_reduces.then(SlowNodeReduces::default),
        }
    }

    /// The running tasks of one kind worth a copy now, by GRASS's test.
    ///
    /// Returns whether t_new scales with input bytes for the kind (false where nothing was
    /// judged): what its candidates' reasons say, which `Candidate` does not carry. A task the
    /// candidates gathered already outrank for every free slot is let go at its gain (`floor`).
    fn detect(&mut self, now: Millis, job: &JobState, kind: TaskKind, estimator: &Estimator, floor: &TopFloor, out: &mut Vec<Candidate>) -> bool {
        // While the last map's output settles, only a reduce that has never reported is judged:
        // its JVM is not up yet, so it is not waiting on its input (the quick bench's small jobs
        // had a silent reduce on the slow node wait out the settling time after its sibling had
        // finished, and the job 5 s more).
        let settling = match self.reduce_waits_for_maps.then(|| shuffle_wait(job, kind, now, self.delta_ms)) {
            Some(ShuffleWait::Maps) => return false,
            Some(ShuffleWait::Settling) => true,
            _ => false,
        };
        let tasks = job.tasks(kind);
        // A judge passes over an attempt younger than Δ first (`judge`): when the kind's first
        // attempt started less than Δ ago, every one is, and neither the walk nor t_new's model
        // is needed (while nothing has finished, the model is a pass over every running task).
        if job.earliest_start(kind).is_none_or(|start| now - start < self.delta_ms) {
            return false;
        }
        let startup = startup_cost_s(job, self.grass_startup_ms);
        let Some(model) = self.copy_times.get(job, kind, now, startup.0) else { return false };
        // Every task has had an attempt (a succeeded one has): from the job's count.
        let last_wave = job.started_task_count(kind) as usize == tasks.len();
        let median_startup = &std::cell::OnceCell::new();
        // The closures below take what they read by value (`move`): a setting read through a
        // captured reference to `self` took three loads in the walk's loop, which holds more
        // values than there are registers.
        let (delta_ms, max_copies, recopy_after_ms) = (self.delta_ms, self.max_copies, self.recopy_after_ms);
        let (first_progress_factor, silent_runtime_factor) = (self.first_progress_factor, self.silent_runtime_factor);
        let startup_s = startup.0;
        // The running tasks not succeeded, from the job's bitsets: the finished ones' records (a
        // third of a large job's tasks late in a phase) are not read at all. A task with copies
        // pending is not judged; nor one whose one attempt is certainly short of what GRASS's
        // test wants, t_rem above both the start-up and t_new: it is passed over from its brief,
        // without estimating it or reading its record (most of a healthy scan's tasks; every
        // check below would pass it over too). That bound is the walk's shortcut, which it tries
        // only now and then where it keeps failing (`walk_running`).
        //
        // A task with one running attempt that has shown progress is judged from its brief where
        // the brief holds its estimate (every late task of a job where all are late), without
        // reading its record.
        //
        // The bound is tried first: a task with a brief has one running attempt, and one clearly
        // short of what GRASS wants is passed over whatever is booked on it, so its booking is
        // not read (a second record per task, of most of a healthy scan's).
        //
        // Once the floor of the ranking's places is up (`TopFloor`), the bound is also the t_rem
        // whose gain over t_new falls below the floor, where that asks more than GRASS's bar (a
        // floor above 0): a task certainly at or below it would be let go by the floor's test in
        // `judge`. Checked as `judge` works the gain out (a difference of floats, which never
        // falls as t_rem grows), so that the two agree to the bit. On a job where all are late
        // most tasks fall behind the floor once a few thousand are judged, and are passed over
        // without an estimate or a read of their booking.
        let short_of = move |t_new: f64| {
            let grass = t_new.max(startup_s);
            let least = floor.least();
            if least > 0.0 && least < f64::INFINITY {
                let bar = least + t_new;
                let bar = bar - bar.abs() * 1e-12;
                if bar - t_new < least && bar > grass {
                    return bar;
                }
            }
            grass
        };
        let passed_over = move |id: TaskId, shortcut: bool| {
            let clearly_short = || match (job.brief(id), model.t_new(job, id)) {
                (Some(b), Some(t_new)) => estimator.brief_time_left_clearly_at_most(kind, b, short_of(t_new)),
                _ => false,
            };
            (shortcut && clearly_short()) || job.booking(id).copies_pending() > 0
        };
        // GRASS's test for a task, from what was seen of its judged attempt (`Seen`): the same
        // whether that came from the task's brief or from its record.
        let judge = move |s: Seen, booked: &Booking| {
            if s.copies >= max_copies
                || s.elapsed_ms < delta_ms
                || (settling && s.shown_progress)
                || !s.started
                || booked.last_copy_at().is_some_and(|at| now - at < recopy_after_ms)
            {
                return None;
            }
            let t_new = model.t_new(job, s.id)?;
            if !floor.admits(s.t_rem - t_new) {
                return None;
            }
            // An attempt with no progress yet has an unbounded t_rem; when t_new scales with input
            // bytes, it is a straggler only once it has run longer than a fresh copy of its task
            // would take for its input, by the silent-runtime factor. The siblings' bars of
            // `started_or_late` do not scale with input: a map with four times its siblings' bytes
            // was copied while merely reading them (Mantri §5.4: a task long because it reads more
            // is no outlier). Without bytes (reduces) t_new is the siblings' own time, which
            // `started_or_late` has judged against already.
            if model.by_bytes() && !s.shown_progress && s.elapsed_ms as f64 / 1000.0 <= silent_runtime_factor * t_new {
                return None;
            }
            // A re-copy passes GRASS's resource-aware test even in the last wave, where a first
            // copy needs only t_rem > t_new: in the simulator the greedy test for re-copies cost
            // 4–14% more container-seconds (sca-light, mantri-placement) for little time.
            let rule = grass_allows(s.t_rem, t_new, s.copies, startup_s, last_wave && s.copies == 1)?;
            Some(Candidate {
                index: s.id.index,
                kind: s.id.kind,
                rule,
                copies: s.copies,
                node: s.node.map_or(NO_NODE, |n| n.0),
                progress: s.progress,
                t_rem: s.t_rem,
                t_new,
                age: s.elapsed_ms,
            })
        };
        // A task with one running attempt that has shown progress, from its brief, where the
        // brief holds its estimate (`started_or_late` holds for such an attempt).
        let look = move |id: TaskId, out: &mut Vec<Candidate>| {
            let booked = job.booking(id);
            let (1, Some(b)) = (booked.running(), job.brief(id)) else { return true };
            // An attempt younger than Δ yields nothing, whatever it shows (`judge` passes it
            // over first): it is neither estimated nor read.
            let elapsed_ms = b.elapsed(now);
            if elapsed_ms < delta_ms {
                return false;
            }
            // A silent attempt not yet late to start yields nothing (`judge` passes it over); one
            // that is late is read from its record.
            if !b.shown_progress() {
                return Silence::of_brief(b, now).started_or_late(job, kind, now, first_progress_factor, silent_runtime_factor, median_startup);
            }
            let Some(t_rem) = estimator.brief_time_left_s(kind, b) else { return true };
            let (progress, node) = (b.progress(), b.node());
            out.extend(judge(Seen { id, copies: 1, progress, shown_progress: true, elapsed_ms, node, started: true, t_rem }, booked));
            false
        };
        let read = move |task: &Task| {
            let booked = job.booking(task.id);
            // A task with copies running is judged by its fastest attempt (Mantri §5.1), and
            // copied again only when they straggle too, by GRASS's test for its c copies: in the
            // simulator's LATE stragglers, a reduce whose one copy landed on another sick node
            // held its job 2,811 s against 570 for its siblings' jobs.
            let copies = booked.running();
            let estimate = |a| estimator.time_left_s(kind, a);
            let (t_rem, a) = job.running_attempts_of(task).map(|a| (estimate(a), a)).min_by(|x, y| x.0.total_cmp(&y.0))?;
            let started = Silence::of(a, now).started_or_late(job, kind, now, first_progress_factor, silent_runtime_factor, median_startup);
            let shown_progress = a.first_progress_at().is_some();
            let seen = Seen { id: task.id, copies, progress: a.progress, shown_progress, elapsed_ms: a.elapsed(now), node: a.node, started, t_rem };
            judge(seen, booked)
        };
        walk_running(job, kind, passed_over, look, read, out, |list| floor.raise(list, Candidate::gain));
        model.by_bytes()
    }

    /// Detection's copies: the candidates with the largest gain, into the free slots (at least
    /// one per decision).
    fn copy_stragglers(
        &self,
        job: &JobState,
        candidates: Vec<Candidate>,
        free: u32,
        regimes: &[Regime; 2],
        by_bytes: [bool; 2],
    ) -> Vec<Action> {
        let mut actions = Vec::new();
        if candidates.is_empty() {
            return actions;
        }
        // Largest gain first, into the free slots (at least one per decision). Equal gains — above
        // all the unbounded t_rem of attempts that have shown no progress yet — go first to the
        // attempts on nodes that have finished the fewest of the job's attempts, the longest-running
        // first: when the first map ends, a slow node's silent maps and a healthy node's late starter
        // look alike by t_rem, and a copy of the healthy one's would take the container first.
        // Equal in both, the lower task id first.
        let tie = |c: &Candidate| (c.node().map_or(0, |n| job.succeeded_on_node(n)), std::cmp::Reverse(c.age));
        let chosen: Vec<usize> = rank_descending_top_tied(&candidates, Candidate::gain, tie, free.max(1) as usize).places().collect();
        actions.reserve(chosen.len());
        // Every chosen straggler's node, and the lost ones, are avoided by every copy. Only the
        // chosen: a candidate not copied now may be merely slow to start on a healthy node, and
        // avoiding it left the demo's copies one node to land on (three vetoes in a row).
        // A task copied again avoids the nodes of all its straggling attempts. When every
        // candidate is chosen they are read in place, not in rank order.
        let shared = if chosen.len() == candidates.len() {
            shared_avoid_list(job, candidates.iter().flat_map(|c| straggling_nodes(job, c)))
        } else {
            shared_avoid_list(job, chosen.iter().flat_map(|&i| straggling_nodes(job, &candidates[i])))
        };
        // What every copy's reason shares, kept once (`Reason::AutoStraggler`).
        let startup = startup_cost_s(job, self.grass_startup_ms);
        let decision = Arc::new(AutoDecision {
            regimes: *regimes,
            startup_s: startup.0,
            startup_measured: startup.1,
        });
        // In one `extend` of a list of known length: each action straight to its place.
        actions.extend(chosen.iter().map(|&i| {
            let c = &candidates[i];
            let own = c.node().map(|n| job.node(n).name);
            let reason = Reason::AutoStraggler {
                progress: c.progress,
                t_rem_s: c.t_rem,
                t_new_s: c.t_new,
                copies: c.copies,
                rule: c.rule,
                by_bytes: by_bytes[c.kind as usize],
                kind: c.kind,
                decision: decision.clone(),
            };
            Action::Speculate { task: c.task(), avoid_nodes: AvoidNodes::new(&shared, own), prefer_rack: None, reason }
        }));
        actions
    }
}

/// The nodes of a candidate's straggling attempts: the judged one's, or every running one's when
/// the task has copies running.
fn straggling_nodes<'a>(job: &'a JobState, c: &'a Candidate) -> impl Iterator<Item = NodeIdx> + 'a {
    let task = job.task(c.task()).filter(|_| c.copies > 1);
    let all = task.map(|t| job.running_attempts_of(t).filter_map(|a| a.node));
    all.into_iter().flatten().chain(c.node().filter(|_| c.copies == 1))
}

impl Policy for Auto {
    fn name(&self) -> &'static str {
        "auto"
    }

    fn reads_startup_bar(&self) -> bool {
        true
    }

    fn fits_tails(&self) -> bool {
        true
    }

    fn decide(&mut self, now: Millis, job: &JobState) -> Vec<Action> {
        // The tails fitted to the phases' finished durations, and the regimes they give.
        let dists = TaskKind::ALL.map(|kind| self.tails[kind as usize].tail(&self.sca, job.finished_duration_sums(kind)));
        let regimes = TaskKind::ALL.map(|kind| {
            let alpha = dists[kind as usize].alpha;
            Regime::at(job, kind, alpha, self.cutoff.unwrap_or_else(|| self.tails[kind as usize].cutoff(cloning_cutoff)))
        });
        let mut free = free_slots(job);

        // Light phases: SCA's clones as tasks start (§IV, P2). A task first seen after it has
        // run Δ is past cloning; detection judges it.
        let delta_ms = self.delta_ms;
        // Reduces are cloned only with `rein.auto.clone-reduces` (a reduce clone fetches every
        // map's output again: Dolly §4's intermediate-data contention), and even then not one that
        // starts while maps run (`rein.late.reduce-waits-for-maps`): its clone would wait on the
        // same maps; once they are done, detection judges it.
        let clone_reduces = self.clone_reduces
            && !(self.reduce_waits_for_maps && shuffle_waits_on_maps(job, TaskKind::Reduce, now, 0));
        // Only a light phase's tasks can be cloned, and of them only those younger than Δ are
        // listed. A kind's newly started tasks are then decided a word of 64 at a time, not one by
        // one (a wave of a big job brings tens of thousands a scan; a first scan of one where all
        // are late, 100K past cloning). A task's one running attempt is read from its brief, not
        // its record.
        let young = |id: &TaskId| match job.brief(*id) {
            Some(b) => b.elapsed(now) < delta_ms,
            None => job.task(*id).is_some_and(|t| job.running_attempts_of(t).all(|a| a.elapsed(now) < delta_ms)),
        };
        let mut fresh: Vec<TaskId> = Vec::new();
        for kind in TaskKind::ALL {
            // No attempt of the kind started within Δ: none is young (a first scan of a job where
            // all are late looked at 100K briefs to find none).
            let any_young = job.latest_start(kind).is_some_and(|at| now - at < delta_ms);
            if any_young && (kind == TaskKind::Map || clone_reduces) && regimes[kind as usize].light {
                fresh.extend(newly_started_of(job, kind, &self.decided).filter(young));
            }
            decide_all_newly_started(job, kind, &mut self.decided);
        }
        let sca = &self.sca;
        let mut actions = clone_started(job, &fresh, &mut free, |kind, n_free| {
            let regime = regimes[kind as usize];
            if !regime.light {
                return None;
            }
            // The job's count, not a walk over the tasks' records.
            let m = job.tasks(kind).len() as u32 - job.succeeded_task_count(kind);
            let (c, reason) = Sca::plan(sca, dists[kind as usize], m, n_free, "SCA §IV (P2)");
            Some((c, regime.reason(reason)))
        });
        // A set, not a list: a first scan may clone every one of 100K tasks.
        let mut cloned = TaskSet::default();
        cloned.extend(actions.iter().map(Action::task));

        // Detection for every task not cloned now, in either regime.
        let running = job.running_task_total();
        // Room for every running task, advised for huge pages where it is big (48 bytes a task:
        // 4.8 MB at 100K): a first decision's walk touches it fresh, 190 small pages otherwise.
        let mut candidates = crate::memory::with_capacity(running, job.huge_pages);
        let estimator = self
            .estimators
            .estimator(crate::config::EstimatorKind::Mantri, job, now, self.delta_ms)
            .min_window_ms(self.min_window_ms);
        let mut by_bytes = [false; 2];
        // Only the first `room` of the candidates' order are copied (`copy_stragglers`): the slots
        // the clones left, at most `rein.max-copies-per-scan` (`copy_room`). The walk keeps only
        // those that can make it where none was cloned now (a clone's task is dropped from the
        // candidates after the walk). Equal gains go by a tie the floor does not know.
        let room = free.min(copies_per_scan(job));
        let floor = TopFloor::new(if actions.is_empty() { room.max(1) as usize } else { usize::MAX }, running, false);
        for kind in TaskKind::ALL {
            by_bytes[kind as usize] = self.detect(now, job, kind, &estimator, &floor, &mut candidates);
        }
        if !actions.is_empty() {
            candidates.retain(|c| !cloned.contains(&c.task()));
        }
        let detected = self.copy_stragglers(job, candidates, room, &regimes, by_bytes);
        // A reduce on a node detection has copied a straggler off is not left to wait for its
        // maps and a sibling (`rein.slow-node.copy-reduces`).
        let moved = match self.slow_node.as_mut() {
            Some(slow_node) => {
                let regime = regimes[TaskKind::Reduce as usize];
                slow_node.after_detection(job, &actions, &detected, free, || regime.light, |r| regime.reason(r))
            }
            None => Vec::new(),
        };
        append(&mut actions, detected);
        append(&mut actions, moved);
        actions
    }
}

/// `more` after `actions`, without moving a long list when `actions` is empty.
fn append(actions: &mut Vec<Action>, mut more: Vec<Action>) {
    if actions.is_empty() {
        *actions = more;
    } else {
        actions.append(&mut more);
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, Outcome};
    use crate::model::{NodeName, Phase};
    use crate::Engine;

    /// A candidate gives back the task and node it was made with (its size is checked where it
    /// is declared).
    #[test]
    fn a_candidate_gives_back_its_task_and_node() {
        let c = Candidate { index: 7, kind: TaskKind::Reduce, rule: GrassRule::Greedy, copies: 1, node: NO_NODE, progress: 0.5, t_rem: 3.0, t_new: 1.0, age: 9 };
        assert_eq!((c.task(), c.node(), c.gain()), (TaskId::reduce(7), None, 2.0));
        assert_eq!(Candidate { node: 4, ..c }.node(), Some(NodeIdx(4)));
    }

    /// SCA/ESE §III-B: at α = 2 only Theorem 1 binds, ω^U = 3/4; at α = 3 W_t^c meets W_t near
    /// ω = 0.36; heavier loads tolerate cloning less as the tail lightens.
    #[test]
    fn the_cutoff_of_section_3b() {
        assert!((cloning_cutoff(2.0) - 0.75).abs() < 1e-12);
        let c3 = cloning_cutoff(3.0);
        assert!((0.35..0.37).contains(&c3), "α = 3: ω^U = {c3}");
        let mut last = cloning_cutoff(2.01);
        for a in [2.5, 3.0, 4.0, 6.0, 10.0] {
            let c = cloning_cutoff(a);
            assert!(c < last && c > 0.0, "α = {a}: {c} after {last}");
            last = c;
        }
        assert_eq!(cloning_cutoff(1.5), 1.0);
    }

    fn engine(slots: u32) -> Engine {
        let slots = slots.to_string();
        Engine::from_pairs([("rein.policy", "auto"), ("rein.cluster.slots", slots.as_str())]).unwrap().0
    }

    fn start(e: &mut Engine, at: Millis, task: TaskId, node: &str) {
        e.ingest(at, Event::AttemptStarted { attempt: task.attempt(0), node: Some(node.into()), rack: None });
    }

    fn status(e: &mut Engine, at: Millis, task: TaskId, p: f64) {
        e.ingest(at, Event::AttemptStatus { attempt: task.attempt(0), progress: p, phase: Phase::Map });
    }

    /// Three maps on twenty slots: ω = 0.15 < 0.75, every map is cloned as it starts, and the
    /// reason names the regime and its numbers.
    #[test]
    fn a_light_phase_is_cloned_with_the_regime_in_the_reason() {
        let mut e = engine(20);
        e.ingest(0, Event::JobCreated { maps: 3, reduces: 0 });
        for i in 0..3 {
            start(&mut e, 0, TaskId::map(i), &format!("n{i}:1"));
        }
        let actions = e.decide(0);
        assert_eq!(actions.len(), 3, "{actions:?}");
        assert!(actions.iter().all(|a| matches!(a, Action::Clone { .. })));
        let text = actions[0].reason().to_string();
        assert!(text.starts_with("auto: light load, ω = 0.15 < ω^U = 0.75"), "{text}");
        assert!(text.contains("SCA §IV (P2)"), "{text}");
    }

    /// Eight maps on eight slots (ω = 1, heavy): nothing is cloned. On a healthy cluster no copy
    /// is made; a map stalled on a slow node is copied once GRASS finds it worth it, away from
    /// its node.
    #[test]
    fn a_heavy_phase_detects_and_copies_only_what_pays() {
        let mut e = engine(8);
        e.ingest(0, Event::JobCreated { maps: 8, reduces: 0 });
        for i in 0..8 {
            start(&mut e, 0, TaskId::map(i), &format!("n{}:1", i / 2));
        }
        assert!(e.decide(0).is_empty(), "heavy: no clones");
        // Healthy: every map at the same pace, 10 s start-up then 0.02/s.
        for t in (10_000..=40_000).step_by(5_000) {
            for i in 0..8 {
                let p = 0.02 * (t - 10_000) as f64 / 1000.0 + 0.001;
                status(&mut e, t, TaskId::map(i), if i == 7 { p * 0.8 } else { p });
            }
            assert!(e.decide(t).is_empty(), "healthy at {t}: no copy");
        }
        // Node n3 stalls: map 6 and 7 stop progressing while the rest finish at 60 s.
        for t in (45_000..=55_000).step_by(5_000) {
            for i in 0..6 {
                status(&mut e, t, TaskId::map(i), 0.02 * (t - 10_000) as f64 / 1000.0);
            }
        }
        for i in 0..6 {
            e.ingest(60_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
        }
        let actions = e.decide(120_000);
        // Map 7, further behind, gains more and goes first.
        let copied: Vec<TaskId> = actions.iter().map(Action::task).collect();
        assert_eq!(copied, vec![TaskId::map(7), TaskId::map(6)], "{actions:?}");
        let Action::Speculate { avoid_nodes, reason, .. } = &actions[0] else { panic!("{actions:?}") };
        assert!(avoid_nodes.contains("n3:1"));
        // Two maps left on eight slots: the phase is light now, but they started under heavy load.
        let text = reason.to_string();
        assert!(text.starts_with("auto: light load, ω = 0.25") && text.contains("so detection of a task not cloned"), "{text}");
        assert!(text.contains("GRASS §4 last wave, greedy t_rem > t_new"), "{text}");
    }

    /// A copy that lands on another sick node straggles too: the task is judged by its fastest
    /// attempt and copied again, away from both nodes, once `rein.mantri.recopy-after-ms` has
    /// passed and GRASS's resource-aware test holds for its two copies (2·t_rem > 3·t_new, in
    /// the last wave too); never beyond `rein.auto.max-copies` running attempts (2: one copy per
    /// task, as before).
    #[test]
    fn a_task_whose_copy_straggles_too_is_copied_again_up_to_max_copies() {
        for (max_copies, again) in [("3", true), ("2", false)] {
            let mut e = Engine::from_pairs([
                ("rein.policy", "auto"),
                ("rein.cluster.slots", "8"),
                ("rein.auto.max-copies", max_copies),
            ])
            .unwrap()
            .0;
            e.ingest(0, Event::JobCreated { maps: 8, reduces: 0 });
            for i in 0..8 {
                start(&mut e, 0, TaskId::map(i), &format!("n{}:1", i / 2));
            }
            assert!(e.decide(0).is_empty(), "heavy: no clones");
            let map7 = TaskId::map(7);
            let report = |e: &mut Engine, t: Millis, n: u32, p: f64| {
                e.ingest(t, Event::AttemptStatus { attempt: map7.attempt(n), progress: p, phase: Phase::Map })
            };
            // Every map at 0.02/s after a 10-s start-up; map 7 on n3 at a twentieth of that.
            for t in (10_000..=50_000).step_by(5_000) {
                for i in 0..7 {
                    status(&mut e, t, TaskId::map(i), 0.02 * (t - 10_000) as f64 / 1000.0 + 0.001);
                }
                report(&mut e, t, 0, 0.001 * (t - 10_000) as f64 / 1000.0 + 0.001);
            }
            for i in 0..7 {
                e.ingest(60_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
            }
            let first = e.decide(60_000);
            assert_eq!(first.iter().map(Action::task).collect::<Vec<_>>(), vec![map7], "{first:?}");
            // The copy lands on n2, sick as well: it crawls at the original's pace.
            e.ingest(61_000, Event::AttemptStarted { attempt: map7.attempt(1), node: Some("n2:1".into()), rack: None });
            for t in (65_000..=95_000).step_by(5_000) {
                report(&mut e, t, 0, 0.001 * (t - 10_000) as f64 / 1000.0 + 0.001);
                report(&mut e, t, 1, 0.001 * (t - 65_000) as f64 / 1000.0 + 0.001);
                if t < 90_000 {
                    assert!(e.decide(t).is_empty(), "at {t}: within the re-copy wait");
                }
            }
            let second = e.decide(95_000);
            if !again {
                assert!(second.is_empty(), "max-copies 2: {second:?}");
                continue;
            }
            let [Action::Speculate { task, avoid_nodes, reason, .. }] = second.as_slice() else { panic!("{second:?}") };
            assert_eq!(*task, map7);
            assert!(avoid_nodes.contains("n3:1") && avoid_nodes.contains("n2:1"), "{avoid_nodes:?}");
            let text = reason.to_string();
            assert!(text.contains("c = 2"), "{text}");
            // A third attempt runs, as slow: three running attempts is the most.
            e.ingest(96_000, Event::AttemptStarted { attempt: map7.attempt(2), node: Some("n1:1".into()), rack: None });
            for t in (100_000..=140_000).step_by(5_000) {
                for n in 0..3 {
                    report(&mut e, t, n, 0.01);
                }
                assert!(e.decide(t).is_empty(), "at {t}: three running attempts");
            }
        }
    }

    /// Light load: the maps are cloned as they start, but reduces are not (their clones would
    /// fetch every map output again) unless `rein.auto.clone-reduces`; even then not a reduce that
    /// starts while maps run (its clone would wait on the same maps), unless reduces may be judged
    /// at any time.
    #[test]
    fn a_reduce_is_cloned_only_when_asked_and_not_while_maps_run() {
        for (clone_reduces, waits, clones) in
            [("false", "true", 0), ("false", "false", 0), ("true", "true", 0), ("true", "false", 1)]
        {
            let mut e = Engine::from_pairs([
                ("rein.policy", "auto"),
                ("rein.cluster.slots", "20"),
                ("rein.auto.clone-reduces", clone_reduces),
                ("rein.late.reduce-waits-for-maps", waits),
            ])
            .unwrap()
            .0;
            e.ingest(0, Event::JobCreated { maps: 2, reduces: 1 });
            for i in 0..2 {
                start(&mut e, 0, TaskId::map(i), &format!("n{i}:1"));
            }
            assert_eq!(e.decide(0).len(), 2, "both maps cloned");
            e.ingest(1_000, Event::AttemptStarted { attempt: TaskId::reduce(0).attempt(0), node: Some("n3:1".into()), rack: None });
            let reduce_clones = e.decide(1_000).iter().filter(|a| a.task() == TaskId::reduce(0)).count();
            assert_eq!(reduce_clones, clones, "clone-reduces={clone_reduces}, reduce-waits-for-maps={waits}");
        }
    }

    /// With one free slot only the straggler with the largest gain is copied, and its copy avoids
    /// its own node only: the other stragglers' nodes are avoided by the copies made of them.
    #[test]
    fn a_copy_avoids_the_nodes_of_the_stragglers_copied_with_it_not_of_the_others() {
        let mut e = engine(8);
        e.ingest(0, Event::JobCreated { maps: 8, reduces: 0 });
        for i in 0..8 {
            start(&mut e, 0, TaskId::map(i), &format!("n{i}:1"));
        }
        assert!(e.decide(0).is_empty());
        for t in (10_000..=55_000).step_by(5_000) {
            for i in 0..8 {
                let p = 0.02 * (t - 10_000) as f64 / 1000.0 + 0.001;
                status(&mut e, t, TaskId::map(i), if i >= 5 { p * (0.1 + 0.05 * (i - 5) as f64) } else { p });
            }
        }
        for i in 0..5 {
            e.ingest(60_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
        }
        e.ingest(60_000, Event::Capacity { total_slots: 8, free_slots: Some(1) });
        let actions = e.decide(61_000);
        assert_eq!(actions.iter().map(Action::task).collect::<Vec<_>>(), vec![TaskId::map(5)], "{actions:?}");
        let Action::Speculate { avoid_nodes, .. } = &actions[0] else { panic!("{actions:?}") };
        assert_eq!(avoid_nodes.iter().cloned().collect::<Vec<_>>(), vec![NodeName::from("n5:1")], "{actions:?}");
    }

    /// Three maps show no progress when their siblings are done: map 0 on a node that has
    /// finished one, maps 6 and 7 on a node that has finished none. With one free slot the copy
    /// goes to the node with nothing done, not to the first silent map in task order.
    #[test]
    fn among_silent_maps_the_one_on_the_node_with_least_done_is_copied_first() {
        let mut e = engine(8);
        e.ingest(0, Event::JobCreated { maps: 12, reduces: 0 });
        for i in 0..8 {
            start(&mut e, 0, TaskId::map(i), &format!("n{}:1", i / 2));
        }
        for t in (2_000..=18_000).step_by(2_000) {
            for i in 1..6 {
                status(&mut e, t, TaskId::map(i), t as f64 / 20_000.0);
            }
        }
        for i in 1..6 {
            e.ingest(20_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
        }
        e.ingest(20_000, Event::Capacity { total_slots: 8, free_slots: Some(1) });
        let actions = e.decide(26_000);
        let copied: Vec<TaskId> = actions.iter().map(Action::task).collect();
        assert_eq!(copied, vec![TaskId::map(6)], "{actions:?}");
    }

    /// On the bed small maps report no progress before they end, so a map with four times its
    /// siblings' input is silent for four times as long while merely reading it: not copied until
    /// it has run 1.25 times a fresh copy's time for its input (Mantri §5.4), then copied.
    #[test]
    fn a_silent_map_with_four_times_the_input_is_copied_only_past_its_own_fresh_copy_time() {
        let mut e = engine(8);
        e.ingest(0, Event::JobCreated { maps: 4, reduces: 0 });
        for (i, mb) in [(0u32, 4u64), (1, 1), (2, 1), (3, 1)] {
            e.ingest(0, Event::TaskInput { task: TaskId::map(i), bytes: mb << 20 });
            start(&mut e, 0, TaskId::map(i), &format!("n{i}:1"));
        }
        for i in 1..4 {
            e.ingest(4_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
        }
        e.ingest(4_000, Event::Capacity { total_slots: 8, free_slots: Some(3) });
        // The siblings took 4 s: a fresh copy of 4 MB takes 16 s, so 20 s is the bar.
        assert!(e.decide(12_000).is_empty(), "silent at 12 s, reading four times the data");
        assert!(e.decide(20_000).is_empty(), "20 s: not yet 1.25 times its fresh copy's 16 s");
        let copied: Vec<TaskId> = e.decide(20_500).iter().map(Action::task).collect();
        assert_eq!(copied, vec![TaskId::map(0)]);
    }

    /// A map with four times its siblings' input runs four times as long: not copied (Mantri
    /// §5.4), where the same map with equal input would be.
    #[test]
    fn a_task_long_for_its_data_is_left_alone() {
        let run = |big: u64| {
            let mut e = engine(4);
            e.ingest(0, Event::JobCreated { maps: 4, reduces: 0 });
            for i in 0..4 {
                let mb = if i == 3 { big } else { 64 };
                e.ingest(0, Event::TaskInput { task: TaskId::map(i), bytes: mb << 20 });
                start(&mut e, 0, TaskId::map(i), &format!("n{i}:1"));
            }
            for t in (5_000..=30_000).step_by(5_000) {
                for i in 0..4 {
                    let rate = if i == 3 { 0.01 } else { 0.04 };
                    status(&mut e, t, TaskId::map(i), rate * (t - 4_000) as f64 / 1000.0);
                }
            }
            for i in 0..3 {
                e.ingest(30_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
            }
            e.decide(31_000).len()
        };
        assert_eq!(run(256), 0, "four times the data explains four times the time");
        assert_eq!(run(64), 1, "the same pace with equal data is a straggler");
    }

    /// The small-jobs bench's loss: two reduces start while the maps run, one on a slow node whose
    /// JVM never reports. Right after the last map ends (inside the settling time Δ), the silent
    /// one is judged and copied once its sibling has finished; the one that has reported is not
    /// judged while the phase settles.
    #[test]
    fn a_silent_reduce_is_judged_while_the_map_phase_settles() {
        let run = |silent: bool| {
            let mut e = Engine::from_pairs([("rein.policy", "auto"), ("rein.cluster.slots", "8"), ("rein.mantri.delta-ms", "5000")])
                .unwrap()
                .0;
            e.ingest(0, Event::JobCreated { maps: 2, reduces: 2 });
            for i in 0..2 {
                start(&mut e, 0, TaskId::map(i), &format!("n{i}:1"));
            }
            e.ingest(1_000, Event::AttemptStarted { attempt: TaskId::reduce(0).attempt(0), node: Some("n2:1".into()), rack: None });
            e.ingest(1_000, Event::AttemptStarted { attempt: TaskId::reduce(1).attempt(0), node: Some("n3:1".into()), rack: None });
            e.ingest(2_000, Event::AttemptStatus { attempt: TaskId::reduce(0).attempt(0), progress: 0.1, phase: Phase::Shuffle });
            if !silent {
                e.ingest(2_000, Event::AttemptStatus { attempt: TaskId::reduce(1).attempt(0), progress: 0.05, phase: Phase::Shuffle });
            }
            for i in 0..2 {
                e.ingest(9_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
            }
            e.ingest(9_500, Event::AttemptStatus { attempt: TaskId::reduce(0).attempt(0), progress: 0.9, phase: Phase::Reduce });
            e.ingest(10_000, Event::AttemptFinished { attempt: TaskId::reduce(0).attempt(0), outcome: Outcome::Succeeded });
            e.ingest(10_000, Event::Capacity { total_slots: 8, free_slots: Some(6) });
            // 11 s: 2 s after the last map, inside Δ = 5 s; reduce 1 has run 10 s, its sibling 9 s.
            e.decide(11_000).iter().map(Action::task).collect::<Vec<_>>()
        };
        assert_eq!(run(true), vec![TaskId::reduce(1)], "silent since its start: judged at once");
        assert!(run(false).is_empty(), "it has reported: it waits for the phase to settle");
    }

    /// The small-jobs bench's other loss: a reduce starts on the node auto has just copied a map
    /// straggler off. It is copied at the next decision, away from that node, while the map still
    /// runs and with no sibling finished (`rein.slow-node.copy-reduces`); not with the key off,
    /// not once the straggler there has won after all, not while a task waits to start (a third
    /// reduce: the copy would hold a slot it could use), not when the node has finished an
    /// attempt of the job, not under heavy load (SCA/ESE §III-B), and not when the straggler had
    /// shown progress.
    #[test]
    fn a_reduce_on_a_node_named_slow_is_copied_at_once() {
        let run = |extra: &[(&str, &str)], straggler_wins: bool, reduces: u32, n3_done: bool, map3_progress: f64| {
            let pairs = [&[("rein.policy", "auto"), ("rein.cluster.slots", "8")], extra].concat();
            let mut e = Engine::from_pairs(pairs).unwrap().0;
            // With `n3_done`, a fifth map ran beside map 3 on n3 and finished with the others.
            let maps: u32 = if n3_done { 5 } else { 4 };
            e.ingest(0, Event::JobCreated { maps, reduces });
            for i in 0..maps {
                start(&mut e, 0, TaskId::map(i), &format!("n{}:1", i.min(3)));
            }
            let healthy = || (0..maps).filter(|&i| i != 3);
            for t in [1_000, 2_000, 3_000, 4_000] {
                for i in healthy() {
                    status(&mut e, t, TaskId::map(i), t as f64 / 5_000.0);
                }
            }
            if map3_progress > 0.0 {
                status(&mut e, 4_000, TaskId::map(3), map3_progress);
            }
            for i in healthy() {
                e.ingest(5_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
            }
            let first = e.decide(12_000);
            assert_eq!(first.iter().map(Action::task).collect::<Vec<_>>(), vec![TaskId::map(3)], "{first:?}");
            e.ingest(12_500, Event::AttemptStarted { attempt: TaskId::map(3).attempt(1), node: Some("n0:1".into()), rack: None });
            e.ingest(13_000, Event::AttemptStarted { attempt: TaskId::reduce(0).attempt(0), node: Some("n3:1".into()), rack: None });
            e.ingest(13_000, Event::AttemptStarted { attempt: TaskId::reduce(1).attempt(0), node: Some("n1:1".into()), rack: None });
            if straggler_wins {
                e.ingest(13_500, Event::AttemptFinished { attempt: TaskId::map(3).attempt(0), outcome: Outcome::Succeeded });
            }
            e.decide(14_000)
        };
        let actions = run(&[], false, 2, false, 0.0);
        assert_eq!(actions.iter().map(Action::task).collect::<Vec<_>>(), vec![TaskId::reduce(0)], "{actions:?}");
        let Action::Speculate { avoid_nodes, reason, .. } = &actions[0] else { panic!("{actions:?}") };
        assert!(avoid_nodes.contains("n3:1"), "{actions:?}");
        let text = reason.to_string();
        assert!(text.contains("reduce on n3:1, which the job named slow when it copied straggler m_000003 off it"), "{text}");
        assert!(reason.to_json().contains(r#""kind":"slow-node""#), "{}", reason.to_json());
        assert!(text.starts_with("auto: light load, ω = 0.50"), "{text}");
        let off = [("rein.slow-node.copy-reduces", "false")];
        assert!(run(&off, false, 2, false, 0.0).is_empty(), "the key off: the reduce waits for its maps");
        assert!(run(&[], true, 2, false, 0.0).is_empty(), "the straggler there won: the node is not named");
        assert!(run(&[], false, 3, false, 0.0).is_empty(), "a reduce waits to start: not the last wave");
        assert!(run(&[], false, 2, true, 0.0).is_empty(), "n3 has finished a map: detection's to judge");
        let heavy = [("rein.auto.cutoff", "0.4")];
        assert!(run(&heavy, false, 2, false, 0.0).is_empty(), "ω = 0.5 above the cutoff: no copy under heavy load");
        assert!(run(&[], false, 2, false, 0.02).is_empty(), "map 3 progressed (it may be long for its data): n3 not named");
    }
}
