//! ESE — Enhanced Speculative Execution (Xu & Lau, §V, Algorithm 2).
//!
//! Each time slot: (1) back up, in descending order of t_rem, every task in
//! D = {tasks with one copy and t_rem > σ·E[x]}; (2) schedule the remaining tasks of running jobs,
//! smallest remaining workload first; (3) with machines still idle, clone small jobs
//! (m < η·N/|χ| and E[x] < ξ) with the copy count of Eq. 21. σ* minimises the expected resource
//! of a task, E[R] (Eq. 22–25), for the fitted task-time distribution: ≈ 1.7 for a Pareto tail of
//! α = 2, near 2 for α ≥ 3.
//!
//! In an ApplicationMaster: step (2) is the AM's own scheduling of its unstarted tasks, which a
//! speculator cannot reorder; step (3) sees one job (|χ| = 1) and, since Hadoop accepts copies only
//! of running tasks, clones each task as its first attempt starts. E[x] is the mean run time of
//! the job's finished tasks of that kind, or `rein.ese.expected-task-ms` before any has finished;
//! without that prior, tasks that started before E[x] was known are decided when it is
//! (`rein.ese.prior-from-siblings`), so that step (3) is not dead in a single AM.
//!
//! Step (1) takes t_rem as known. An attempt that has not reported progress yet has none to
//! estimate from (Mantri's estimator gives it an infinite t_rem), and a healthy task that merely
//! reports late would be backed up at once: on the quick bench's healthy cluster, whose 1-MB maps
//! report no progress before they end, ESE backed up three healthy maps a run. With
//! `rein.ese.wait-for-first-progress` (true) a silent attempt is a candidate only once it is late
//! to start against its siblings, as rein's LATE judges one (`grass::Silence::started_or_late`).

use crate::action::{Action, AvoidNodes, Reason};
use crate::config::{Config, EseConfig, ScaConfig};
use crate::dist::Pareto;
use crate::estimate::EstimatorMemo;
use crate::model::{JobState, Millis, NodeIdx, Task, TaskId, TaskKind};
use crate::policy::grass::Silence;
use crate::policy::sca::TailMemo;
use crate::policy::sigma_table::SIGMA_STAR;
use crate::policy::{
    clone_started, copies_per_scan, decide_all_newly_started, free_slots, newly_started, rank_descending_top, walk_running, Policy, Sca, TaskSet,
    TopFloor,
};
use crate::stats::FitSums;

pub struct Ese {
    cfg: EseConfig,
    first_progress_factor: f64,
    silent_runtime_factor: f64,
    /// Eq. 21 reuses SCA's utility, γ, r and tail model.
    sca: ScaConfig,
    delta_ms: Millis,
    /// `rein.mantri.min-window-ms`, for the Mantri estimator if chosen.
    min_window_ms: Millis,
    decided: TaskSet,
    /// Whether step (3) clones small jobs' tasks: not as a cloning policy's detecting partner
    /// (`WithReactive`), where cloning is the partner's part.
    clones: bool,
    estimators: EstimatorMemo,
    /// Per task kind, the tail fit and mean of the finished durations.
    tails: [TailMemo; 2],
}

/// σ* per tail index (in hundredths, a multiple of 5 up to 1,000): solving Eq. 22–25 takes about
/// 7 ms, so the grid's 201 solutions are a table (`sigma_table`, and the example that writes it).
fn optimal_sigma(alpha_hundredths: u32) -> f64 {
    debug_assert!(alpha_hundredths % 5 == 0 && alpha_hundredths <= 1_000, "α = {alpha_hundredths}/100 is off the grid");
    SIGMA_STAR[(alpha_hundredths / 5) as usize]
}

impl Ese {
    pub fn new(config: &Config) -> Ese {
        Ese {
            cfg: config.ese.clone(),
            first_progress_factor: if config.ese.wait_for_first_progress { config.late.first_progress_factor } else { 0.0 },
            silent_runtime_factor: config.late.silent_runtime_factor,
            sca: config.sca.clone(),
            delta_ms: config.mantri.delta_ms,
            min_window_ms: config.mantri.min_window_ms,
            decided: TaskSet::default(),
            clones: true,
            estimators: EstimatorMemo::default(),
            tails: Default::default(),
        }
    }

    /// ESE as a cloning policy's detecting partner: steps (1) only, no clones of its own.
    pub fn detecting(config: &Config) -> Ese {
        Ese { clones: false, ..Ese::new(config) }
    }

    fn sigma(&self, alpha: f64) -> f64 {
        if let Some(s) = self.cfg.sigma {
            return s;
        }
        // σ* is smooth in α and flat near 2 for light tails (ESE Fig. 5): solving it on a grid of
        // α in steps of 0.05, up to α = 10, bounds the process to a few hundred solves, where
        // every fitted α to the hundredth cost a solve of its own.
        let alpha = alpha.min(10.0);
        optimal_sigma(((alpha * 20.0).round() * 5.0) as u32)
    }

    /// Eq. 21 for a kind whose job is small (m < η·N/|χ| with |χ| = 1, and E[x] < ξ): the copy
    /// count per task and its reason; None when the job is not small.
    /// `dist` is the tail fitted to the kind's finished tasks, `mean` E[x] (`mean_task_s`).
    fn small_job_clones(
        &self,
        job: &JobState,
        kind: TaskKind,
        dist: Pareto,
        mean: Option<f64>,
        n_free: u32,
    ) -> Option<(u32, Reason)> {
        let m = job.tasks(kind).len() as u32;
        self.small(m, mean, n_free).then(|| Sca::plan(&self.sca, dist, m, n_free, "ESE §V-A (Eq. 21)"))
    }

    /// Whether a kind's job of `m` tasks is small (Eq. 21's test) with `n_free` machines free for
    /// it: fewer machines free leave it no smaller.
    fn small(&self, m: u32, mean: Option<f64>, n_free: u32) -> bool {
        let small_in_tasks = (m as f64) < self.cfg.eta * n_free as f64;
        let small_in_time = mean.is_some_and(|x| x * 1000.0 < self.cfg.xi_ms as f64);
        small_in_tasks && small_in_time
    }

    /// E[x] from the durations of a kind's finished tasks (the job's sums over them), else the
    /// configured prior.
    fn mean_task_s(&mut self, kind: TaskKind, d: FitSums) -> Option<f64> {
        let prior = self.cfg.expected_task_ms.map(|ms| ms as f64 / 1000.0);
        self.tails[kind as usize].mean_s(&self.sca, d).or(prior)
    }
}

impl Policy for Ese {
    fn name(&self) -> &'static str {
        "ese"
    }

    fn reads_startup_bar(&self) -> bool {
        true
    }

    fn fits_tails(&self) -> bool {
        true
    }

    fn decide(&mut self, now: Millis, job: &JobState) -> Vec<Action> {
        let estimator =
            self.estimators.estimator(self.cfg.estimator, job, now, self.delta_ms).min_window_ms(self.min_window_ms);
        // A backup is asked for at least once per decision, like any request it queues for a
        // container, and at most `rein.max-copies-per-scan` times (as `copy_room`); clones are
        // only ever made into slots known to be free.
        let mut free = free_slots(job);
        let backup_budget = free.min(copies_per_scan(job)).max(1);
        let sums = TaskKind::ALL.map(|kind| job.finished_duration_sums(kind));
        // E[x] per kind, once: not summed again for every task.
        let means = TaskKind::ALL.map(|kind| self.mean_task_s(kind, sums[kind as usize]));

        // (1) The backup set D, longest t_rem first.
        // Only the first `backup_budget` of D are backed up: the walk keeps a backup only while
        // it can still make those places (`TopFloor`, ties in task order as the ranking has
        // them), and counts the rest of D (`found`), which the reasons report. On a job where all
        // are late (the benchmark's, 100K running) that keeps 3,010 of 100K, and ranks those only.
        let running = job.running_task_total();
        let floor = TopFloor::new(backup_budget as usize, running, true);
        let found = std::cell::Cell::new(0usize);
        let keep = |t_rem: f64| {
            found.set(found.get() + 1);
            floor.admits(t_rem)
        };
        // Room for every running task at once where nothing is let go: a decision can find 100K,
        // and growing the list by doubling would copy it and touch twice the memory.
        let mut backups = Vec::with_capacity(running);
        // σ and E[x] per kind, kept once rather than in every backup.
        let mut bars = [(0.0, 0.0); 2];
        for kind in TaskKind::ALL {
            let Some(mean) = means[kind as usize] else { continue };
            let alpha = self.tails[kind as usize].alpha(&self.sca, sums[kind as usize]);
            let sigma = self.sigma(alpha);
            bars[kind as usize] = (sigma, mean);
            let bar = std::cell::OnceCell::new();
            // Only a task with a running attempt can be backed up.
            // A task is backed up only alone and with no copy pending, and only when late by σ·E[x]:
            // one whose attempt is certainly short of that is passed over from its brief, without
            // estimating it or reading its record (most of a healthy scan's tasks). That bound is
            // the walk's shortcut, which it tries only now and then where it keeps failing (a job
            // where all are late; `walk_running`).
            //
            // A task whose attempt has shown progress is judged from its brief where the brief
            // holds its estimate (every late task of a job where all are late): the same figures
            // as from its record, which the walk then does not read.
            //
            // The bound is tried first: a task with a brief has one running attempt, and one
            // clearly short of the bar is passed over whatever is booked on it, so its booking is
            // not read (a second record per task, of most of a healthy scan's).
            let passed_over = |id: TaskId, shortcut: bool| {
                if shortcut && job.brief(id).is_some_and(|b| estimator.brief_time_left_clearly_at_most(kind, b, sigma * mean)) {
                    return true;
                }
                let booked = job.booking(id);
                booked.copies_pending() > 0 || booked.running() != 1
            };
            let look = |id: TaskId, backups: &mut Vec<_>| {
                let Some(b) = job.brief(id) else { return true };
                // A silent attempt not yet late to start yields nothing (a wave's newly started
                // attempts, judged without reading their records); one that is late is read.
                if !b.shown_progress() {
                    return Silence::of_brief(b, now).started_or_late(job, kind, now, self.first_progress_factor, self.silent_runtime_factor, &bar);
                }
                // `started_or_late` holds for an attempt that has shown progress.
                let Some(t_rem) = estimator.brief_time_left_s(kind, b) else {
                    return true;
                };
                if t_rem > sigma * mean && keep(t_rem) {
                    backups.push((t_rem, id, b.node()));
                }
                false
            };
            let read = |task: &Task| {
                let mut running = job.running_attempts_of(task);
                let (Some(a), None) = (running.next(), running.next()) else { return None };
                if !Silence::of(a, now).started_or_late(job, kind, now, self.first_progress_factor, self.silent_runtime_factor, &bar) {
                    return None;
                }
                let t_rem = estimator.time_left_s(kind, a);
                // Its node is taken now, while the task is at hand: the backups are made in rank order.
                (t_rem > sigma * mean && keep(t_rem)).then_some((t_rem, task.id, a.node))
            };
            let raise = |list: &[(f64, TaskId, Option<NodeIdx>)]| floor.raise(list, |b| b.0);
            walk_running(job, kind, passed_over, look, read, &mut backups, raise);
        }
        // Ties in task order.
        let order = rank_descending_top(backups.iter().map(|b| b.0), backup_budget as usize);
        let candidates = found.get();
        // Each backup takes one of the budget and, when there is one, a free slot. Written in one
        // `extend` of a list of known length: each action goes straight to its place in the list
        // (pushed one at a time, the 100K of a first decision where all are late took 0.35 ms more).
        let backed_up = candidates.min(backup_budget as usize);
        free = free.saturating_sub(backed_up as u32);
        let mut actions = Vec::with_capacity(backed_up);
        actions.extend(order.of(&backups).take(backed_up).enumerate().map(|(rank, &(t_rem, task, node))| {
            let (sigma, mean) = bars[task.kind as usize];
            Action::Speculate {
                task,
                avoid_nodes: AvoidNodes::own_only(node.map(|n| job.node(n).name)),
                prefer_rack: None,
                reason: Reason::Ese { t_rem_s: t_rem, sigma, mean_task_s: mean, rank: rank as u32 + 1, candidates: candidates as u32 },
            }
        }));

        if !self.clones {
            return actions;
        }

        // (3) Small jobs: clone their tasks as they start (Eq. 21). ESE §V-A takes E[x] as known;
        // without a configured prior (and with `rein.ese.prior-from-siblings`), a task is left
        // undecided until the first sibling of its kind has finished, then cloned only if it has
        // run less than half of E[x], when a clone can still win.
        let mut fresh: Vec<TaskId> = Vec::new();
        // Every task decided now, cloned or not: flags, not a list (a first scan decides 100K).
        let mut decided_now = TaskSet::default();
        // The tails fitted to the durations (kept up to date by `mean_task_s` above).
        let dists = TaskKind::ALL.map(|kind| self.tails[kind as usize].tail(&self.sca, sums[kind as usize]));
        // A kind whose job is not small even with every free slot (`clone_started` offers it the
        // slots free now and those its running tasks hold, and no more later) gets no clones: its
        // newly started tasks are decided without reading how long they have run (a wave of a
        // big job brings tens of thousands a scan). Nor does one whose plan with every such slot
        // gives one copy per task (P2 with fewer slots gives no more): a big job on a bigger
        // cluster, whose 100K newly started tasks were each handed to a plan of no clones.
        let may_clone = TaskKind::ALL.map(|kind| {
            let n_free = free.saturating_add(job.running_task_count(kind));
            self.small_job_clones(job, kind, dists[kind as usize], means[kind as usize], n_free).is_some_and(|(c, _)| c > 1)
        });
        // Such a kind's tasks are decided a word of 64 at a time, not looked at one by one.
        let all_alike = TaskKind::ALL.map(|kind| !may_clone[kind as usize] && (means[kind as usize].is_some() || !self.cfg.prior_from_siblings));
        for kind in TaskKind::ALL.into_iter().filter(|kind| all_alike[*kind as usize]) {
            decide_all_newly_started(job, kind, &mut self.decided);
        }
        for id in newly_started(job, &self.decided) {
            let mean = means[id.kind as usize];
            if self.cfg.prior_from_siblings {
                let Some(x) = mean else { continue };
                let Some(task) = job.task(id) else { continue };
                // A task with one running attempt is read from its brief, not from its record.
                let ran_ms = match job.brief(id) {
                    Some(b) => b.elapsed(now),
                    None => job.running_attempts_of(task).map(|a| a.elapsed(now)).max().unwrap_or(0),
                };
                let ran_s = ran_ms as f64 / 1000.0;
                if ran_s >= x / 2.0 {
                    decided_now.insert(id);
                    continue;
                }
            }
            decided_now.insert(id);
            fresh.push(id);
        }
        self.decided.absorb(decided_now);
        actions.extend(clone_started(job, &fresh, &mut free, |kind, n_free| {
            self.small_job_clones(job, kind, dists[kind as usize], means[kind as usize], n_free)
        }));
        actions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::Pareto;
    use crate::event::{Event, Outcome};
    use crate::Engine;

    /// The table holds what the solve gives, bit for bit, at a sample of the grid (every entry is
    /// solved by the example that writes it): its ends, light tails and heavy ones.
    #[test]
    fn the_sigma_table_is_the_solve() {
        for i in [0u32, 1, 21, 30, 40, 200] {
            let solved = Pareto::new((5 * i) as f64 / 100.0, 1.0).ese_optimal_sigma();
            assert_eq!(optimal_sigma(5 * i).to_bits(), solved.to_bits(), "α = {}", (5 * i) as f64 / 100.0);
        }
    }

    /// Three maps on twenty slots, no E[x] prior. Maps 0 and 1 start at 0, map 2 at 8 s; map 0
    /// finishes at 10 s, so E[x] = 10 s. Map 1 has run 10 s by then, past half of E[x]: no clone;
    /// map 2 has run 2 s and is cloned. Decided as they start (the key off), none is.
    #[test]
    fn small_job_cloning_waits_for_the_first_sibling_when_no_prior_is_given() {
        let run = |from_siblings: &str| {
            let mut e = Engine::from_pairs([
                ("rein.policy", "ese"),
                ("rein.cluster.slots", "20"),
                ("rein.ese.prior-from-siblings", from_siblings),
            ])
            .unwrap()
            .0;
            e.ingest(0, Event::JobCreated { maps: 3, reduces: 0 });
            let start = |e: &mut Engine, at, i| {
                let node = Some(format!("n{i}:1"));
                e.ingest(at, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node, rack: None });
            };
            start(&mut e, 0, 0);
            start(&mut e, 0, 1);
            let mut actions = e.decide(0);
            start(&mut e, 8_000, 2);
            actions.extend(e.decide(8_000));
            e.ingest(10_000, Event::AttemptFinished { attempt: TaskId::map(0).attempt(0), outcome: Outcome::Succeeded });
            actions.extend(e.decide(10_000));
            actions.into_iter().filter(|a| matches!(a, Action::Clone { .. })).map(|a| a.task()).collect::<Vec<_>>()
        };
        assert_eq!(run("true"), vec![TaskId::map(2)]);
        assert_eq!(run("false"), vec![]);
    }

    /// The healthy bed: eight maps on eight slots (no clones: heavy), none reports progress before
    /// it ends; five finish at 4 s. At 4.5 s the three silent ones have an infinite t_rem, yet are
    /// not late against siblings that took 4 s (`rein.ese.wait-for-first-progress`: 1.25 times
    /// their median run time): no backup. At 6 s they are: backed up. With the key off, as ESE
    /// prints it, the silent maps are backed up at 4.5 s.
    #[test]
    fn a_silent_attempt_is_backed_up_only_once_late_to_start() {
        let run = |wait: &str, at: Millis| {
            let mut e = Engine::from_pairs([
                ("rein.policy", "ese"),
                ("rein.cluster.slots", "8"),
                ("rein.ese.wait-for-first-progress", wait),
            ])
            .unwrap()
            .0;
            e.ingest(0, Event::JobCreated { maps: 8, reduces: 0 });
            for i in 0..8 {
                e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{}:1", i / 2)), rack: None });
            }
            assert!(e.decide(0).is_empty(), "heavy: no clones");
            for i in 0..5 {
                e.ingest(4_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
            }
            e.ingest(4_000, Event::Capacity { total_slots: 8, free_slots: Some(5) });
            e.decide(at).iter().filter(|a| matches!(a, Action::Speculate { .. })).count()
        };
        assert_eq!(run("true", 4_500), 0, "silent for 4.5 s against siblings that took 4 s");
        assert!(run("true", 6_000) > 0, "silent for 1.5 times the siblings' run time");
        assert!(run("false", 4_500) > 0, "ESE as printed: an unknown t_rem is infinite");
    }

    /// ESE §V-B, Fig. 5: σ* ≈ 1.7 for α = 2 and close to 2 for α ≥ 3; at σ* E[R] is below E[x].
    #[test]
    fn sigma_star_values() {
        let s2 = Pareto::new(2.0, 1.0).ese_optimal_sigma();
        assert!((s2 - 1.7).abs() < 0.05, "α = 2: σ* = {s2}");
        let mut last = s2;
        for alpha in [3.0, 4.0, 5.0] {
            let s = Pareto::new(alpha, 1.0).ese_optimal_sigma();
            assert!((1.85..=2.05).contains(&s), "α = {alpha}: σ* = {s}");
            assert!(s >= last - 0.02, "σ* grows with α");
            last = s;
        }
        let p = Pareto::new(2.0, 1.0);
        assert!(p.ese_expected_resource(s2) < p.mean());
        assert!(p.ese_expected_resource(0.1) > p.ese_expected_resource(s2));
        assert!(p.ese_expected_resource(3.0) > p.ese_expected_resource(s2));
    }
}
