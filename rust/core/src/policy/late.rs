//! LATE — Longest Approximate Time to End (Zaharia et al., OSDI 2008, §4).
//!
//! When a slot is free and fewer than SpeculativeCap copies run, rank the running tasks that are
//! not already being speculated by estimated time left, and copy the highest-ranked one whose
//! progress rate is below SlowTaskThreshold. Nodes whose total progress is below
//! SlowNodeThreshold get no copies. A task must have run for a minimum time (1 min) first.
//!
//! Adaptations to a YARN ApplicationMaster, where the policy does not see a node ask for work:
//! - "a node asks for a task" becomes "no task of the job waits for a container": Hadoop gives
//!   free slots to non-speculative tasks first (LATE §2.1), so a copy is only ever worth a slot
//!   nobody else wants.
//! - The slow-node rule cannot refuse a node's request; it names the slow nodes (and the node of
//!   the running attempt) in `avoid_nodes`, and the engine's veto loop (`crate::veto`) kills a
//!   copy that lands on one of them so that Hadoop places it again.
//! - Progress rates are ranked per task kind (map scores and reduce scores do not compare), and
//!   SlowTaskThreshold is taken over every started task of that kind, finished ones included, so
//!   that the last straggler of a phase is still judged against its siblings.
//!
//! rein's adaptations for small clusters and slow container start-up, each one key from LATE as
//! printed:
//! - A task that has shown no progress yet is not judged until it has run
//!   `rein.late.first-progress-factor` times its siblings' median launch-to-first-progress: at
//!   zero progress its time left is infinite, so LATE would copy a task whose JVM is merely
//!   starting ahead of every real straggler.
//! - The SlowTaskThreshold pool holds finished attempts and running ones that are past the
//!   minimum run time and have shown progress (`rein.late.rate-pool`): a batch of attempts just
//!   launched, all at rate 0, would otherwise pull the percentile to 0.
//! - SpeculativeCap is at least the number of tasks running on slow nodes
//!   (`rein.late.cap-covers-slow-nodes`): on 8 slots 10% is one copy at a time while one slow
//!   node holds a quarter of the tasks; LATE §5.4.1 saw its 10% cap lose for the same reason
//!   (6 of 40 nodes slow) and found 20% best.
//! - GRASS §4's cost test on top (`rein.late.grass`): see `policy::grass`.
//! - No reduce is judged while maps of its job are unfinished (`rein.late.reduce-waits-for-maps`):
//!   its shuffle waits on them, and so would a copy's.

use std::sync::Arc;

use crate::action::{Action, AvoidNodes, LateDecision, Reason, SharedNodes};
use crate::config::{Config, LateConfig};
use crate::estimate::{brief_progress_rate, progress_rate, Estimator};
use crate::model::{Attempt, AttemptState, JobState, Millis, NodeIdx, NodeName, TaskId, TaskKind};
use crate::policy::grass::{grass_allows, shuffle_waits_on_maps, startup_cost_s, GrassRule, NewCopyTimeMemo, Silence};
use crate::policy::{copies_per_scan, rank_descending_top, Policy, TopFloor};
use crate::stats::{clearly_at_least_percentile, order_key, percentile, percentile_of_rates_and_keys};

pub struct Late {
    cfg: LateConfig,
    /// Report period after which the Mantri estimator, if chosen, counts an attempt as stalled.
    delta_ms: Millis,
    /// `rein.mantri.min-window-ms`, for the Mantri estimator if chosen.
    min_window_ms: Millis,
    grass_startup_ms: Millis,
    copy_times: NewCopyTimeMemo,
    /// Per kind, the succeeded attempts' rates as `succeeded_rates` gives them (the first of the
    /// job's list of them, in any order), with how many of the list they cover (while every one of them
    /// still is succeeded, they do not change: a score of 1 over a finished run).
    succeeded_rates: [Option<(usize, Vec<u64>)>; 2],
    /// Per kind, what the survey noted of each running task not succeeded, in task order, for
    /// `candidates` (see [`Note`]); kept from decision to decision for its memory.
    notes: [Vec<f64>; 2],
    /// The tasks `candidates` picked from the notes, by index, with their notes' places: kept
    /// for its memory. Eight bytes each (14K picked at 100K running: 112 KB of fresh memory to
    /// fault in, where the notes themselves beside the indices took 224).
    picked: Vec<(u32, u32)>,
}

/// What the survey notes of a running task not succeeded (`Late::notes`), in eight bytes: the
/// progress rate of its brief's attempt when it is past the minimum run time (`brief_progress_rate`,
/// finite and at least +0), [`Note::YOUNG`] when it is not, [`Note::RECORD`] for a task with no
/// brief. `candidates` reads the rate here and the brief only of a task below the threshold: a
/// brief is 48 bytes, and reading every running task's twice (the survey's walk and this) was
/// most of a decision's memory traffic (the benchmark's 100K job: 14,285 of 100K below).
/// The notes are also most of the SlowTaskThreshold pool, read where they are
/// (`stats::percentile_of_rates_and_keys`): a rate noted is in the pool; a rate the pool leaves
/// out, an attempt's yet to show progress (0), is noted [`Note::LEFT_OUT`].
struct Note;

/// How many picked tasks ahead `Late::candidates` asks for a task's brief and booking.
const PICKED_AHEAD: usize = 8;

impl Note {
    /// Below the minimum run time: not a candidate. NaN, which the rate test lets go.
    const YOUNG: f64 = f64::NAN;
    /// No brief: judged from the task's record. Below every rate a brief gives.
    const RECORD: f64 = -1.0;
    /// A rate of 0 not in the pool: read as 0 by `candidates` (-0 == 0), left out of the pool
    /// (`stats::is_pooled`).
    const LEFT_OUT: f64 = -0.0;
}

/// What LATE's one walk over the running attempts found (`Late::survey`).
struct Survey {
    /// Per node index, its total progress (LATE §4).
    totals: Vec<f64>,
    /// Per kind, what the running attempts bring to the SlowTaskThreshold test.
    pools: [Pool; 2],
    /// Per node index, the tasks not succeeded whose one running attempt (their brief's) runs
    /// there; and each placed running attempt of the other tasks not succeeded, by kind and task.
    alone_on_node: Vec<u32>,
    others: Vec<(TaskKind, u32, NodeIdx)>,
}

/// A kind's running attempts as the SlowTaskThreshold test reads them (`Late::survey`).
#[derive(Clone, Default)]
struct Pool {
    /// The rates of those that join the SlowTaskThreshold pool and are not among the kind's
    /// notes (`Late::notes`), as their `order_key`s: those of tasks read from their records, of
    /// succeeded tasks, and of young attempts under `rein.late.rate-pool=all`. Usually none.
    extras: Vec<u64>,
    /// How many of the kind's notes are rates in the pool (`stats::is_pooled`).
    pooled: usize,
    /// The lowest progress rate of the tasks not succeeded that were read from their briefs past
    /// the minimum run time (infinite when there are none); `None` when some running task of the
    /// kind was read from its record. When it is above zero and not below the SlowTaskThreshold,
    /// no task of the kind can be a candidate and `candidates` does not walk them: a healthy
    /// job's scan walks its running tasks once, not twice.
    slowest: Option<f64>,
}

/// What the copy of a candidate needs, taken while its task is at hand: candidates are taken in
/// rank order. What all candidates share (their kind's SlowTaskThreshold, GRASS's start-up cost)
/// is kept once: a decision can write 14K candidates and more, each a store to fresh memory.
struct Candidate {
    task: TaskId,
    progress: f64,
    node: Option<NodeIdx>,
    rate: f64,
    time_left_s: f64,
    /// GRASS's verdict, when its test is on: the rule and t_new.
    grass: Option<(GrassRule, f64)>,
}

impl Late {
    pub fn new(config: &Config) -> Late {
        Late {
            cfg: config.late.clone(),
            delta_ms: config.mantri.delta_ms,
            min_window_ms: config.mantri.min_window_ms,
            grass_startup_ms: config.grass_startup_ms,
            copy_times: NewCopyTimeMemo::default(),
            succeeded_rates: Default::default(),
            notes: Default::default(),
            picked: Vec::new(),
        }
    }

    /// Tasks not succeeded with a running attempt on a slow node (`flagged` by node index), from
    /// the survey's counts per node: a sum over the nodes, not a walk over the attempts.
    fn on_slow_nodes(survey: &Survey, flagged: &[bool]) -> u32 {
        let alone: u32 = survey.alone_on_node.iter().zip(flagged).filter(|(_, f)| **f).map(|(n, _)| n).sum();
        // The other tasks' attempts are next to each other in the list: count a task once.
        let mut count = alone;
        let mut last = None;
        for &(kind, task, node) in &survey.others {
            if flagged[node.0 as usize] && last != Some((kind, task)) {
                count += 1;
                last = Some((kind, task));
            }
        }
        count
    }

    /// SpeculativeCap in copies: a fraction of the slots, at least one (LATE §4).
    fn cap(&self, slots: u32) -> u32 {
        ((self.cfg.speculative_cap * slots as f64).ceil() as u32).max(1)
    }

    /// One walk over the running attempts for what LATE §4 ranks nodes and tasks by: each node's
    /// total progress — the sum of the progress scores of its succeeded and in-progress attempts
    /// (a succeeded attempt's score is 1: the job counts them per node as they finish) — and per
    /// kind the rates of the running attempts that join the SlowTaskThreshold pool, and the
    /// lowest rate of those that could be candidates. It also counts per node what the slow-node
    /// count needs. It writes the pool's rates, and a [`Note`] of each running task not
    /// succeeded (`Late::notes`) for the search for candidates, when that lowest rate does not
    /// rule it out.
    fn survey(&mut self, now: Millis, job: &JobState) -> Survey {
        // The walk writes to lists of its own, moved in and out of their places around it, not
        // to lists reached through references: a store to a node's total could then have been
        // to one of those lists' lengths, for all the compiler knew, and each push read them
        // again (the walk took 13.0M instructions at 100K running, 11.5M now).
        let mut totals: Vec<f64> = job.nodes().map(|(i, _)| job.succeeded_on_node(i) as f64).collect();
        let mut alone_on_node = vec![0; totals.len()];
        let (mut pools, mut others): ([Pool; 2], Vec<(TaskKind, u32, NodeIdx)>) = Default::default();
        let (min_runtime, pool_all) = (self.cfg.min_runtime_ms, self.cfg.rate_pool_all);
        for kind in TaskKind::ALL {
            let mut notes = std::mem::take(&mut self.notes[kind as usize]);
            notes.clear();
            notes.reserve(job.running_task_count(kind) as usize);
            let (mut lowest, mut recorded) = (f64::INFINITY, false);
            // The pool's rates not among the notes; the notes' and the succeeded ones' the pool
            // reads where they are kept (`candidates`).
            let (mut extras, mut pooled) = (Vec::new(), 0);
            // A task's one running attempt is read from its brief, not from the task's record.
            for index in job.running_task_indices(kind) {
                let id = TaskId { kind, index };
                let task_succeeded = job.task_succeeded(id);
                if let Some(b) = job.brief(id) {
                    let young = b.elapsed(now) < min_runtime;
                    if let Some(node) = b.node() {
                        totals[node.0 as usize] += b.progress();
                        if !task_succeeded {
                            alone_on_node[node.0 as usize] += 1;
                        }
                    }
                    if !young {
                        let rate = brief_progress_rate(b, now);
                        let in_pool = pool_all || b.shown_progress();
                        if !task_succeeded {
                            // Out of the pool, an attempt yet to show progress: its rate is 0.
                            debug_assert!(in_pool || rate == 0.0, "no progress shown, a rate of {rate}");
                            // A rate is finite and at least +0 (`JobState` keeps progress within
                            // [+0, 1], and a rate over no elapsed time is +0): one in the pool is
                            // admitted by `stats::is_pooled`, as `percentile_of_rates_and_keys`
                            // checks in debug builds.
                            if in_pool {
                                notes.push(rate);
                                pooled += 1;
                            } else {
                                notes.push(Note::LEFT_OUT);
                            }
                            // A NaN rate is left out here as `candidates` lets it go.
                            if rate < lowest {
                                lowest = rate;
                            }
                        } else if in_pool {
                            extras.push(order_key(rate));
                        }
                    } else {
                        if pool_all {
                            extras.push(order_key(brief_progress_rate(b, now)));
                        }
                        if !task_succeeded {
                            notes.push(Note::YOUNG);
                        }
                    }
                    continue;
                }
                recorded = true;
                if !task_succeeded {
                    notes.push(Note::RECORD);
                }
                for a in job.running_attempts_of(&job.tasks(kind)[index as usize]) {
                    if let Some(node) = a.node {
                        totals[node.0 as usize] += a.progress;
                        if !task_succeeded {
                            others.push((kind, index, node));
                        }
                    }
                    if pool_all || (a.first_progress_at().is_some() && a.elapsed(now) >= min_runtime) {
                        extras.push(order_key(progress_rate(a, now)));
                    }
                }
            }
            self.notes[kind as usize] = notes;
            pools[kind as usize] = Pool { extras, pooled, slowest: (!recorded).then_some(lowest) };
        }
        Survey { totals, pools, alone_on_node, others }
    }

    /// Nodes whose total progress (`survey`) is below the SlowNodeThreshold percentile (LATE §4),
    /// plus lost nodes: their names, sorted, and a flag per node index.
    fn slow_nodes(&self, job: &JobState, totals: &[f64]) -> (SharedNodes, Vec<bool>) {
        let mut alive: Vec<f64> =
            job.nodes().filter(|(_, n)| !n.lost).map(|(i, _)| totals[i.0 as usize]).collect();
        let threshold = percentile(&mut alive, self.cfg.slow_node_threshold);
        let flagged: Vec<bool> =
            job.nodes().map(|(i, n)| n.lost || threshold.is_some_and(|t| totals[i.0 as usize] < t)).collect();
        // Read off the job's nodes in name order: sorted, one index per name.
        let names: Vec<NodeName> = job.nodes_by_name().filter(|(i, _)| flagged[i.0 as usize]).map(|(_, n)| n.name).collect();
        (Arc::new(names), flagged)
    }

    /// Running tasks of one kind that LATE may copy, with the kind's SlowTaskThreshold applied,
    /// the threshold, and how many there are. Only the first `places` of their order (longest
    /// time left first, ties in task order) are read: the list keeps a candidate only while it
    /// can still make those (`TopFloor`), and the count is of them all. On a job where all are
    /// late (the benchmark's, 100K running) that keeps 1,504 of its 14,285 candidates.
    #[allow(clippy::too_many_arguments)]
    fn candidates(
        &mut self,
        now: Millis,
        job: &JobState,
        kind: TaskKind,
        estimator: &Estimator,
        startup: (f64, bool),
        pool: Pool,
        places: usize,
    ) -> (Vec<Candidate>, f64, usize) {
        let Pool { mut extras, pooled, slowest } = pool;
        // With no candidates the threshold is not read.
        let mut out = Vec::new();
        if self.cfg.reduce_waits_for_maps && shuffle_waits_on_maps(job, kind, now, self.cfg.min_runtime_ms) {
            return (out, f64::NAN, 0);
        }
        let tasks = job.tasks(kind);
        // The pool: the running attempts that qualify (`survey`: the notes' rates and the
        // extras), and every succeeded one (its rate is its score of 1 over its run time).
        let threshold = self.cfg.slow_task_threshold;
        let notes = &self.notes[kind as usize];
        let succeeded = succeeded_rates(&mut self.succeeded_rates[kind as usize], job, kind, now, &mut extras);
        // Every task read from its brief past the minimum run time clearly at or above the
        // threshold, counted rather than selected, and none read from its record
        // (`Pool::slowest`): no task of the kind is a candidate, and the threshold, which
        // only a candidate's copy reports, is not worked out.
        if slowest.is_some_and(|s| clearly_at_least_percentile(notes, pooled, &extras, succeeded, threshold, s)) {
            return (out, f64::NAN, 0);
        }
        let Some(slow_task_rate) = percentile_of_rates_and_keys(notes, pooled, &mut extras, succeeded, threshold) else {
            return (out, f64::NAN, 0);
        };
        // What only GRASS's test reads is computed only when it is on.
        let (t_new_model, last_wave) = if self.cfg.grass {
            let model = self.copy_times.get(job, kind, now, startup.0);
            (model, job.started_task_count(kind) as usize == tasks.len())
        } else {
            (None, false)
        };
        // No task read from its brief past the minimum run time is below the threshold or at a
        // rate of 0, and none was read from its record (`Pool::slowest`): the walk below would
        // let every task go (a NaN rate included), so it is not taken.
        if slowest.is_some_and(|s| s > 0.0 && s >= slow_task_rate) {
            return (out, slow_task_rate, 0);
        }
        // The floor of the first `places`, raised as candidates come (every 16 kept, as a walk's
        // batch); a kind's own: where both kinds have candidates, the maps' are ranked first.
        let floor = TopFloor::new(places, job.running_task_count(kind) as usize, true);
        let mut found = 0usize;
        let mut keep = |out: &mut Vec<Candidate>, c: Candidate| {
            found += 1;
            if floor.admits(c.time_left_s) {
                out.push(c);
                if out.len() % 16 == 0 {
                    floor.raise(out, |c| c.time_left_s);
                }
            }
        };
        // The kind's median start-up, for attempts yet to show progress: taken once, when first
        // needed, rather than for each such attempt.
        let median_startup = std::cell::OnceCell::new();
        // Only tasks with a running attempt can be copied, and only those whose rate is below the
        // threshold (see below): most tasks are let go on the survey's note of their rate alone,
        // their briefs not read again. The notes follow the tasks' order; the tasks they pick are
        // listed first, so that the walk over them asks for their records ahead.
        debug_assert_eq!(notes.len(), job.running_unsucceeded_but(kind, &[]).count(), "a note for each task");
        let mut picked = std::mem::take(&mut self.picked);
        picked.clear();
        // Room for every note at once: the filter's count is not known ahead, and a first
        // decision's list grew by doubling, a copy each time (14K picked of 100K notes).
        picked.reserve(notes.len());
        picked.extend(
            job.running_unsucceeded_but(kind, &[])
                .zip(notes.iter().copied())
                .zip(0u32..)
                .filter(|&((_, note), _)| note == Note::RECORD || note < slow_task_rate || note == 0.0)
                .map(|((index, _), place)| (index, place)),
        );
        // Each picked task gives at most one candidate, and the floor keeps about the first
        // `places` (1,504 of 14,285 for 1,000 places on the benchmark's job): room for those at once.
        out.reserve(picked.len().min(places.saturating_mul(2)));
        for (place, &(index, noted_at)) in picked.iter().enumerate() {
            if let Some(&(ahead, _)) = picked.get(place + PICKED_AHEAD) {
                job.prefetch_brief_and_booking(TaskId { kind, index: ahead });
            }
            let id = TaskId { kind, index };
            let quick = match job.brief(id) {
                // No brief (noted `Note::RECORD`): the task is judged from its record below if
                // any of its running attempts is below the threshold.
                None => {
                    let slow = |a: &Attempt| {
                        let rate = progress_rate(a, now);
                        rate < slow_task_rate || rate == 0.0
                    };
                    if !job.running_attempts_of(&tasks[index as usize]).any(slow) {
                        continue;
                    }
                    None
                }
                // Noted with the brief's rate, below the threshold or 0 (a task below the
                // minimum run time, noted NaN, was let go with the quicker ones).
                Some(b) => {
                    // With a copy pending the record would be read only to let the task go.
                    if job.booking(id).copies_pending() > 0 {
                        continue;
                    }
                    // The usual case, judged from the brief alone: a task's one running attempt,
                    // not being speculated, started (`started_or_late`), past the minimum run
                    // time, and an estimator that needs no more than its progress and rate.
                    let rate = notes[noted_at as usize];
                    let quick = if b.shown_progress() { estimator.time_left_at(kind, b.progress(), rate) } else { None };
                    quick.map(|time_left_s| (time_left_s, b.progress(), b.node(), rate))
                }
            };
            if let Some((time_left_s, progress, node, rate)) = quick {
                let grass = if self.cfg.grass {
                    let Some(t_new) = t_new_model.as_ref().and_then(|m| m.t_new(job, id)) else { continue };
                    let Some(rule) = grass_allows(time_left_s, t_new, 1, startup.0, last_wave) else { continue };
                    Some((rule, t_new))
                } else {
                    None
                };
                keep(&mut out, Candidate { task: id, progress, node, rate, time_left_s, grass });
                continue;
            }
            // Only tasks "not currently being speculated": one running attempt, no copy pending.
            let booked = job.booking(id);
            if booked.copies_pending() > 0 || booked.running() != 1 {
                continue;
            }
            let task = &tasks[index as usize];
            let mut running = job.running_attempts_of(task);
            let (Some(attempt), None) = (running.next(), running.next()) else { continue };
            if attempt.elapsed(now) < self.cfg.min_runtime_ms
                || !Silence::of(attempt, now).started_or_late(
                    job,
                    kind,
                    now,
                    self.cfg.first_progress_factor,
                    self.cfg.silent_runtime_factor,
                    &median_startup,
                )
            {
                continue;
            }
            let rate = progress_rate(attempt, now);
            // §4: copy only tasks whose rate is below the SlowTaskThreshold percentile. When a
            // quarter or more of the attempts have not progressed at all (on a badly slowed node
            // a task JVM can take longer than the minimum run time just to start), that
            // percentile is 0 and nothing would be strictly below it; an attempt with no
            // progress after the minimum run time is the slowest there is, so it qualifies.
            if rate < slow_task_rate || rate == 0.0 {
                let time_left_s = estimator.time_left_s(kind, attempt);
                let grass = if self.cfg.grass {
                    // GRASS §4: with nothing to tell t_new from yet, no copy is known to pay.
                    let Some(t_new) = t_new_model.as_ref().and_then(|m| m.t_new(job, task.id)) else { continue };
                    let Some(rule) = grass_allows(time_left_s, t_new, 1, startup.0, last_wave) else { continue };
                    Some((rule, t_new))
                } else {
                    None
                };
                let (progress, node) = (attempt.progress, attempt.node);
                keep(&mut out, Candidate { task: task.id, progress, node, rate, time_left_s, grass });
            }
        }
        self.picked = picked;
        (out, slow_task_rate, found)
    }
}

/// The progress rates of a kind's attempts now in the succeeded state, as `progress_rate` gives
/// them, as their `order_key`s, kept from scan to scan in `kept` (`Late::succeeded_rates`): worked
/// out from the job's list only for the attempts listed since the last scan (a division per
/// finished task was 50K a scan late in a phase of 150K tasks), and read where they are kept
/// rather than copied into the pool (100K and more late in a big job). When a succeeded attempt
/// was reported lost since, they are added to `keys` instead, from a walk, and none are returned.
fn succeeded_rates<'a>(
    kept: &'a mut Option<(usize, Vec<u64>)>,
    job: &JobState,
    kind: TaskKind,
    now: Millis,
    keys: &mut Vec<u64>,
) -> &'a mut [u64] {
    let (now_succeeded, _) = job.succeeded_runtime_ms(kind);
    let done = job.succeeded_attempts(kind);
    if done.len() != now_succeeded as usize {
        *kept = None;
        add_succeeded_rates_walked(job, kind, now, keys);
        return &mut [];
    }
    // Every attempt the job recorded as succeeded still is: its run time is at hand.
    // The list only grows, at its end: the rates of the attempts listed since are added (the
    // pool's percentile reorders the kept ones among themselves, which a pool does not mind).
    let (len, rates) = kept.get_or_insert_with(Default::default);
    rates.extend(done[*len..].iter().map(|d| order_key(if d.secs > 0.0 { 1.0 / d.secs } else { 0.0 })));
    *len = done.len();
    rates
}

/// `Late::succeeded_rates` when a succeeded attempt was reported lost since: from a walk over
/// the attempts.
fn add_succeeded_rates_walked(job: &JobState, kind: TaskKind, now: Millis, keys: &mut Vec<u64>) {
    // A succeeded attempt was reported lost since: walk the attempts.
    keys.extend(
        job.tasks(kind)
            .iter()
            .flat_map(|t| job.attempts_of(t))
            .filter(|a| a.state == AttemptState::Succeeded)
            .map(|a| order_key(progress_rate(a, now))),
    );
}

impl Policy for Late {
    fn name(&self) -> &'static str {
        "late"
    }

    fn decide(&mut self, now: Millis, job: &JobState) -> Vec<Action> {
        // LATE §4 speculates only when no task waits for a slot; its own copies' requests are not
        // such tasks (`JobState::containers_wanted_beyond_copies`).
        if job.containers_wanted_beyond_copies() > 0 {
            return Vec::new();
        }
        let slots = job.slots();
        let survey = self.survey(now, job);
        let (slow_nodes, flagged) = self.slow_nodes(job, &survey.totals);
        let mut cap = self.cap(slots);
        if self.cfg.cap_covers_slow_nodes {
            cap = cap.max(Self::on_slow_nodes(&survey, &flagged));
        }
        // The cap is on the cluster's copies (LATE §4); other jobs' copies count when reported.
        let speculating = job.speculated_task_count() + job.copies_elsewhere;
        let mut budget = cap.saturating_sub(speculating);
        if let Some(free) = job.free_slots {
            budget = budget.min(free);
        }
        // And no more than `rein.max-copies-per-scan` copies in one decision.
        budget = budget.min(copies_per_scan(job));
        if budget == 0 {
            return Vec::new();
        }

        let estimator = Estimator::new(self.cfg.estimator, job, now, self.delta_ms).min_window_ms(self.min_window_ms);
        // GRASS's start-up cost is the job's (both kinds'): taken once, and only when GRASS is on.
        let startup = if self.cfg.grass { startup_cost_s(job, self.grass_startup_ms) } else { (0.0, false) };
        let mut candidates = Vec::new();
        let mut total = 0;
        let mut slow_task_rates = [f64::NAN; 2];
        for (kind, pool) in TaskKind::ALL.into_iter().zip(survey.pools) {
            let (found, count);
            (found, slow_task_rates[kind as usize], count) =
                self.candidates(now, job, kind, &estimator, startup, pool, budget as usize);
            total += count;
            // Usually one kind has them all: its list is taken as it is, not copied.
            if candidates.is_empty() {
                candidates = found;
            } else {
                candidates.extend(found);
            }
        }
        if candidates.is_empty() {
            return Vec::new();
        }
        // Longest estimated time left first; ties by task id (the order they were gathered in)
        // so that decisions are reproducible.
        let order = rank_descending_top(candidates.iter().map(|c| c.time_left_s), budget as usize);
        // What the copies that pass GRASS's test share, kept once for all of them.
        let decision = Arc::new(LateDecision {
            slow_task_rate: slow_task_rates,
            candidates: total as u32,
            speculating,
            cap,
            slots,
            startup_s: startup.0,
            startup_measured: startup.1,
        });
        order
            .of(&candidates)
            .enumerate()
            .map(|(i, c)| {
                // The slow nodes, shared by every copy, and the straggler's own node.
                let avoid = AvoidNodes::new(&slow_nodes, c.node.map(|n| job.node(n).name));
                let reason = match c.grass {
                    Some((rule, t_new_s)) => Reason::LateGrass {
                        progress: c.progress,
                        rate: c.rate,
                        time_left_s: c.time_left_s,
                        kind: c.task.kind,
                        rank: i as u32 + 1,
                        rule,
                        t_new_s,
                        decision: decision.clone(),
                    },
                    None => Reason::Late {
                        progress: c.progress,
                        rate: c.rate,
                        slow_task_rate: slow_task_rates[c.task.kind as usize],
                        time_left_s: c.time_left_s,
                        rank: i as u32 + 1,
                        candidates: total as u32,
                        speculative_running: speculating + i as u32,
                        cap,
                        slots,
                    },
                };
                Action::Speculate { task: c.task, avoid_nodes: avoid, prefer_rack: None, reason }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, Outcome};
    use crate::model::Phase;
    use crate::Engine;

    /// The search for candidates reads a task's brief only where the survey's note of it is
    /// below the threshold: it finds what reading every running task's brief finds, in the same
    /// order, with the same figures. On a job of young and old tasks, slow and quick, some yet to
    /// report, some finished, some copied (two running attempts: no brief, judged from the
    /// record and never a candidate while the copy runs).
    #[test]
    fn the_notes_find_what_reading_every_brief_finds() {
        let n = 4_000u32;
        let mut e = Engine::from_pairs([("rein.policy", "late")]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: n, reduces: 0 });
        let mut next = crate::test_below();
        let now: Millis = 200_000;
        for i in 0..n {
            let attempt = TaskId::map(i).attempt(0);
            let start = next(190_000) as Millis;
            e.ingest(start, Event::AttemptStarted { attempt, node: Some(format!("n{}:1", i % 13)), rack: None });
            if next(5) == 0 {
                continue;
            }
            let at = start + 1 + next((now - start - 1) as u64) as Millis;
            let progress = (at - start) as f64 / (40_000.0 + next(200_000) as f64);
            e.ingest(at, Event::AttemptStatus { attempt, progress: progress.min(1.0), phase: Phase::Map });
            if i % 9 == 0 && progress >= 1.0 {
                e.ingest(at, Event::AttemptFinished { attempt, outcome: Outcome::Succeeded });
            } else if i % 41 == 0 {
                e.ingest(at, Event::AttemptStarted { attempt: TaskId::map(i).attempt(1), node: Some("m:1".into()), rack: None });
            }
        }
        let job = e.job();
        let mut late = Late::new(e.config());
        let survey = late.survey(now, job);
        let notes = &late.notes[0];
        let count = |note: f64| notes.iter().filter(|&&x| x.to_bits() == note.to_bits()).count();
        assert!(count(Note::YOUNG) > 0 && count(Note::RECORD) > 0, "young tasks and tasks read from their records");
        let estimator = Estimator::new(late.cfg.estimator, job, now, late.delta_ms);
        let (list, threshold, _) =
            late.candidates(now, job, TaskKind::Map, &estimator, (0.0, false), survey.pools[0].clone(), usize::MAX);
        let found: Vec<_> = list.iter().map(|c| (c.task, c.progress.to_bits(), c.rate.to_bits(), c.time_left_s.to_bits())).collect();
        let mut want = Vec::new();
        for index in job.running_unsucceeded(TaskKind::Map) {
            let id = TaskId::map(index);
            let Some(b) = job.brief(id) else { continue };
            let rate = brief_progress_rate(b, now);
            if b.elapsed(now) < late.cfg.min_runtime_ms || !(rate < threshold || rate == 0.0) {
                continue;
            }
            let time_left_s = if b.shown_progress() {
                estimator.time_left_at(TaskKind::Map, b.progress(), rate).expect("an estimate")
            } else {
                // Yet to show progress: judged as the task's record is.
                let a = job.running_attempts_of(&job.tasks(TaskKind::Map)[index as usize]).next().expect("a running attempt");
                let (first, silent) = (late.cfg.first_progress_factor, late.cfg.silent_runtime_factor);
                if !Silence::of(a, now).started_or_late(job, TaskKind::Map, now, first, silent, &Default::default()) {
                    continue;
                }
                estimator.time_left_s(TaskKind::Map, a)
            };
            want.push((id, b.progress().to_bits(), rate.to_bits(), time_left_s.to_bits()));
        }
        let silent = want.iter().filter(|w| w.1 == 0).count();
        assert!(silent > 0 && silent < want.len() && want.len() < n as usize / 2, "candidates: {}, {silent} silent", want.len());
        assert_eq!(found.len(), want.len(), "the notes found {} candidates, the briefs {}", found.len(), want.len());
        if let Some((f, w)) = found.iter().zip(&want).find(|(f, w)| f != w) {
            panic!("the notes found other candidates than the briefs: {f:?} against {w:?}");
        }
    }

    /// The walk over the candidates is left out only where it would find none: on jobs whose
    /// running tasks are all quicker than the slow quarter of the pool (there the survey's lowest
    /// rate is clearly at or above the threshold, and neither the threshold nor the walk is
    /// worked out), and on the same jobs with one task slowed, or one past the minimum run time
    /// with no progress (there both are), the candidates found are those of the walk forced
    /// (`slowest` unknown), figure for figure.
    #[test]
    fn the_walk_is_left_out_only_where_it_finds_nothing() {
        let now: Millis = 400_000;
        let mut skipped = [0, 0];
        for case in 0..6u32 {
            let n = 3_000u32;
            let mut e = Engine::from_pairs([("rein.policy", "late")]).unwrap().0;
            e.ingest(0, Event::JobCreated { maps: n, reduces: 0 });
            let mut next = crate::test_below();
            for i in 0..n {
                let attempt = TaskId::map(i).attempt(0);
                let node = Some(format!("n{}:1", i % 11));
                if i % 3 == 0 {
                    // Finished, slowly: 150–200 s, the pool's slow quarter.
                    let took = 150_000 + next(50_000) as Millis;
                    let start = now - took - 1_000 - next(50_000) as Millis;
                    e.ingest(start, Event::AttemptStarted { attempt, node, rack: None });
                    e.ingest(start + took, Event::AttemptFinished { attempt, outcome: Outcome::Succeeded });
                    continue;
                }
                // Running on course for 80–100 s, some young; in the odd cases one is slowed
                // (cases 1 and 5) or shows no progress past the minimum run time (case 3).
                // Tasks 7 and 8 are past the minimum run time.
                let start = if i == 7 || i == 8 { now - 75_000 } else { now - 5_000 - next(75_000) as Millis };
                e.ingest(start, Event::AttemptStarted { attempt, node, rack: None });
                let course = 80_000.0 + next(20_000) as f64;
                let course = if i == 7 && case % 4 == 1 { course * 4.0 } else { course };
                if i == 8 && case == 3 {
                    continue;
                }
                let at = now - 1 - next(2_000) as Millis;
                let progress = ((at - start) as f64 / course).min(0.99);
                e.ingest(at.max(start + 1), Event::AttemptStatus { attempt, progress, phase: Phase::Map });
            }
            let job = e.job();
            let mut late = Late::new(e.config());
            let survey = late.survey(now, job);
            let estimator = Estimator::new(late.cfg.estimator, job, now, late.delta_ms);
            let mut found = Vec::new();
            for slowest in [survey.pools[0].slowest, None] {
                let pool = Pool { slowest, ..survey.pools[0].clone() };
                let (list, threshold, _) =
                    late.candidates(now, job, TaskKind::Map, &estimator, (0.0, false), pool, usize::MAX);
                let seen: Vec<_> =
                    list.iter().map(|c| (c.task, c.progress.to_bits(), c.rate.to_bits(), c.time_left_s.to_bits())).collect();
                found.push((seen, threshold.to_bits()));
            }
            let lowest = survey.pools[0].slowest.expect("every running task has a brief");
            // The threshold, from the walk forced; the walk left out reports none (NaN).
            let threshold = f64::from_bits(found[1].1);
            let left_out = f64::from_bits(found[0].1).is_nan();
            skipped[left_out as usize] += 1;
            assert_eq!(left_out, case % 4 != 1 && case != 3, "case {case}: lowest rate {lowest}, threshold {threshold}");
            assert_eq!(left_out, lowest > 0.0 && lowest >= threshold, "case {case}: lowest rate {lowest}, threshold {threshold}");
            assert_eq!(found[0].0, found[1].0, "case {case}: the walk left out found something");
            if !left_out {
                assert_eq!(found[0].1, found[1].1, "case {case}: the walk taken, the threshold differs");
            }
            assert_eq!(found[0].0.is_empty(), left_out, "case {case}: {} candidates", found[0].0.len());
        }
        assert_eq!(skipped, [3, 3], "cases taking the walk and leaving it out");
    }
}
