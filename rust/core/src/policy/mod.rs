//! Policies: each reads the job state at a time and returns the actions it wants.

mod auto;
mod baselines;
mod dolly;
mod ese;
mod grass;
mod hadoop;
mod late;
mod mantri;
mod sca;
mod sigma_table;
mod slow_node;

pub use auto::{cloning_cutoff, Auto};
use auto::Regime;
pub use baselines::Baseline;
pub use dolly::{job_level_clones, task_level_clones, Dolly, OutlierLearner};
pub use ese::Ese;
pub use grass::{grass_allows, startup_cost_s, GrassRule};
pub use hadoop::Hadoop;
pub use late::Late;
pub use mantri::Mantri;
pub use sca::{best_clone_count, solve_p2, Sca};

use crate::action::{Action, Reason, SharedNodes};
use crate::config::{Config, PolicyName};
use crate::model::{prefetch, prefetch_lines, JobState, Millis, NodeIdx, NodeName, Task, TaskBits, TaskId, TaskKind};
use crate::stats::{from_order_key, order_key};
use std::cell::{Cell, RefCell};
use slow_node::SlowNodeReduces;

pub trait Policy: Send {
    fn name(&self) -> &'static str;

    /// The actions this policy wants at `now`. Policies propose actions only for tasks that are
    /// still running; the engine drops any that name a finished task.
    fn decide(&mut self, now: Millis, job: &JobState) -> Vec<Action>;

    /// Whether the engine's veto loop watches where this policy's copies land.
    fn vetoes_copies(&self) -> bool {
        true
    }

    /// Whether the policy builds GRASS's start-up bar (`grass::Silence::started_or_late`,
    /// `Silence::late_to_start`) at most scans of a wave, judging every silent attempt by it (Mantri,
    /// ESE, `auto`, and the pairs with any of them): the job then keeps its running attempts' start
    /// times sorted from the start (`JobState::keep_running_starts`). LATE asks it only of slow
    /// candidates past its minimum run time, and reads the attempts when it does.
    fn reads_startup_bar(&self) -> bool {
        false
    }

    /// Whether the policy fits a tail to the finished durations at every scan (SCA, ESE, `auto`,
    /// and the pairs with any of them): the job then carries the fit's sums on from its first
    /// success (`JobState::keep_duration_sums`).
    fn fits_tails(&self) -> bool {
        false
    }

    /// Per-machine outlier probabilities learned before this job (Dolly §3.2), keyed by node name.
    fn set_node_outlier_priors(&mut self, _priors: std::sync::Arc<std::collections::HashMap<String, f64>>) {}

    /// Per machine, the job's finished attempts and how many were outliers (Dolly §3.2), for a
    /// caller that learns p_m across jobs; empty for policies that learn none.
    fn node_outlier_observations(&mut self, _now: Millis, _job: &JobState) -> Vec<(NodeName, u32, u32)> {
        Vec::new()
    }
}

/// The policy that never acts.
pub struct NoSpeculation;

impl Policy for NoSpeculation {
    fn name(&self) -> &'static str {
        "none"
    }

    fn decide(&mut self, _now: Millis, _job: &JobState) -> Vec<Action> {
        Vec::new()
    }
}

pub fn build(config: &Config) -> Box<dyn Policy> {
    match config.policy {
        PolicyName::Auto => Box::new(Auto::new(config)),
        PolicyName::None => Box::new(NoSpeculation),
        PolicyName::Late => Box::new(Late::new(config)),
        PolicyName::Mantri => Box::new(Mantri::new(config)),
        PolicyName::Dolly => WithReactive::pair(Box::new(Dolly::new(config)), config.dolly.reactive, config),
        PolicyName::Sca => WithReactive::pair(Box::new(Sca::new(config)), config.sca.reactive, config),
        PolicyName::Ese => Box::new(Ese::new(config)),
        PolicyName::Hadoop => Box::new(Hadoop::new(config)),
        PolicyName::MapReduce => Box::new(Baseline::mapreduce(config)),
        PolicyName::Dryad => Box::new(Baseline::dryad(config)),
    }
}

/// A cloning policy with a detecting one beside it, for the tasks the clones left alone: Dolly
/// with LATE or Mantri (Dolly §4: proactive cloning co-exists with reactive mitigation; §3.3
/// measured Dolly on a cluster that ran LATE), SCA with ESE (Xu & Lau §III-B: above the cutoff
/// only detection helps, and §V's ESE is theirs). The cloning policy decides first; the detecting
/// one's copies and restarts follow for the tasks not cloned in this decision (a task with a clone
/// running is already "being speculated" for LATE, ESE and Mantri alike). The detecting policy
/// makes no clones of its own (ESE's small-job step is off in this part): cloning is the first
/// policy's part.
pub struct WithReactive {
    proactive: Box<dyn Policy>,
    reactive: Box<dyn Policy>,
    /// `rein.slow-node.copy-reduces`: reduces on the nodes the detecting policy copied
    /// stragglers off are copied at once, under light load.
    slow_node: Option<SlowNodeReduces>,
    /// The light/heavy cutoff for that, as auto's (`rein.auto.cutoff`, else solved for the
    /// reduces' fitted tail), and SCA's fitting parameters.
    cutoff: Option<f64>,
    sca: crate::config::ScaConfig,
}

impl WithReactive {
    /// `proactive` alone when `reactive` is None.
    pub fn pair(proactive: Box<dyn Policy>, reactive: Option<PolicyName>, config: &Config) -> Box<dyn Policy> {
        let reactive: Box<dyn Policy> = match reactive {
            None => return proactive,
            Some(PolicyName::Mantri) => Box::new(Mantri::new(config)),
            Some(PolicyName::Ese) => Box::new(Ese::detecting(config)),
            Some(_) => Box::new(Late::new(config)),
        };
        let slow_node = config.slow_node_copy_reduces.then(SlowNodeReduces::default);
        Box::new(WithReactive { proactive, reactive, slow_node, cutoff: config.auto_cutoff, sca: config.sca.clone() })
    }
}

impl Policy for WithReactive {
    fn name(&self) -> &'static str {
        self.proactive.name()
    }

    fn decide(&mut self, now: Millis, job: &JobState) -> Vec<Action> {
        let mut actions = self.proactive.decide(now, job);
        // Every running task cloned just now (a small job's first scan): nothing is left to judge.
        // A cloning policy (Dolly, SCA) makes clones only, one action per task, so the count
        // tells it without reading the actions (a first scan can clone 100K tasks).
        debug_assert!(actions.iter().all(|a| matches!(a, Action::Clone { .. })), "a cloning policy made another action");
        if actions.len() >= job.running_task_total() {
            return actions;
        }
        let mut detected = self.reactive.decide(now, job);
        debug_assert!(!detected.iter().any(|a| matches!(a, Action::Clone { .. })), "a detecting policy cloned");
        // Detection's actions for the tasks cloned just now are dropped. Usually nothing was
        // cloned (SCA's P2 often gives one copy per task): then the detecting policy's list is
        // the answer, neither read nor copied (it can hold 100K actions).
        let cloned = (!actions.is_empty()).then(|| {
            let mut cloned = TaskSet::default();
            cloned.extend(actions.iter().map(Action::task));
            cloned
        });
        if let Some(cloned) = &cloned {
            detected.retain(|a| !cloned.contains(&a.task()));
        }
        if let Some(slow_node) = self.slow_node.as_mut() {
            // Under light load only, as auto (Xu & Lau §III-B: below ω^U an extra copy lowers the
            // delay; above it a copy takes a slot a waiting task could use).
            let (cutoff, sca) = (self.cutoff, &self.sca);
            let light = || Regime::of(job, TaskKind::Reduce, &job.finished_durations(TaskKind::Reduce), cutoff, sca).light;
            let free = free_slots(job).saturating_sub(actions.len() as u32);
            let moved = slow_node.after_detection(job, &actions, &detected, free, light, |r| r);
            detected.extend(moved);
        }
        if actions.is_empty() {
            return detected;
        }
        actions.append(&mut detected);
        actions
    }

    fn reads_startup_bar(&self) -> bool {
        self.proactive.reads_startup_bar() || self.reactive.reads_startup_bar()
    }

    fn fits_tails(&self) -> bool {
        self.proactive.fits_tails() || self.reactive.fits_tails()
    }

    fn set_node_outlier_priors(&mut self, priors: std::sync::Arc<std::collections::HashMap<String, f64>>) {
        self.proactive.set_node_outlier_priors(priors);
    }

    fn node_outlier_observations(&mut self, now: Millis, job: &JobState) -> Vec<(NodeName, u32, u32)> {
        self.proactive.node_outlier_observations(now, job)
    }
}

/// The avoid list every copy of one decision shares: `nodes` and the job's lost nodes, by name,
/// sorted and without repeats. Each node is marked once, and the marked ones are read off the
/// job's nodes in name order: the copies of one decision (100K at a first scan) share a few nodes.
pub(crate) fn shared_avoid_list(job: &JobState, nodes: impl Iterator<Item = NodeIdx>) -> SharedNodes {
    let mut marked = vec![false; job.nodes().len()];
    for n in nodes {
        marked[n.0 as usize] = true;
    }
    let names = job.nodes_by_name().filter(|(i, n)| marked[i.0 as usize] || n.lost).map(|(_, n)| n.name).collect();
    std::sync::Arc::new(names)
}

/// Slots free for copies now: what the caller reported, else the job's slots less what this job
/// runs or waits for (copies pending once, whether or not Hadoop has reported their requests)
/// and what other jobs are known to hold.
pub(crate) fn free_slots(job: &JobState) -> u32 {
    job.free_slots.unwrap_or_else(|| {
        let used = job.running() as i64
            + job.copies_pending() as i64
            + job.containers_wanted_beyond_copies() as i64
            + job.busy_elsewhere as i64;
        (job.slots() as i64 - used).max(0) as u32
    })
}

/// Slots for copies of stragglers in this decision: the free slots, and no more than
/// `rein.max-copies-per-scan`. The policies rank their candidates as ever and copy the first this
/// many; a late task left over is judged again at the next scan. Clones made as tasks start are
/// planned over the free slots (`free_slots`), not this.
pub(crate) fn copy_room(job: &JobState) -> u32 {
    free_slots(job).min(copies_per_scan(job))
}

/// `rein.max-copies-per-scan`, `u32::MAX` for no bound.
pub(crate) fn copies_per_scan(job: &JobState) -> u32 {
    job.max_copies_per_scan.unwrap_or(u32::MAX)
}

/// A set of the job's tasks: a bit per task, by kind and index (`model::TaskBits`).
#[derive(Default)]
pub(crate) struct TaskSet([TaskBits; 2]);

impl TaskSet {
    pub(crate) fn contains(&self, id: &TaskId) -> bool {
        self.0[id.kind as usize].contains(id.index)
    }

    pub(crate) fn insert(&mut self, id: TaskId) {
        self.0[id.kind as usize].insert(id.index);
    }

    /// Adds every task of `other`, a word at a time.
    pub(crate) fn absorb(&mut self, other: TaskSet) {
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            theirs.words().iter().enumerate().filter(|(_, bits)| **bits != 0).for_each(|(w, bits)| mine.add_word(w, *bits));
        }
    }
}

/// Tasks come in runs of one kind and one word (a first scan's 100K in task order): each run's
/// bits are gathered and added to its word once.
impl Extend<TaskId> for TaskSet {
    fn extend<I: IntoIterator<Item = TaskId>>(&mut self, ids: I) {
        let mut run: Option<(TaskKind, usize, u64)> = None;
        for id in ids {
            let (kind, w, bit) = (id.kind, id.index as usize / 64, 1u64 << (id.index % 64));
            match run.as_mut() {
                Some((k, at, bits)) if *k == kind && *at == w => *bits |= bit,
                _ => {
                    if let Some((k, at, bits)) = run.replace((kind, w, bit)) {
                        self.0[k as usize].add_word(at, bits);
                    }
                }
            }
        }
        if let Some((k, at, bits)) = run {
            self.0[k as usize].add_word(at, bits);
        }
    }
}

/// Tasks with a running attempt, not succeeded, about which a cloning policy has not decided yet
/// (its tasks as their first attempt starts), in task order; found from the job's bitsets and
/// the decided bits a word of 64 tasks at a time, without reading the tasks: a scan of a big job
/// finds a few thousand among 100K running, most of them decided long since.
pub(crate) fn newly_started<'a>(job: &'a JobState, decided: &'a TaskSet) -> impl Iterator<Item = TaskId> + 'a {
    TaskKind::ALL.into_iter().flat_map(move |kind| newly_started_of(job, kind, decided))
}

/// [`newly_started`] of one kind.
pub(crate) fn newly_started_of<'a>(job: &'a JobState, kind: TaskKind, decided: &'a TaskSet) -> impl Iterator<Item = TaskId> + 'a {
    job.running_unsucceeded_but(kind, decided.0[kind as usize].words()).map(move |index| TaskId { kind, index })
}

/// How many tasks [`newly_started_of`] would give, counted a word of 64 at a time.
pub(crate) fn newly_started_count(job: &JobState, kind: TaskKind, decided: &TaskSet) -> usize {
    job.running_unsucceeded_words_but(kind, decided.0[kind as usize].words()).map(|(_, bits)| bits.count_ones() as usize).sum()
}

/// [`newly_started`] of one kind, added to `decided` a word of 64 tasks at a time: for a policy
/// that decides them all alike without looking at them (a first scan of a big job has 100K).
pub(crate) fn decide_all_newly_started(job: &JobState, kind: TaskKind, decided: &mut TaskSet) {
    // Gathered first: the set's own words are what the walk passes over.
    let words: Vec<(usize, u64)> =
        job.running_unsucceeded_words_but(kind, decided.0[kind as usize].words()).filter(|(_, bits)| *bits != 0).collect();
    for (w, bits) in words {
        decided.0[kind as usize].add_word(w, bits);
    }
}

/// How many actions ahead of its end [`push_ahead`] asks for a list's room.
const PUSH_AHEAD: usize = 24;

/// `list.push(action)`, asking first for the room [`PUSH_AHEAD`] actions further on, when the
/// list has it: a decision that clones 100K newly started tasks writes 8.8 MB of actions that
/// are in no cache, and its stores waited on each line in turn. Every line of that room is asked
/// for, to be written (an 88-byte action spans two lines; asking for its first alone left one
/// line in four to the stores), and the action is written straight into the list's room, not
/// through `Vec::push` with its path that grows the list: measured, that write took about a
/// tenth off Dolly's first decision at 100K. Public for the benchmarks (`profile_decide`'s
/// floor).
#[inline]
pub fn push_ahead(list: &mut Vec<Action>, action: Action) {
    let slot = next_slot(list);
    // SAFETY: `next_slot` gave the room past the list's end; it is written, then counted in.
    unsafe {
        slot.write(action);
        list.set_len(list.len() + 1);
    }
}

/// An action that owns nothing ([`Action::owns_nothing`]), for [`push_ahead_like`] to copy.
pub(crate) struct Template(Action);

impl Template {
    /// None for an action that owns something: its bytes copied would share what it owns.
    pub(crate) fn new(action: Action) -> Option<Template> {
        action.owns_nothing().then_some(Template(action))
    }
}

/// [`push_ahead`] for the many actions of one decision that differ in a few numbers (Dolly's
/// clones: the task, the copies, p_t and the utilisation): the list's next slot is written as a
/// copy of `like`'s bytes, and `fill` then sets what differs in place. An action built whole
/// and then pushed was put together on the stack a field at a time and copied out in wider
/// pieces than it was written in, and each of those loads waited for the stores it spanned to
/// land (measured: half of the samples of the clone loop in Dolly's first decision at 100K).
#[inline]
pub(crate) fn push_ahead_like(list: &mut Vec<Action>, like: &Template, fill: impl FnOnce(&mut Action)) {
    let slot = next_slot(list);
    // SAFETY: `next_slot` gave the room past the list's end. `like` owns nothing
    // (`Template::new`), so a copy of its bytes is an action of its own, which the list then
    // counts in and owns.
    let slot = unsafe {
        std::ptr::copy_nonoverlapping(&like.0, slot, 1);
        list.set_len(list.len() + 1);
        &mut *slot
    };
    fill(slot);
}

/// The room just past the list's end, made when the list has none, with the lines
/// [`PUSH_AHEAD`] actions further on asked for to be written.
#[inline(always)]
fn next_slot(list: &mut Vec<Action>) -> *mut Action {
    if list.len() == list.capacity() {
        grow_by_one(list);
    }
    if let Some(room) = list.spare_capacity_mut().get(PUSH_AHEAD) {
        crate::model::prefetch_lines_for_write(room);
    }
    list.spare_capacity_mut()[0].as_mut_ptr()
}

/// Room for one more action, out of the pushes' way.
#[cold]
#[inline(never)]
fn grow_by_one(list: &mut Vec<Action>) {
    list.reserve(1);
}

/// Clones each newly started task by its kind's copy count, within the free slots. `plan(kind, n)`
/// gives a kind's copies per task and reason, with n the machines free for that kind (free now
/// plus those its started tasks hold), or None for no clones; it is asked once per kind.
pub(crate) fn clone_started(
    job: &JobState,
    fresh: &[TaskId],
    free: &mut u32,
    mut plan: impl FnMut(TaskKind, u32) -> Option<(u32, Reason)>,
) -> Vec<Action> {
    let mut plans: [Option<Option<(u32, Reason)>>; 2] = [None, None];
    let mut actions = Vec::new();
    for &task in fresh {
        let free_now = *free;
        let chosen = plans[task.kind as usize].get_or_insert_with(|| {
            let started = job.running_task_count(task.kind);
            plan(task.kind, free_now + started as u32)
        });
        let Some((c, reason)) = chosen else { continue };
        let copies = c.saturating_sub(1).min(*free);
        if copies > 0 {
            *free -= copies;
            actions.push(Action::Clone { task, copies, reason: reason.clone() });
        }
    }
    actions
}

/// The order in which to take candidates gathered in task order: largest `key` first (by
/// `f64::total_cmp`), ties in task (that is, gathering) order. A stable radix sort of small
/// (key, index) pairs: linear in the candidates, where a decision can rank 100K of them. Public
/// for the benchmarks (`rein-bench`'s `decision_floor`), which rank as the policies do.
pub fn rank_descending(keys: impl Iterator<Item = f64>) -> Ranking {
    rank_descending_top(keys, usize::MAX)
}

/// The first `k` of [`rank_descending`]'s order. Only the buckets of the radix sort that hold
/// those `k` are sorted (`radix_sort_first`); the order is total (key, then index), so this is
/// exactly the prefix of the full sort.
pub(crate) fn rank_descending_top(keys: impl Iterator<Item = f64>, k: usize) -> Ranking {
    let (mut ranking, _) = rank_descending_with_run(RankKeys::of(keys), k);
    ranking.0.truncate(k);
    ranking
}

/// The (key, index) pairs a ranking sorts, in index order, and the bits in which the keys differ,
/// gathered as the pairs are made rather than in a pass of the sort's own.
struct RankKeys {
    pairs: Vec<(u64, u32)>,
    any: u64,
    all: u64,
}

impl RankKeys {
    fn of(keys: impl Iterator<Item = f64>) -> RankKeys {
        let mut pairs = Vec::with_capacity(keys.size_hint().0);
        // In locals, not the struct's fields: those were kept in memory, each step waiting on the
        // last one's store.
        let (mut any, mut all) = (0u64, !0u64);
        for (i, key) in keys.enumerate() {
            let key = !order_key(key);
            (any, all) = (any | key, all & key);
            pairs.push((key, i as u32));
        }
        RankKeys { pairs, any, all }
    }
}

/// [`rank_descending_top`] with every item of the key at place `k` - 1 after the first `k`: the
/// pairs hold the first `k` places in order, then the rest of that key's run in index order; the
/// second figure is where that run begins.
fn rank_descending_with_run(keys: RankKeys, k: usize) -> (Ranking, usize) {
    let RankKeys { pairs: mut items, any, all } = keys;
    let k = k.min(items.len());
    let end = radix_sort_first(&mut items, k, any ^ all, &mut Vec::new());
    let Some(&(last, _)) = items[..k].last() else { return (Ranking(Vec::new()), 0) };
    let run = items[..k].partition_point(|&(key, _)| key < last);
    let run_end = k + items[k..end].partition_point(|&(key, _)| key == last);
    items.truncate(run_end);
    (Ranking(items), run)
}

/// The first `k` of `items` in the order of [`rank_descending`] by `key`, with equal keys taken by
/// `tie` (least first), then by index. The radix sort ranks by
/// key alone, and leaves the whole run of the key at place `k` - 1 right after the first `k`
/// places (those past place `k` compete for its places); then only the runs of equal keys among
/// the first `k` places, that last one with all its items, are sorted by `tie`. Where keys rarely
/// repeat, a sort of every item by `tie` before the ranking was most of the work (`auto`'s
/// detection copies among 100K candidates); the last run was gathered in a pass over them.
pub(crate) fn rank_descending_top_tied<T, K: Ord>(
    items: &[T],
    key: impl Fn(&T) -> f64,
    tie: impl Fn(&T) -> K,
    k: usize,
) -> Ranking {
    let (mut ranking, last_run) = rank_descending_with_run(RankKeys::of(items.iter().map(key)), k);
    let pairs = &mut ranking.0;
    // A run is in index order: often in order by `tie` as well (one node's tasks, or tasks with
    // equal ties), and then left as it is.
    let by_tie = |run: &mut [(u64, u32)]| {
        let order = |&(_, i): &(u64, u32)| (tie(&items[i as usize]), i);
        if !run.is_sorted_by_key(order) {
            run.sort_by_cached_key(order);
        }
    };
    for run in pairs[..last_run].chunk_by_mut(|a, b| a.0 == b.0) {
        by_tie(run);
    }
    by_tie(&mut pairs[last_run..]);
    pairs.truncate(k);
    ranking
}

/// Candidates' places in the order a ranking takes them, read from its sorted pairs rather than
/// copied into a list of their own.
pub struct Ranking(Vec<(u64, u32)>);

/// Tasks a walk over a kind's running tasks not succeeded takes at a time (`walk_running`).
const WALK_BATCH: usize = 16;

/// After this many tasks in a row that `walk_running`'s `pass` did not pass over, its shortcut is
/// tried on one task in this many, until a task is passed over with it tried.
const SHORTCUT_RUN: u32 = 64;

#[cfg(test)]
thread_local! {
    /// Whether a walk tries `pass`'s shortcut on every task (Some(true)) or on none, for tests.
    static SHORTCUT_FORCED: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// Whether a test has the walk try `pass`'s shortcut on every task or on none.
#[cfg(test)]
fn shortcut_forced() -> Option<bool> {
    SHORTCUT_FORCED.get()
}

/// Outside tests the walk chooses.
#[cfg(not(test))]
fn shortcut_forced() -> Option<bool> {
    None
}

#[cfg(test)]
thread_local! {
    /// Whether a test has every [`TopFloor`] keep everything.
    static FLOOR_OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[cfg(test)]
fn floor_off() -> bool {
    FLOOR_OFF.get()
}

#[cfg(not(test))]
fn floor_off() -> bool {
    false
}

/// Walks a kind's running tasks not succeeded, in index order, and appends to `out` what each
/// yields, in that order. `pass` passes over a task from what the job keeps beside the tasks
/// (bookings, briefs) when it can tell that the task yields nothing. Its second argument says
/// whether to try its shortcut too: a check that passes over only tasks that `look` and `read`
/// would yield nothing for (an estimate certainly short of a bar), to save their work. It is
/// tried on every task while it passes some over, as on a healthy job. On a job where all are late
/// it would fail on each, a bound worked out for nothing before the estimate (0.2–0.3 ms of ESE's
/// and `auto`'s first decision at 100K): after [`SHORTCUT_RUN`] tasks in a row not passed over
/// it is tried on one in that many. `look` judges each other task
/// from the same: it pushes the task's yield, if any, onto the list it is given, or returns true,
/// pushing nothing, when the task's record must be read; `read` then judges from the record.
/// Both run over a batch of tasks first, the records of the tasks left to read are asked for,
/// then `read` reads them. A large job's records do not fit the caches and lie at irregular gaps
/// the processor does not foresee: read one after another each waited on its first read (half of
/// a Mantri scan at 100K running tasks among 150K); on a healthy job most tasks are passed over,
/// and on one where all are late most are judged from their briefs, without their records read.
/// What `look` yields goes to `out` at once, copied no further, unless a task before it in the
/// batch is left to read. `after` is shown `out` after each batch (every yield of the batch in
/// it): a walk whose yields are ranked for a few places only raises its [`TopFloor`].
pub(crate) fn walk_running<'a, T>(
    job: &'a JobState,
    kind: TaskKind,
    mut pass: impl FnMut(TaskId, bool) -> bool,
    mut look: impl FnMut(TaskId, &mut Vec<T>) -> bool,
    mut read: impl FnMut(&'a Task) -> Option<T>,
    out: &mut Vec<T>,
    mut after: impl FnMut(&[T]),
) {
    let tasks = job.tasks(kind);
    // The tasks of a batch from its first left to read on that yield or are to be read, in order,
    // each with whether it is to be read (else `look` yielded for it, into `held`).
    let mut later: Vec<(u32, bool)> = Vec::with_capacity(WALK_BATCH);
    let mut held: Vec<T> = Vec::with_capacity(WALK_BATCH);
    let mut indices = job.running_unsucceeded(kind).peekable();
    // Tasks in a row not passed over since one was with the shortcut tried.
    let mut missed = 0u32;
    while indices.peek().is_some() {
        let gathered = out.len();
        for index in indices.by_ref().take(WALK_BATCH) {
            let id = TaskId { kind, index };
            let shortcut = shortcut_forced().unwrap_or(missed < SHORTCUT_RUN || missed % SHORTCUT_RUN == 0);
            if pass(id, shortcut) {
                if shortcut {
                    missed = 0;
                }
                continue;
            }
            missed = missed.wrapping_add(1);
            let holding = !later.is_empty();
            let to = if holding { &mut held } else { &mut *out };
            let before = to.len();
            let to_read = look(id, to);
            debug_assert!(!to_read || to.len() == before, "a look that yields asks for no record");
            if to_read {
                prefetch_lines(&tasks[index as usize]);
                later.push((index, true));
            } else if holding && held.len() > before {
                later.push((index, false));
            }
        }
        let mut held_in_order = held.drain(..);
        for (index, to_read) in later.drain(..) {
            if to_read {
                out.extend(read(&tasks[index as usize]));
            } else {
                out.extend(held_in_order.next());
            }
        }
        if out.len() > gathered {
            after(out);
        }
    }
}

/// Walks gather the candidates of a ranking of which only the first `k` places are read (Mantri's
/// duplicates and `auto`'s copies, into the free slots). With room for a tenth of a job's 100K
/// late tasks, most candidates would be judged to the end, kept and ranked for nothing. The floor
/// is the key of the `k`-th best candidate gathered so far: a judgement below it stops at the key,
/// keeping nothing. Exact: `k` candidates gathered before outrank one stopped, which could not
/// have made the first `k` places; the order of those is left as it was. Equal keys go by place
/// in the walk (`by_place`: a later candidate with the key of place `k` - 1 is outranked), or by
/// a tie the ranking reads that the floor does not know (a candidate with the floor's key is
/// kept). The floor is raised from the keys of what the walk has gathered ([`TopFloor::raise`],
/// after each of its batches), in a selection over the best `k` kept and those gathered since,
/// once they number half as many again.
pub(crate) struct TopFloor {
    k: usize,
    by_place: bool,
    /// A key below this is let go: the key of place `k` - 1, or (`by_place`) the least float
    /// above it; minus infinity until `k` candidates are gathered.
    least: Cell<f64>,
    /// The keys of the best `k` candidates at the last raise, and of those gathered since.
    keys: RefCell<Vec<u64>>,
    /// How many of the list's candidates `keys` has seen.
    seen: Cell<usize>,
}

/// The least number of keys a floor gathers between two raises: a raise is a pass over its keys.
const RAISE_LEAST: usize = 256;

impl TopFloor {
    /// A floor for the first `k` places of at most `most` candidates (the tasks the walk judges).
    /// None is ever let go where `k` is 0 or not below `most` (every place read).
    pub(crate) fn new(k: usize, most: usize, by_place: bool) -> TopFloor {
        let k = if k == 0 || k >= most || floor_off() { usize::MAX } else { k };
        TopFloor { k, by_place, least: Cell::new(f64::NEG_INFINITY), keys: RefCell::new(Vec::new()), seen: Cell::new(0) }
    }

    /// Whether a candidate with `key` can still make the first `k` places (one float compare, in
    /// the judgement of every task; NaN is kept).
    #[inline]
    #[allow(clippy::neg_cmp_op_on_partial_ord)] // a NaN key, or floor, keeps the candidate
    pub(crate) fn admits(&self, key: f64) -> bool {
        !(key < self.least.get())
    }

    /// The least key admitted so far (minus infinity until `k` candidates are gathered).
    pub(crate) fn least(&self) -> f64 {
        self.least.get()
    }

    /// Takes the keys of the candidates gathered into `list` since the last call, and raises the
    /// floor to the key of place `k` - 1 once enough have come in.
    pub(crate) fn raise<T>(&self, list: &[T], key: impl Fn(&T) -> f64) {
        if self.k == usize::MAX {
            return;
        }
        let mut keys = self.keys.borrow_mut();
        let step = (self.k / 2).max(RAISE_LEAST);
        if keys.capacity() == 0 {
            keys.reserve(self.k + step + WALK_BATCH);
        }
        keys.extend(list[self.seen.get()..].iter().map(|x| order_key(key(x))));
        self.seen.set(list.len());
        if keys.len() < self.k + step {
            return;
        }
        // The best `k` to the front (largest first), place `k` - 1 last among them.
        let (_, &mut kth, _) = keys.select_nth_unstable_by(self.k - 1, |a, b| b.cmp(a));
        keys.truncate(self.k);
        // The ranking orders keys as `f64::total_cmp` does, and a float compare takes -0 and +0
        // as equal: at a zero, a candidate with the key of place `k` - 1 is kept. The next key
        // in that order is the least float above (past infinity, a NaN: everything is kept).
        let above = self.by_place && from_order_key(kth) != 0.0;
        self.least.set(from_order_key(if above { kth.saturating_add(1) } else { kth }));
    }
}

/// How many places ahead [`Ranking::of`] asks for a candidate's memory.
const PREFETCH_AHEAD: usize = 16;

impl Ranking {
    /// The places, in rank order.
    pub fn places(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.0.iter().map(|&(_, i)| i as usize)
    }

    /// `items` (those the ranking was made of) in rank order. Ranked candidates are read at
    /// random, and at 100K of them nearly every read misses the caches: each is asked for some
    /// places ahead of its turn, so that the reads overlap instead of waiting one after another.
    pub fn of<'a, T>(&'a self, items: &'a [T]) -> impl ExactSizeIterator<Item = &'a T> + 'a {
        self.0.iter().enumerate().map(move |(r, &(_, i))| {
            if let Some(&(_, ahead)) = self.0.get(r + PREFETCH_AHEAD) {
                prefetch(&items[ahead as usize]);
            }
            &items[i as usize]
        })
    }
}

/// Bits of the key one counting pass of [`radix_sort_first`] sorts by, at most: a pass's 2,048
/// counters stay in the first-level cache. A smaller bucket is counted on fewer bits.
const DIGIT_BITS: u32 = 11;

/// Buckets this small are sorted by comparison rather than by another counting pass.
const SMALL_BUCKET: usize = 64;

/// Sorts the first `k` places by the key, keeping equal keys in their order (the items come in
/// index order, and the order sought is key, then index); `differ` holds the bits in which the
/// keys differ. Afterwards `items[..k]` hold the `k` least items in order, followed by the rest
/// of the run of the key at place `k` - 1, in index order; the places up to the returned end hold
/// those and items of greater keys, and the places after it are left in no order, some items
/// there repeated and others lost. All `items.len()` of them for a full sort. Most significant
/// digit first: one counting pass on the `DIGIT_BITS` bits below the highest bit in which the
/// keys differ, then each bucket that holds any of the first `k` places on its own (the last of
/// them only as far as place `k`, yet with all of its items, among them that whole run): left as
/// it is when its keys are all equal (the pass keeps their order), sorted by comparison when
/// small, by its own next digit otherwise. Keys from one decision often share their sign and
/// exponent, and often repeat: a least-significant-first sort would pass over every digit of the
/// key, where this usually settles the order in one counting pass. Where `k` is a small part of
/// the items (a LATE cap, Mantri's or ESE's free slots), the items of the buckets past place `k`
/// are neither placed nor copied back nor sorted.
fn radix_sort_first(items: &mut [(u64, u32)], k: usize, differ: u64, spare: &mut Vec<(u64, u32)>) -> usize {
    let k = k.min(items.len());
    if k == 0 || differ == 0 {
        return items.len();
    }
    if items.len() <= SMALL_BUCKET {
        items.sort_unstable();
        return items.len();
    }
    let bits = DIGIT_BITS.min(usize::BITS - items.len().leading_zeros());
    let shift = (64 - differ.leading_zeros()).saturating_sub(bits);
    let mask = (1u64 << bits) - 1;
    let digit = |key: u64| ((key >> shift) & mask) as usize;
    let mut counts = vec![0u32; 1 << bits];
    for &(key, _) in items.iter() {
        counts[digit(key)] += 1;
    }
    // Each bucket's first place, from the counts; `next` ends at where each bucket ends.
    let mut at = 0u32;
    for x in counts.iter_mut() {
        (*x, at) = (at, at + *x);
    }
    // Only the buckets up to the one that holds place `k` - 1 are placed and copied back.
    let last = counts.iter().rposition(|&begin| (begin as usize) < k).unwrap_or(0);
    let kept = counts.get(last + 1).map_or(items.len(), |&end| end as usize);
    spare.clear();
    spare.resize(kept, (0, 0));
    let mut next = counts.clone();
    for &item in items.iter() {
        let b = digit(item.0);
        if b <= last {
            spare[next[b] as usize] = item;
            next[b] += 1;
        }
    }
    items[..kept].copy_from_slice(spare);
    // The end of the innermost bucket that holds place `k` - 1, from the last bucket sorted.
    let mut end = kept;
    for (&begin, &bucket_end) in counts.iter().zip(&next) {
        let (begin, bucket_end) = (begin as usize, bucket_end as usize);
        if begin >= k {
            break;
        }
        end = bucket_end;
        if bucket_end - begin > 1 {
            let bucket = &mut items[begin..bucket_end];
            let (any, all) = bucket.iter().fold((0u64, !0u64), |(any, all), &(key, _)| (any | key, all & key));
            end = begin + radix_sort_first(bucket, k - begin, any ^ all, spare);
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::{
        decide_all_newly_started, newly_started, newly_started_of, rank_descending, rank_descending_top, rank_descending_top_tied, walk_running, TaskSet,
        TopFloor, FLOOR_OFF, SHORTCUT_FORCED,
    };
    use crate::action::{Action, AvoidNodes, Reason};
    use crate::event::{Event, Outcome};
    use crate::model::{NodeName, TaskId, TaskKind};
    use crate::Engine;

    fn dolly_clone(task: TaskId, copies: u32, outlier_probability: f64, utilization: f64) -> Action {
        let reason = Reason::Dolly { task_level: true, wanted: 2, outlier_probability, epsilon: 0.05, utilization, ceiling: 0.7 };
        Action::Clone { task, copies, reason }
    }

    /// Actions pushed as copies of a template and filled in place are the actions built whole
    /// and pushed, whether the list had room for them (reserved ahead, as Dolly does) or grew.
    #[test]
    fn actions_pushed_like_a_template_are_those_built_whole() {
        let like = super::Template::new(dolly_clone(TaskId::map(0), 0, 0.0, 0.0)).expect("a Dolly clone owns nothing");
        let built: Vec<Action> =
            (0..300u32).map(|i| dolly_clone(TaskId::reduce(i * 7), i % 3 + 1, 1.0 / (i + 1) as f64, i as f64 / 300.0)).collect();
        for room in [0, 300] {
            let mut list = Vec::with_capacity(room);
            for (i, b) in built.iter().enumerate() {
                let Action::Clone { task, copies, reason: Reason::Dolly { outlier_probability: p, utilization: u, .. } } = b else {
                    unreachable!()
                };
                super::push_ahead_like(&mut list, &like, |a| {
                    if let Action::Clone { task: t, copies: k, reason: Reason::Dolly { outlier_probability, utilization, .. } } = a {
                        (*t, *k, *outlier_probability, *utilization) = (*task, *copies, *p, *u);
                    }
                });
                assert_eq!(list.len(), i + 1);
            }
            assert_eq!(list, built, "room for {room}");
            let mut pushed = Vec::with_capacity(room);
            built.iter().for_each(|b| super::push_ahead(&mut pushed, b.clone()));
            assert_eq!(pushed, built, "room for {room}");
        }
    }

    /// Only an action that owns nothing (no shared avoid list, no shared decision, no box) is
    /// taken as a template: a copy of the bytes of any other would share what it owns.
    #[test]
    fn only_an_action_that_owns_nothing_is_a_template() {
        let node = NodeName::from("n1:8041");
        let speculate = |avoid_nodes: AvoidNodes, reason: Reason| Action::Speculate { task: TaskId::map(1), avoid_nodes, prefer_rack: None, reason };
        let ese = Reason::Ese { t_rem_s: 30.0, sigma: 1.5, mean_task_s: 10.0, rank: 1, candidates: 4 };
        let boxed = Reason::Auto { light: false, load: 0.9, cutoff: 0.5, alpha: 1.5, base: Box::new(ese.clone()) };
        let owning = [
            speculate([node].into_iter().collect(), ese.clone()),
            speculate(AvoidNodes::own_only(None), boxed.clone()),
            Action::Clone { task: TaskId::map(1), copies: 1, reason: boxed },
        ];
        for action in owning {
            assert!(!action.owns_nothing() && super::Template::new(action.clone()).is_none(), "{action:?}");
        }
        let plain = [speculate(AvoidNodes::own_only(Some(node)), ese.clone()), dolly_clone(TaskId::map(2), 1, 0.1, 0.2)];
        for action in plain {
            assert!(action.owns_nothing() && super::Template::new(action.clone()).is_some(), "{action:?}");
        }
    }

    /// The tasks newly started are the running ones not succeeded that the set does not hold, in
    /// task order, maps first: a walk over every task finds the same, whatever the set holds
    /// (grown one task at a time or absorbed from another, past the job's tasks too).
    #[test]
    fn newly_started_tasks_are_those_running_and_undecided() {
        let mut next = crate::test_below();
        for case in 0..60 {
            let (maps, reduces) = (next(300) as u32, next(140) as u32);
            let mut e = Engine::from_pairs([("rein.policy", "dolly")]).unwrap().0;
            e.ingest(0, Event::JobCreated { maps, reduces });
            let all: Vec<TaskId> = (0..maps).map(TaskId::map).chain((0..reduces).map(TaskId::reduce)).collect();
            for &t in &all {
                if next(4) != 0 {
                    e.ingest(0, Event::AttemptStarted { attempt: t.attempt(0), node: Some("n:1".into()), rack: None });
                    if next(5) == 0 {
                        e.ingest(1_000, Event::AttemptFinished { attempt: t.attempt(0), outcome: Outcome::Succeeded });
                    }
                }
            }
            let (mut decided, mut later) = (TaskSet::default(), TaskSet::default());
            for &t in &all {
                match next(3) {
                    0 => decided.insert(t),
                    1 => later.insert(t),
                    _ => {}
                }
            }
            decided.insert(TaskId::map(maps + 64 * next(4) as u32));
            // Extended in runs (task order, then shuffled) it holds what one insert at a time does.
            let mut some: Vec<TaskId> = all.iter().copied().filter(|_| next(2) == 0).collect();
            if case % 3 == 0 {
                for i in (1..some.len()).rev() {
                    some.swap(i, next(i as u64 + 1) as usize);
                }
            }
            let mut one_by_one = TaskSet::default();
            some.iter().for_each(|t| one_by_one.insert(*t));
            let mut extended = TaskSet::default();
            extended.extend(some.iter().copied());
            for t in &all {
                assert_eq!(extended.contains(t), one_by_one.contains(t), "{t:?}, case {case}");
                assert_eq!(extended.contains(t), some.contains(t), "{t:?}, case {case}");
            }
            if case % 2 == 0 {
                decided.absorb(later);
            }
            let job = e.job();
            let want: Vec<TaskId> = all
                .iter()
                .copied()
                .filter(|t| job.running_attempts_of(job.task(*t).unwrap()).next().is_some())
                .filter(|t| !job.task(*t).unwrap().succeeded && !decided.contains(t))
                .collect();
            assert_eq!(newly_started(job, &decided).collect::<Vec<_>>(), want, "case {case}");
            // Deciding a kind's newly started tasks a word at a time adds exactly those.
            let kind = TaskKind::ALL[case % 2];
            let mut words = TaskSet::default();
            words.absorb(std::mem::take(&mut decided));
            let before: Vec<bool> = all.iter().map(|t| words.contains(t)).collect();
            decide_all_newly_started(job, kind, &mut words);
            for (t, was) in all.iter().zip(before) {
                assert_eq!(words.contains(t), was || (t.kind == kind && want.contains(t)), "{t:?} of {kind:?}, case {case}");
            }
            assert!(newly_started_of(job, kind, &words).next().is_none(), "case {case}");
        }
    }

    /// A walk yields in task order whatever judged each task, its brief or its record: the
    /// policies rank their candidates with ties in task order. Tasks of 100 running maps (some
    /// finished between them) are judged at random from their briefs, read from their records, or
    /// passed over, in batches that mix the three.
    #[test]
    fn a_walk_yields_in_task_order_however_each_task_was_judged() {
        let mut e = Engine::from_pairs([("rein.policy", "mantri")]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 130, reduces: 0 });
        for i in 0..130 {
            e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{}:1", i % 7)), rack: None });
        }
        for i in (0..130).step_by(4) {
            let attempt = TaskId::map(i).attempt(0);
            e.ingest(9, Event::AttemptFinished { attempt, outcome: crate::event::Outcome::Succeeded });
        }
        let mut next = crate::test_rng();
        let how: Vec<u64> = (0..130).map(|_| next() % 3).collect();
        let mut out = Vec::new();
        let pass = |id: TaskId, _| how[id.index as usize] == 0;
        let look = |id: TaskId, out: &mut Vec<u32>| {
            if how[id.index as usize] == 1 {
                out.push(id.index);
                return false;
            }
            true
        };
        walk_running(e.job(), TaskKind::Map, pass, look, |task| Some(task.id.index), &mut out, |_| {});
        let want: Vec<u32> = (0..130).filter(|&i| i % 4 != 0 && how[i as usize] != 0).collect();
        assert_eq!(out, want);
    }

    /// A walk's shortcut only saves work: ESE, SCA, `auto` and Mantri decide the same with it tried on
    /// every task, on none, or as the walk chooses. Jobs of 1,200 maps in blocks of 100 that are
    /// healthy, late by any factor, or all far late (where the walk stops trying the shortcut),
    /// some silent, some copied, some finished, decided at three times.
    #[test]
    fn a_walks_shortcut_never_changes_a_decision() {
        use crate::model::Phase;
        let job = |seed: u64| {
            let mut next = crate::test_below();
            for _ in 0..seed {
                next(2);
            }
            let mut events = Vec::new();
            let n = 1_200u32;
            // Per block: healthy, late by a factor of 1 to 10, or of 6 to 10.
            let blocks: Vec<u64> = (0..n / 100).map(|_| next(3)).collect();
            for i in 0..n {
                let (attempt, block) = (TaskId::map(i).attempt(0), blocks[(i / 100) as usize]);
                let start = next(3_000) as i64;
                events.push((start, Event::AttemptStarted { attempt, node: Some(format!("n{}:1", i % 23)), rack: None }));
                if next(20) == 0 {
                    continue;
                }
                // Seconds for the whole task: about 40 s, times the block's factor.
                let secs = (30 + next(20)) as f64 * [1.0, 1.0 + next(90) as f64 / 10.0, 6.0 + next(40) as f64 / 10.0][block as usize];
                for at in (start + 1_000..120_000).step_by(3_000 + next(500) as usize) {
                    let progress = ((at - start) as f64 / 1000.0 / secs).min(1.0);
                    if progress >= 1.0 && next(3) == 0 {
                        events.push((at, Event::AttemptFinished { attempt, outcome: Outcome::Succeeded }));
                        break;
                    }
                    events.push((at, Event::AttemptStatus { attempt, progress: progress.min(0.99), phase: Phase::Map }));
                }
                if next(15) == 0 {
                    let at = start + 5_000 + next(20_000) as i64;
                    events.push((at, Event::AttemptStarted { attempt: TaskId::map(i).attempt(1), node: Some("x:1".into()), rack: None }));
                }
            }
            events.sort_by_key(|e| e.0);
            events
        };
        let decisions = |policy: &str, events: &[(i64, Event)], forced: Option<bool>| {
            SHORTCUT_FORCED.set(forced);
            let mut e = Engine::from_pairs([("rein.policy", policy), ("rein.cluster.slots", "5000")]).unwrap().0;
            e.ingest(0, Event::JobCreated { maps: 1_200, reduces: 0 });
            let mut out = Vec::new();
            let mut pending = events.iter().peekable();
            for now in [45_000, 70_000, 110_000] {
                while let Some((at, ev)) = pending.next_if(|x| x.0 <= now) {
                    e.ingest(*at, ev.clone());
                }
                out.push(e.decide(now));
            }
            SHORTCUT_FORCED.set(None);
            out
        };
        for policy in ["ese", "sca", "auto", "mantri"] {
            let mut copies = 0;
            for seed in 0..8 {
                let events = job(seed);
                let tried = decisions(policy, &events, Some(true));
                assert_eq!(decisions(policy, &events, Some(false)), tried, "{policy}, job {seed}: never tried");
                assert_eq!(decisions(policy, &events, None), tried, "{policy}, job {seed}: as the walk chooses");
                copies += tried.iter().flatten().filter(|a| a.new_copies() > 0).count();
            }
            assert!(copies > 0, "{policy} copied nothing");
        }
    }

    /// A floor lets go only candidates that could not make the first `k` places: over key
    /// sequences with few or many repeats (infinite keys too), and over ones whose place `k` - 1
    /// comes last, after `k` - 1 keys above it and many below (equal to it, for a tie), gathered
    /// as a walk gathers them (16 at a time, the floor raised after each batch), every one of the
    /// first `k` places by key then place is kept, and with ties by another key (`by_place`
    /// false) every candidate with the key of place `k` - 1 or above. And it lets go some.
    #[test]
    fn a_floor_keeps_every_candidate_that_can_make_the_first_places() {
        let mut next = crate::test_below();
        let mut sequences: Vec<(Vec<f64>, Vec<usize>)> = Vec::new();
        for (n, distinct) in [(300, 3), (2_000, 7), (2_000, 1_000), (5_000, 40), (5_000, 5_000)] {
            let keys = (0..n).map(|_| match next(distinct) {
                0 => f64::INFINITY,
                r => r as f64 * 1.5 - 20.0,
            });
            sequences.push((keys.collect(), vec![1, 2, 10, 100, 700]));
        }
        for k in [1, 2, 10, 300] {
            for last in [500.0, 5.0] {
                let below = (0..3 * k + 600).map(|_| next(6) as f64);
                sequences.push(([1_000.0].repeat(k - 1).into_iter().chain(below).chain([last]).collect(), vec![k]));
            }
        }
        let mut let_go = 0;
        for (keys, ks) in sequences {
            let n = keys.len();
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&a, &b| keys[b].total_cmp(&keys[a]).then(a.cmp(&b)));
            for &k in ks.iter().filter(|&&k| k < n) {
                for by_place in [true, false] {
                    let floor = TopFloor::new(k, n, by_place);
                    let mut kept: Vec<(f64, usize)> = Vec::new();
                    for batch in (0..n).collect::<Vec<_>>().chunks(16) {
                        kept.extend(batch.iter().filter(|&&i| floor.admits(keys[i])).map(|&i| (keys[i], i)));
                        floor.raise(&kept, |x| x.0);
                    }
                    let kept: std::collections::HashSet<usize> = kept.iter().map(|x| x.1).collect();
                    let kth = keys[order[k - 1]];
                    let ties = order[k..].iter().take_while(|&&i| keys[i].total_cmp(&kth).is_eq()).count();
                    for &i in &order[..if by_place { k } else { k + ties }] {
                        assert!(kept.contains(&i), "{n} keys, k = {k}, by place: {by_place}: candidate {i} ({}) let go", keys[i]);
                    }
                    let_go += n - kept.len();
                }
            }
        }
        assert!(let_go > 0, "the floor let nothing go");
    }

    /// A walk's floor only saves work: Mantri, `auto`, ESE, SCA (ESE's backups) and LATE decide
    /// the same with it and without it, their reasons' counts of candidates included,
    /// on jobs of 2,000 maps in blocks of 100 that are healthy, late by any factor, or late
    /// alike (the same start, pace and report times: equal gains, ranked by place or by `auto`'s
    /// tie), some silent, some copied, some finished, with room for 1 to 400 copies (the floor
    /// rises from 257 candidates on), decided at three times.
    #[test]
    fn a_walks_floor_never_changes_a_decision() {
        use crate::model::Phase;
        let n = 2_000u32;
        let job = |seed: u64| {
            let mut next = crate::test_below();
            for _ in 0..seed {
                next(2);
            }
            let mut events = Vec::new();
            let blocks: Vec<u64> = (0..n / 100).map(|_| next(4)).collect();
            for i in 0..n {
                let (attempt, block) = (TaskId::map(i).attempt(0), blocks[(i / 100) as usize]);
                let alike = block == 3;
                let start = if alike { 1_000 } else { next(3_000) as i64 };
                events.push((start, Event::AttemptStarted { attempt, node: Some(format!("n{}:1", i % 23)), rack: None }));
                if !alike && next(20) == 0 {
                    continue;
                }
                let secs = match block {
                    0 => (30 + next(20)) as f64,
                    1 => (30 + next(20)) as f64 * (1.0 + next(90) as f64 / 10.0),
                    2 => (30 + next(20)) as f64 * (6.0 + next(40) as f64 / 10.0),
                    _ => 200.0,
                };
                let step = if alike { 3_000 } else { 3_000 + next(500) as usize };
                for at in (start + 1_000..120_000).step_by(step) {
                    let progress = ((at - start) as f64 / 1000.0 / secs).min(1.0);
                    if progress >= 1.0 && next(3) == 0 {
                        events.push((at, Event::AttemptFinished { attempt, outcome: Outcome::Succeeded }));
                        break;
                    }
                    events.push((at, Event::AttemptStatus { attempt, progress: progress.min(0.99), phase: Phase::Map }));
                }
                if !alike && next(15) == 0 {
                    let at = start + 5_000 + next(20_000) as i64;
                    events.push((at, Event::AttemptStarted { attempt: TaskId::map(i).attempt(1), node: Some("x:1".into()), rack: None }));
                }
            }
            events.sort_by_key(|e| e.0);
            events
        };
        let decisions = |policy: &str, room: u32, events: &[(i64, Event)], off: bool| {
            FLOOR_OFF.set(off);
            let mut e = Engine::from_pairs([("rein.policy", policy)]).unwrap().0;
            e.ingest(0, Event::JobCreated { maps: n, reduces: 0 });
            let mut out = Vec::new();
            let mut pending = events.iter().peekable();
            for now in [45_000, 70_000, 110_000] {
                while let Some((at, ev)) = pending.next_if(|x| x.0 <= now) {
                    e.ingest(*at, ev.clone());
                }
                e.ingest(now, Event::Capacity { total_slots: 10_000, free_slots: Some(room) });
                out.push(e.decide(now));
            }
            FLOOR_OFF.set(false);
            out
        };
        for policy in ["auto", "mantri", "ese", "sca", "late"] {
            let mut copies = 0;
            for (seed, room) in [(0, 1), (1, 10), (2, 60), (3, 150), (4, 400), (5, 1_000), (6, 5), (7, 30), (8, 250)] {
                let events = job(seed);
                let floored = decisions(policy, room, &events, false);
                // As text: a reason can hold a NaN (LATE's threshold of a kind with no
                // candidates), which is not equal to itself; the text shows every float exactly.
                let (off, on) = (format!("{:?}", decisions(policy, room, &events, true)), format!("{floored:?}"));
                assert_eq!(off, on, "{policy}, job {seed}, room for {room}");
                copies += floored.iter().flatten().filter(|a| a.new_copies() > 0).count();
            }
            assert!(copies > 0, "{policy} copied nothing");
        }
    }

    /// The ranking with ties taken by a second key is the full sort by key (largest first), then
    /// that key, then index, for any `k`: keys that repeat a little or a lot (runs that end
    /// before place `k`, at it, and past it; infinite ones), far apart or so close that the radix
    /// sort tells them apart only some digits down, second keys that repeat too.
    #[test]
    fn ranking_with_ties_is_the_sort_by_key_tie_then_index() {
        let mut next = crate::test_below();
        let cases = [(0, 1, 1), (1, 1, 1), (2, 1, 1), (90, 3, 4), (1_000, 7, 3), (1_000, 400, 2), (5_000, 2, 50), (5_000, 5_000, 5), (20_000, 9, 3)];
        for ((n, distinct, ties), close) in cases.into_iter().flat_map(|case| [(case, false), (case, true)]) {
            // The first of the distinct keys is unbounded, as the gain of an attempt with no progress.
            let key = |r: u64| match (r, close) {
                (0, _) => f64::INFINITY,
                (_, false) => (r as f64 - 2.0) * 1.5,
                (_, true) => 1_000.0 + r as f64 * 1e-9,
            };
            let items: Vec<(f64, u64)> = (0..n).map(|_| (key(next(distinct)), next(ties))).collect();
            let mut want: Vec<usize> = (0..n).collect();
            want.sort_by(|&a, &b| items[b].0.total_cmp(&items[a].0).then(items[a].1.cmp(&items[b].1)).then(a.cmp(&b)));
            for k in [0, 1, 2, n / 10, n / 3, n / 2, n.saturating_sub(1), n, n + 1] {
                let top: Vec<usize> = rank_descending_top_tied(&items, |x| x.0, |x| x.1, k).places().collect();
                assert_eq!(top, want[..k.min(n)], "n = {n}, {distinct} keys (close: {close}), {ties} ties, k = {k}");
            }
        }
    }

    /// The ranking is the full sort by key (largest first), ties in index order, whatever the
    /// keys' spread: few repeated values, one value, wide and narrow ranges, signs, infinities;
    /// and its first `k` places alone are that sort's first `k`, for any `k`.
    #[test]
    fn ranking_is_the_sort_by_key_then_index() {
        let mut next = crate::test_rng();
        let shapes = crate::test_float_shapes();
        for shape in &shapes {
            for n in [0usize, 1, 2, 63, 64, 65, 500, 5_000, 70_000] {
                let keys: Vec<f64> = (0..n).map(|_| shape(next())).collect();
                let mut want: Vec<usize> = (0..n).collect();
                want.sort_by(|&a, &b| keys[b].total_cmp(&keys[a]).then(a.cmp(&b)));
                assert_eq!(rank_descending(keys.iter().copied()).places().collect::<Vec<_>>(), want, "n = {n}");
                let ranked: Vec<f64> = rank_descending(keys.iter().copied()).of(&keys).copied().collect();
                assert!(ranked.iter().zip(&want).all(|(x, &i)| x.to_bits() == keys[i].to_bits()), "n = {n}");
                for k in [0, 1, n / 10, n / 3, n.saturating_sub(1), n, n + 1] {
                    let top: Vec<usize> = rank_descending_top(keys.iter().copied(), k).places().collect();
                    assert_eq!(top, want[..k.min(n)], "n = {n}, k = {k}");
                }
            }
        }
    }
}
