//! SCA — the Smart Cloning Algorithm (Xu & Lau, §IV, Algorithm 1).
//!
//! In the lightly loaded regime (Σ m < N free machines) every task of a job gets the same copy
//! count c, chosen to maximise the job utility −E[flowtime] − γ·E[resource] (problem P2), with
//! E[flowtime] = E[max over the m tasks of the min over c copies] (Eq. 14–15) and E[resource] =
//! m·c·E[min over c copies] (Eq. 16), under Σ m·c ≤ N and 1 ≤ c ≤ r. Task times are Pareto: the
//! tail index is fitted online from the job's finished tasks, or given. Otherwise each task runs
//! one copy, the jobs taken smallest remaining workload first (SRPT).
//!
//! Solving P2: [`solve_p2`] is the paper's dual method — a subgradient step on the multiplier ν
//! of the slot constraint — whose inner maximisation is done exactly over the integers 1..=r
//! (the bound multipliers ξ, h are then never needed), followed by a repair to feasibility and
//! a local improvement. For a single job P2 is a one-dimensional integer problem over at most r
//! values, so [`best_clone_count`] searches it exhaustively: exact, and cheaper than iterating.
//!
//! In an ApplicationMaster there is one job, so SRPT across jobs is the cluster scheduler's
//! business, not the AM's; within the job rein applies P2 per phase (maps, then reduces) and asks
//! for the clones as each task's first attempt starts (Hadoop refuses copies before).
//!
//! rein's adaptations, each one key away from the paper: reduces are not cloned
//! (`rein.sca.clone-reduces`), and ESE's backups run beside the clones for the tasks SCA leaves
//! alone — all of them in a heavily loaded phase, which §III-B leaves to detection
//! (`rein.sca.reactive`; see `WithReactive`).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::action::{Action, Reason};
use crate::config::{Config, ScaConfig};
use crate::dist::Pareto;
use crate::model::{JobState, Millis, TaskId, TaskKind};
use crate::policy::{clone_started, decide_all_newly_started, free_slots, newly_started_of, Policy, TaskSet};
use crate::stats::FitSums;

/// P2's objective for one job with `m` tasks and `c` copies each; μ scales both terms alike.
fn utility(dist: &Pareto, m: u32, c: u32, gamma: f64) -> f64 {
    -dist.mean_max_of_min(m, c) - gamma * m as f64 * c as f64 * dist.mean_min(c)
}

/// E[max over m of min over c] for the tail, shared by every engine in the process: each is a
/// numerical integral, and the jobs of one cluster ask for the same (α, m, c) again and again
/// (a phase re-solves P2 each time its task count changes). Exact: keyed by α's bits.
fn mean_max_of_min(dist: &Pareto, m: u32, c: u32) -> f64 {
    type Key = (u64, u64, u32, u32);
    static CACHE: OnceLock<Mutex<HashMap<Key, f64>>> = OnceLock::new();
    /// Entries kept before the cache starts afresh: a few MB.
    const MOST: usize = 1 << 17;
    let key = (dist.alpha.to_bits(), dist.mu.to_bits(), m, c);
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(v) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return *v;
    }
    let v = dist.mean_max_of_min(m, c);
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() >= MOST {
        cache.clear();
    }
    cache.insert(key, v);
    v
}

/// The copy count for one job of `m` tasks with `free` machines: P2 by exhaustive search over
/// 1..=min(r, free/m). Returns the count and E[flowtime] relative to one copy.
pub fn best_clone_count(dist: &Pareto, m: u32, free: u32, r: u32, gamma: f64) -> (u32, f64) {
    let most = r.min(free / m.max(1)).max(1);
    let flowtime = |c: u32| mean_max_of_min(dist, m, c);
    let utilities: Vec<(u32, f64)> =
        (1..=most).map(|c| (c, -flowtime(c) - gamma * m as f64 * c as f64 * dist.mean_min(c))).collect();
    let best = utilities.iter().max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0))).map_or(1, |u| u.0);
    (best, flowtime(best) / flowtime(1))
}

/// P2 for several jobs `(m_i, F_i)` sharing `free` machines (SCA §IV-A, Eq. 17–19): dual
/// subgradient on ν with step `eta`, exact integer inner maximisation, then repair and local
/// search. Returns each job's copy count.
pub fn solve_p2(jobs: &[(u32, Pareto)], free: u32, r: u32, gamma: f64, eta: f64) -> Vec<u32> {
    let table: Vec<Vec<f64>> =
        jobs.iter().map(|(m, d)| (1..=r).map(|c| utility(d, *m, c, gamma)).collect()).collect();
    let u = |i: usize, c: u32| table[i][c as usize - 1];
    let used = |cs: &[u32]| cs.iter().zip(jobs).map(|(c, (m, _))| c * m).sum::<u32>();
    let mut nu = 0.1;
    let mut cs = vec![1u32; jobs.len()];
    for _ in 0..2000 {
        let next: Vec<u32> = (0..jobs.len())
            .map(|i| {
                let m = jobs[i].0 as f64;
                (1..=r).max_by(|a, b| (u(i, *a) - nu * m * *a as f64).total_cmp(&(u(i, *b) - nu * m * *b as f64))).unwrap()
            })
            .collect();
        let step = used(&next) as f64 - free as f64;
        nu = (nu + eta * step).max(0.0);
        let settled = next == cs;
        cs = next;
        if settled && step <= 0.0 {
            break;
        }
    }
    // Repair: drop copies where that costs least utility per machine freed.
    while used(&cs) > free && cs.iter().any(|c| *c > 1) {
        let i = (0..jobs.len())
            .filter(|i| cs[*i] > 1)
            .min_by(|a, b| {
                let loss = |i: usize| (u(i, cs[i]) - u(i, cs[i] - 1)) / jobs[i].0 as f64;
                loss(*a).total_cmp(&loss(*b))
            })
            .unwrap();
        cs[i] -= 1;
    }
    // Local search: single-job moves that raise total utility and stay feasible.
    loop {
        let mut best: Option<(usize, u32, f64)> = None;
        for i in 0..jobs.len() {
            for c in 1..=r {
                let mut trial = cs.clone();
                trial[i] = c;
                let gain = u(i, c) - u(i, cs[i]);
                if gain > 1e-12 && used(&trial) <= free && best.is_none_or(|b| gain > b.2) {
                    best = Some((i, c, gain));
                }
            }
        }
        match best {
            Some((i, c, _)) => cs[i] = c,
            None => break,
        }
    }
    cs
}

pub struct Sca {
    cfg: ScaConfig,
    decided: TaskSet,
    /// The last plan per task kind and the inputs it was solved for (tasks left, machines, tail
    /// index in hundredths): P2 is solved again only when one of them changes.
    last: [Option<((u32, u32, u32), (u32, Reason))>; 2],
    tails: [TailMemo; 2],
}

impl Sca {
    pub fn new(config: &Config) -> Sca {
        Sca { cfg: config.sca.clone(), decided: TaskSet::default(), last: [None, None], tails: Default::default() }
    }

    /// The job's task-time tail: fitted from the finished tasks' durations (`samples`) once there
    /// are enough, else given.
    pub(crate) fn tail(cfg: &ScaConfig, samples: &[f64]) -> Pareto {
        let fitted = (samples.len() as u32 >= cfg.fit_min_samples).then(|| Pareto::fit(samples)).flatten();
        Sca::tail_of(cfg, fitted)
    }

    /// `tail` from the fit to the samples, if there are enough for one and it succeeded.
    fn tail_of(cfg: &ScaConfig, fitted: Option<Pareto>) -> Pareto {
        match fitted {
            // Clamp to where the model's expectations are finite and the fit is plausible.
            Some(p) => Pareto::new(p.alpha.clamp(1.05, 50.0), 1.0),
            None => Pareto::new(cfg.pareto_alpha, 1.0),
        }
    }

    /// The copy count maximising −E[flowtime] − γ·E[resource] for `m` tasks on `free` machines
    /// (P2 for one job; ESE's Eq. 21), with the reason that names `policy`; `dist` is the tail
    /// fitted to the kind's finished tasks (`Sca::tail`, `TailMemo::tail`).
    pub(crate) fn plan(cfg: &ScaConfig, dist: Pareto, m: u32, free: u32, policy: &'static str) -> (u32, Reason) {
        let (c, ratio) = best_clone_count(&dist, m, free, cfg.max_copies, cfg.gamma);
        let reason = Reason::Clone {
            policy,
            copies_per_task: c,
            tasks: m,
            free_slots: free,
            alpha: dist.alpha,
            gamma: cfg.gamma,
            expected_flowtime_ratio: ratio,
        };
        (c, reason)
    }
}

/// What the policies derive from a phase's finished durations — the tail fitted to them, the
/// cutoff solved for that tail, their mean — kept up to date as the list grows, from the sums
/// the job carries on over it (`JobState::finished_duration_sums`, `stats::FitSums`): worked out
/// again only when more have finished.
pub(crate) struct TailMemo {
    /// How many durations the figures below were derived from; None before any were.
    len: Option<usize>,
    tail: Pareto,
    cutoff: Option<f64>,
    mean_s: Option<f64>,
}

impl Default for TailMemo {
    fn default() -> TailMemo {
        TailMemo { len: None, tail: Pareto::new(1.0, 1.0), cutoff: None, mean_s: None }
    }
}

impl TailMemo {
    fn refresh(&mut self, sca: &ScaConfig, sums: FitSums) {
        if self.len == Some(sums.len) {
            return;
        }
        // `Pareto::fit`'s figures: its μ̂ and its sum of logarithms; and the plain sum for the mean.
        let (n, mu) = (sums.len, sums.mu);
        let fitted = if (n as u32) < sca.fit_min_samples || !mu.is_finite() || n < 2 || sums.logs <= 0.0 {
            None
        } else {
            Some(Pareto { alpha: n as f64 / sums.logs, mu })
        };
        self.tail = Sca::tail_of(sca, fitted);
        self.mean_s = (n > 0).then(|| sums.sum / n as f64);
        self.cutoff = None;
        self.len = Some(n);
    }

    /// `Sca::tail(sca, durations)` of the durations `sums` covers.
    pub(crate) fn tail(&mut self, sca: &ScaConfig, sums: FitSums) -> Pareto {
        self.refresh(sca, sums);
        self.tail
    }

    /// `Sca::tail(sca, durations).alpha`.
    pub(crate) fn alpha(&mut self, sca: &ScaConfig, sums: FitSums) -> f64 {
        self.tail(sca, sums).alpha
    }

    /// The durations' mean in seconds; None when there are none.
    pub(crate) fn mean_s(&mut self, sca: &ScaConfig, sums: FitSums) -> Option<f64> {
        self.refresh(sca, sums);
        self.mean_s
    }

    /// `solve` of the α [`TailMemo::alpha`] gave last, solved once per fit.
    pub(crate) fn cutoff(&mut self, solve: impl FnOnce(f64) -> f64) -> f64 {
        let alpha = self.tail.alpha;
        *self.cutoff.get_or_insert_with(|| solve(alpha))
    }
}

impl Policy for Sca {
    fn name(&self) -> &'static str {
        "sca"
    }

    fn fits_tails(&self) -> bool {
        true
    }

    fn decide(&mut self, _now: Millis, job: &JobState) -> Vec<Action> {
        let mut free = free_slots(job);
        let mut actions = Vec::new();
        // The kinds in turn, maps first, each planned once when it has newly started tasks, with
        // the machines free then.
        for kind in TaskKind::ALL {
            if newly_started_of(job, kind, &self.decided).next().is_none() {
                continue;
            }
            // Reduces only with `rein.sca.clone-reduces`: a reduce clone fetches every map's
            // output again (Dolly §4's intermediate-data contention), as for auto.
            let plan = (kind == TaskKind::Map || self.cfg.clone_reduces).then(|| self.plan_kind(job, kind, free));
            let Some((c, reason)) = plan.filter(|(c, _)| *c > 1 && free > 0) else {
                // No clones for the kind's tasks: decided a word of 64 at a time (a first scan of
                // a big job has 100K, and P2 gives a big job one copy each).
                decide_all_newly_started(job, kind, &mut self.decided);
                continue;
            };
            let fresh: Vec<TaskId> = newly_started_of(job, kind, &self.decided).collect();
            self.decided.extend(fresh.iter().copied());
            actions.extend(clone_started(job, &fresh, &mut free, |_, _| Some((c, reason.clone()))));
        }
        actions
    }
}

impl Sca {
    /// P2 solved afresh as tasks start: with the tasks left and the machines free for the kind
    /// (`free` now and those its running tasks hold), and the tail index fitted from the tasks
    /// finished so far (the configured prior until enough have), so that the count follows the
    /// distribution as it is learned. The copies per task and the reason; the last plan is
    /// kept and given again while its inputs stay the same.
    fn plan_kind(&mut self, job: &JobState, kind: TaskKind, free: u32) -> (u32, Reason) {
        let n_free = free + job.running_task_count(kind);
        let m = (job.tasks(kind).len() - job.first_success_count(kind)) as u32;
        let dist = self.tails[kind as usize].tail(&self.cfg, job.finished_duration_sums(kind));
        let key = (m, n_free, (dist.alpha * 100.0).round() as u32);
        match &self.last[kind as usize] {
            Some((k, plan)) if *k == key => plan.clone(),
            _ => {
                // Algorithm 1, line 6 clones only while Σ m < N; P2's m·c ≤ N gives c = 1 otherwise.
                let plan = Sca::plan(&self.cfg, dist, m, n_free, "SCA §IV (P2)");
                self.last[kind as usize] = Some((key, plan.clone()));
                plan
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SCA §IV-A, Fig. 1: four jobs of 10, 20, 5 and 10 tasks on 100 machines, Pareto α = 2 with
    /// μ = 1, 2, 1, 2, r = 8, step sizes 0.2 (η1). The dual method must land on P2's optimum,
    /// checked here against all 8⁴ assignments.
    #[test]
    fn figure_1_four_jobs_reach_the_p2_optimum() {
        let jobs = [
            (10, Pareto::new(2.0, 1.0)),
            (20, Pareto::new(2.0, 2.0)),
            (5, Pareto::new(2.0, 1.0)),
            (10, Pareto::new(2.0, 2.0)),
        ];
        let (free, r, gamma) = (100, 8, 0.05);
        let cs = solve_p2(&jobs, free, r, gamma, 0.2);
        let total = |cs: &[u32]| -> f64 { cs.iter().zip(&jobs).map(|(c, (m, d))| utility(d, *m, *c, gamma)).sum() };
        let used = |cs: &[u32]| -> u32 { cs.iter().zip(&jobs).map(|(c, (m, _))| c * m).sum() };
        assert!(used(&cs) <= free, "{cs:?} uses {}", used(&cs));
        assert!(cs.iter().all(|c| (1..=r).contains(c)));
        let mut best = (f64::NEG_INFINITY, vec![]);
        for a in 1..=r {
            for b in 1..=r {
                for c in 1..=r {
                    for d in 1..=r {
                        let x = [a, b, c, d];
                        if used(&x) <= free && total(&x) > best.0 {
                            best = (total(&x), x.to_vec());
                        }
                    }
                }
            }
        }
        assert!((total(&cs) - best.0).abs() < 1e-9, "dual {cs:?} = {} vs optimum {:?} = {}", total(&cs), best.1, best.0);
        // Every job is cloned: the cluster is lightly loaded (45 tasks, 100 machines).
        assert!(cs.iter().all(|c| *c >= 2), "{cs:?}");
    }

    /// The tail memo's α and mean are those fitted and summed afresh as the durations grow.
    #[test]
    fn the_tail_memo_follows_the_durations() {
        let cfg = ScaConfig::default();
        let mut memo = TailMemo::default();
        let mut sums = FitSums::default();
        let mut run_ms: Vec<u32> = Vec::new();
        let mut next = crate::test_below();
        for i in 0..400 {
            sums.carry(&run_ms);
            let durations: Vec<f64> = run_ms.iter().map(|&ms| crate::stats::secs_of_ms(ms)).collect();
            assert_eq!(memo.alpha(&cfg, sums).to_bits(), Sca::tail(&cfg, &durations).alpha.to_bits(), "after {i}");
            let mean = (!durations.is_empty()).then(|| durations.iter().sum::<f64>() / durations.len() as f64);
            assert_eq!(memo.mean_s(&cfg, sums).map(f64::to_bits), mean.map(f64::to_bits), "after {i}");
            // One to three more at a time, now and then a new least one (the fit's μ̂ moves).
            for _ in 0..=next(2) {
                let least = run_ms.iter().copied().fold(50_000, u32::min);
                run_ms.push(if next(15) == 0 { (least * 9 / 10).max(1) } else { 1_000 + next(4_000) as u32 * 13 });
            }
        }
    }

    #[test]
    fn one_job_clones_more_when_resources_are_cheap_and_never_beyond_the_machines() {
        let d = Pareto::new(2.0, 1.0);
        let (cheap, _) = best_clone_count(&d, 10, 100, 8, 0.0);
        let (dear, _) = best_clone_count(&d, 10, 100, 8, 1.0);
        assert!(cheap > dear, "{cheap} vs {dear}");
        assert_eq!(cheap, 8, "with free resource every extra copy helps, up to r");
        assert_eq!(best_clone_count(&d, 10, 25, 8, 0.0).0, 2, "⌊25/10⌋ copies fit");
        assert_eq!(best_clone_count(&d, 10, 5, 8, 0.0).0, 1);
    }
}
