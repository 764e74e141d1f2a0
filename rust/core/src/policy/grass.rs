//! GRASS's cheap speculation decisions (Ananthanarayanan et al., "GRASS: Trimming Stragglers in
//! Approximation Analytics", NSDI 2014, §4), and the start-up cost they rest on.
//!
//! GRASS judges a copy by what it costs. Resource-aware speculation (RAS) copies a task with c
//! running copies only if the copies together then use less: c·t_rem > (c+1)·t_new. Greedy
//! speculation (GS) copies whenever the copy should finish first, t_new < t_rem; GRASS starts with
//! RAS and switches to GS for a job's last wave, where a slot left idle buys nothing. rein applies
//! this per phase: the last wave is "every task of the phase has started". A copy that cannot
//! even start before the original ends is never worth it, so nothing whose t_rem is below a fresh
//! copy's start-up cost is copied.
//!
//! The start-up cost (container allocation, JVM, task set-up) is measured online: the median,
//! over the job's attempts that have shown progress, of the time from launch to first progress;
//! `rein.grass.startup-ms` until one has.

use crate::model::{kth_of_two_by, Attempt, AttemptState, Brief, JobState, Millis, TaskId, TaskKind};
use crate::stats::{from_order_key, km_median_sorted_from, median_of_sorted, order_key, percentile, percentile_of_keys, sort_ms};

/// Which of GRASS's rules let a copy through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GrassRule {
    /// Tasks of the phase still wait: c·t_rem > (c+1)·t_new.
    ResourceAware,
    /// The phase's last wave: t_rem > t_new.
    Greedy,
}

impl GrassRule {
    pub fn label(self) -> &'static str {
        match self {
            GrassRule::ResourceAware => "resource-aware c·t_rem > (c+1)·t_new",
            GrassRule::Greedy => "last wave, greedy t_rem > t_new",
        }
    }
}

/// GRASS §4's test for a task with `copies` running copies: the rule that lets a copy through,
/// or None. `startup_s` is a fresh copy's start-up cost; `last_wave` that no task of the phase
/// still waits to start.
pub fn grass_allows(t_rem: f64, t_new: f64, copies: u32, startup_s: f64, last_wave: bool) -> Option<GrassRule> {
    if t_rem.is_nan() || t_rem <= startup_s || t_rem <= t_new {
        return None;
    }
    if last_wave {
        return Some(GrassRule::Greedy);
    }
    let c = copies.max(1) as f64;
    (c * t_rem > (c + 1.0) * t_new).then_some(GrassRule::ResourceAware)
}

/// A fresh copy's start-up cost in seconds: the median launch-to-first-progress of the job's
/// attempts, or `default_ms` before any has shown progress; and whether it was measured. The job
/// keeps that median as progress arrives.
pub fn startup_cost_s(job: &JobState, default_ms: Millis) -> (f64, bool) {
    match job.median_startup_s() {
        Some(s) => (s, true),
        None => (default_ms as f64 / 1000.0, false),
    }
}

/// What `started_or_late` judges a silent attempt by, taken once per decision and task kind.
pub struct StartupBar {
    /// The Kaplan–Meier median run time of the kind's attempts: the succeeded ones' run times,
    /// the running ones censored at their age so far (the judged one among them). Taken at its
    /// first use (`StartupBar::run_median_s`): a decision whose silent attempts are all younger
    /// than the bound on it (`Silence::late_by_run_time`) does not take it.
    run_median_s: std::cell::OnceCell<Option<f64>>,
    /// Whether any attempt of the kind has shown progress.
    reported: bool,
    /// Launch-to-first-progress of the attempts that have shown progress, and the age so far of
    /// the running ones that have not (a lower bound of theirs), sorted: the few about the median
    /// that `median_without` reads.
    bounds: NearMedian,
    /// `median_without` of an own age that exceeds i of the values `bounds` holds, at i, taken
    /// once: a decision asks it of every silent attempt, tens of thousands in a wave of a big job,
    /// and it depends on the age only through those few comparisons (`median_without_age`).
    without_age: [Option<f64>; 5],
    /// The start-up test of a running silent attempt as whole milliseconds of age, worked out at
    /// its first use for the factor it was asked with (`LateToStart`).
    late_to_start: std::cell::OnceCell<LateToStart>,
    /// `silent_late_from_ms` for the first factors asked with: theirs and the age.
    silent_late_from: std::cell::OnceCell<(u64, u64, Millis)>,
}

/// `Silence::late_to_start` of a running attempt, which depends on nothing of the attempt but its
/// age, as thresholds on the age in ms: a wave of a big job has tens of thousands of silent
/// attempts, each judged in every decision, and the test in floats (a division, four comparisons,
/// a product) was a fifth of a streamed ESE decision mid-wave. Exact: the test in floats is
/// `age_s > factor · without_age[i]` with `age_s = age_ms / 1000` and `i` the count of the held
/// values below `age_s`, and each of those comparisons, of `age_s` with a fixed number, holds
/// from some age in ms on (`least_age_over`), so that each is a comparison of integers here,
/// for every age below `Millis::MAX` ms.
#[derive(Debug)]
struct LateToStart {
    /// The factor's bits.
    factor: u64,
    /// Per value `bounds` holds, the least age from which it is below `age_s`; `NEVER` past
    /// those held (or where no age is).
    value_below_from: [Millis; 4],
    /// Per count of those values below, the least age from which the attempt is late to start.
    late_from: [Millis; 5],
}

/// An age no attempt reaches (`LateToStart`, `least_age_over`).
const NEVER: Millis = Millis::MAX;

impl LateToStart {
    fn new(bar: &StartupBar, factor: f64) -> LateToStart {
        let held = bar.bounds.len.saturating_sub(bar.bounds.from).min(4);
        let value_below_from = std::array::from_fn(|j| if j < held { least_age_over(bar.bounds.values[j]) } else { NEVER });
        let late_from = std::array::from_fn(|i| bar.without_age[i].map_or(NEVER, |median_s| least_age_over(factor * median_s)));
        LateToStart { factor: factor.to_bits(), value_below_from, late_from }
    }

    #[inline]
    fn late(&self, age_ms: Millis) -> bool {
        let below: usize = self.value_below_from.iter().map(|&from| usize::from(age_ms >= from)).sum();
        age_ms >= self.late_from[below]
    }
}

/// The least age in ms below `NEVER` whose seconds, `age_ms as f64 / 1000.0`, exceed `x`; `NEVER`
/// where none's do (`x` NaN, or beyond those ages). Those seconds never fall as the age grows
/// (each operation is monotone), so the ages whose seconds exceed `x` are those from some age on:
/// found by halving.
fn least_age_over(x: f64) -> Millis {
    // The halving's bounds as wider integers: their difference overflows a `Millis`.
    let over = |age_ms: i128| age_ms as Millis as f64 / 1000.0 > x;
    let (mut lo, mut hi) = (Millis::MIN as i128, NEVER as i128 - 1);
    if !over(hi) {
        return NEVER;
    }
    if over(lo) {
        return Millis::MIN;
    }
    // over(lo) is false and over(hi) true.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if over(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi as Millis
}

/// The values about the median of a sorted list, kept without the list: positions `from` to
/// `from + 3` of `len`, where `from` is the lower median's place with one value left out. A
/// median with or without one value leaves its lower place there or one on.
#[derive(Clone, Copy, Debug)]
struct NearMedian {
    len: usize,
    from: usize,
    values: [f64; 4],
}

impl NearMedian {
    /// The first place `values` holds for a list of `len`.
    fn from(len: usize) -> usize {
        len.saturating_sub(2) / 2
    }

    /// Of a sorted list (the tests' way).
    #[cfg(test)]
    fn of_sorted(list: &[f64]) -> NearMedian {
        NearMedian::of(list.len(), |k| list[k])
    }

    /// Of a sorted list of `len` whose k-th value `kth` gives.
    fn of(len: usize, kth: impl Fn(usize) -> f64) -> NearMedian {
        let from = NearMedian::from(len);
        let mut values = [f64::NAN; 4];
        for (i, v) in values.iter_mut().enumerate().take(len.saturating_sub(from)) {
            *v = kth(from + i);
        }
        NearMedian { len, from, values }
    }

    /// The k-th value of the list, for a k `median_without` reads.
    fn at(&self, k: usize) -> f64 {
        debug_assert!((self.from..self.from + 4).contains(&k) && k < self.len, "place {k} of {self:?}");
        self.values[k - self.from]
    }

    /// How many of the values held are below `x` (they are sorted).
    fn below(&self, x: f64) -> usize {
        self.values[..self.len.saturating_sub(self.from).min(4)].iter().filter(|&&v| v < x).count()
    }
}

/// Times in ms as seconds, in their order: the job's run times (`JobState::finished_run_ms_sorted`,
/// `Done::secs` is the same division) and attempts' ages, read only as far as a walk goes.
fn secs(ms: &[Millis]) -> impl ExactSizeIterator<Item = f64> + '_ {
    ms.iter().map(|&ms| ms as f64 / 1000.0)
}

impl StartupBar {
    /// The start-ups shown so far and the start times of the silent running attempts come sorted
    /// from the job (`JobState::startups_ms`, `JobState::silent_starts`): no attempt is read and
    /// nothing sorted here. Of the start-ups and the silent attempts' ages together only the few
    /// about their median are found, by halving (`kth_of_two`), not the whole list made. The
    /// median run time is left to its first use (`run_median_s`), except where the job keeps no
    /// start times: there one pass over the running attempts (`ages_read`) gives both.
    fn of(job: &JobState, kind: TaskKind, now: Millis) -> StartupBar {
        let shown = job.startups_ms(kind);
        match job.silent_starts() {
            // The silent attempts' ages from their start times, kept sorted by the job: the latest
            // start is the least age. They are worked out only where the search about the median
            // reads them (a wave brings tens of thousands a second).
            Some(starts) => {
                let silent = starts.silent[kind as usize].sorted();
                let silent_age = |j: usize| starts.age_ms(silent[silent.len() - 1 - j], now);
                StartupBar::from_parts(&shown, silent.len(), silent_age, std::cell::OnceCell::new())
            }
            None => {
                let (silent, run_median_s) = StartupBar::ages_read(job, kind, now, &job.finished_run_ms_sorted(kind));
                StartupBar::from_parts(&shown, silent.len(), |j| silent[j], run_median_s.into())
            }
        }
    }

    /// The Kaplan–Meier median run time (the field's), taken at the first call. The succeeded
    /// attempts' run times and the running attempts' start times come sorted from the job
    /// (`JobState::finished_run_ms_sorted`, `JobState::running_starts`); the running attempts'
    /// ages are read only as far as the walk goes.
    fn run_median_s(&self, job: &JobState, kind: TaskKind, now: Millis) -> Option<f64> {
        *self.run_median_s.get_or_init(|| {
            let ended = job.finished_run_ms_sorted(kind);
            match job.running_starts() {
                Some(starts) => {
                    let all = starts.all[kind as usize].sorted();
                    let ages = all.iter().rev().map(|&k| starts.age_ms(k, now) as f64 / 1000.0);
                    km_median_sorted_from(secs(&ended), all.len(), ages)
                }
                None => StartupBar::ages_read(job, kind, now, &ended).1,
            }
        })
    }

    /// From the start-ups shown, sorted, and the silent attempts' ages, sorted, read by place.
    fn from_parts(
        shown: &[u32],
        silent: usize,
        silent_age: impl Fn(usize) -> Millis,
        run_median_s: std::cell::OnceCell<Option<f64>>,
    ) -> StartupBar {
        let bounds = NearMedian::of(shown.len() + silent, |k| kth_of_two_by(shown, silent, &silent_age, k) as f64 / 1000.0);
        StartupBar::with_bounds(run_median_s, !shown.is_empty(), bounds)
    }

    fn with_bounds(run_median_s: std::cell::OnceCell<Option<f64>>, reported: bool, bounds: NearMedian) -> StartupBar {
        let without_age = std::array::from_fn(|below| StartupBar::median_without_at(&bounds, Some(below)));
        StartupBar { run_median_s, reported, bounds, without_age, late_to_start: Default::default(), silent_late_from: Default::default() }
    }

    /// [`StartupBar::of`] from the running attempts themselves (`ages_read`), as a job whose
    /// start times are too far apart has it.
    #[cfg(test)]
    fn of_read(job: &JobState, kind: TaskKind, now: Millis) -> StartupBar {
        let (silent, run_median_s) = StartupBar::ages_read(job, kind, now, &job.finished_run_ms_sorted(kind));
        StartupBar::from_parts(&job.startups_ms(kind), silent.len(), |j| silent[j], run_median_s.into())
    }

    /// The silent running attempts' ages, sorted, and the Kaplan–Meier median run time, from
    /// the running attempts themselves (their briefs where they have one, else their records):
    /// for a job whose start times lie too far apart for `JobState::running_starts`.
    fn ages_read(job: &JobState, kind: TaskKind, now: Millis, ended: &[Millis]) -> (Vec<Millis>, Option<f64>) {
        // Before any attempt of the kind has finished there is no median run time to take, and
        // the running attempts' ages are not needed (a first wave's scans).
        let room = if ended.is_empty() { 0 } else { job.running_task_count(kind) as usize };
        let (mut ages, mut silent) = (Vec::with_capacity(room), Vec::new());
        let mut add = |age_ms: Millis, shown: bool| {
            if !shown {
                silent.push(age_ms);
            }
            if !ended.is_empty() {
                ages.push(age_ms);
            }
        };
        let tasks = job.tasks(kind);
        for index in job.running_task_indices(kind) {
            match job.brief(TaskId { kind, index }) {
                Some(b) => add(b.elapsed(now), b.shown_progress()),
                None => {
                    for o in job.running_attempts_of(&tasks[index as usize]) {
                        add(o.elapsed(now), o.startup_ms().is_some());
                    }
                }
            }
        }
        sort_ms(&mut ages);
        sort_ms(&mut silent);
        let count = ages.len();
        (silent, km_median_sorted_from(secs(ended), count, secs(&ages)))
    }

    /// The median of the bounds less one occurrence of `own` (the judged attempt's own age), with
    /// `stats::percentile`'s interpolation. `own`, when given, is one of the bounds: a running
    /// attempt that has shown no progress is counted among them at its age (`of`).
    ///
    /// With `own` first at place i of the sorted bounds, the k-th of those left is the k-th of
    /// all below i and the (k+1)-th from i on; and k is at or past i exactly when the k-th bound is
    /// not below `own`. So only the two or three bounds about the median are read, not searched
    /// for: a decision asks this of every silent attempt, thousands in a wave of a big job.
    fn median_without(&self, own: Option<f64>) -> Option<f64> {
        StartupBar::median_without_at(&self.bounds, own.map(|x| self.bounds.below(x)))
    }

    /// `median_without` of an own age that exceeds `below` of the values `bounds` holds (None: no
    /// own age): the k-th value read is the bound at k or, from the first value not below the own
    /// age on, the one after it.
    fn median_without_at(bounds: &NearMedian, below: Option<usize>) -> Option<f64> {
        // An own age is one of the bounds; the medians taken once ask for one of an empty list too.
        let n = bounds.len.checked_sub(usize::from(below.is_some())).filter(|&n| n > 0)?;
        let at = |k: usize| match below {
            Some(i) if k - bounds.from >= i => bounds.at(k + 1),
            _ => bounds.at(k),
        };
        Some(median_of_sorted(n, at))
    }

    /// The start-up test in ms for `factor` (`LateToStart`), worked out at the first call; None
    /// for another factor than that call's (a decision asks with one), which the test in floats
    /// then answers.
    fn late_to_start_ms(&self, factor: f64) -> Option<&LateToStart> {
        let kept = self.late_to_start.get_or_init(|| LateToStart::new(self, factor));
        (kept.factor == factor.to_bits()).then_some(kept)
    }

    /// The least age in ms from which a running attempt of the kind that has shown no progress can
    /// pass `Silence::started_or_late` with these factors (`factor` above 0): a younger one
    /// certainly does not, as both halves of the test hold only from some age on (`LateToStart`,
    /// and the run-time half's bound on the least finished run, `Silence::late_by_run_time`). A
    /// decision judges every silent attempt of a wave, tens of thousands in a big job (in a
    /// streamed ESE decision mid-wave the test was half of the decision), and most are younger.
    /// Worked out at the first call; for other factors than that call's (a decision asks with
    /// one pair) no attempt is passed over on it (`Millis::MIN`).
    fn silent_late_from_ms(&self, job: &JobState, kind: TaskKind, factor: f64, runtime_factor: f64) -> Millis {
        let &(f, r, from) = self.silent_late_from.get_or_init(|| {
            let by_run = job.least_finished_run_ms(kind).map_or(NEVER, |least_ms| least_age_over(runtime_factor * (least_ms as f64 / 1000.0)));
            let by_start = match (self.reported, self.late_to_start_ms(factor)) {
                (false, _) => NEVER,
                (true, Some(test)) => test.late_from.iter().copied().min().unwrap_or(NEVER),
                (true, None) => Millis::MIN,
            };
            (factor.to_bits(), runtime_factor.to_bits(), by_run.min(by_start))
        });
        if (f, r) == (factor.to_bits(), runtime_factor.to_bits()) {
            from
        } else {
            Millis::MIN
        }
    }

    /// `median_without` of a running attempt's own age, from the medians taken once.
    fn median_without_age(&self, age_s: f64) -> Option<f64> {
        self.without_age[self.bounds.below(age_s)]
    }
}

/// What the start-up test reads of an attempt: whether it has shown progress, its age, and
/// whether it runs; from the attempt's record (`Silence::of`) or, for a task's one running
/// attempt, from its brief (`Silence::of_brief`: a decision judges a wave's silent attempts
/// without reading their tasks' records).
pub struct Silence {
    shown: bool,
    age_ms: Millis,
    running: bool,
}

impl Silence {
    pub fn of(a: &Attempt, now: Millis) -> Silence {
        Silence { shown: a.first_progress_at().is_some(), age_ms: a.elapsed(now), running: a.is_running() }
    }

    pub fn of_brief(b: &Brief, now: Millis) -> Silence {
        Silence { shown: b.shown_progress(), age_ms: b.elapsed(now), running: true }
    }

    /// Whether the attempt may be judged yet. One that has shown progress always may. One that has
    /// not is only slow to start until it has run `factor` times the median launch-to-first-progress
    /// of its kind's attempts, or `runtime_factor` times their median run time; before any has shown
    /// progress or finished, it is not judged. `factor` 0 judges it at once (LATE §4 as printed: a
    /// task with no progress has the lowest rate there is). `bar` caches the kind's figures across the
    /// calls of one decision.
    ///
    /// The start-up median counts its siblings still silent too, at their age so far (a lower bound of
    /// their start-up): early in a wave only the fastest starters have reported, and a median of those
    /// alone made a healthy task that was merely slower to start than the first finishers look late
    /// (in the demo, a map on a healthy node copied at 12 s silent, 4 s before it reported). Silent
    /// for `runtime_factor` times as long as its siblings take to finish outright, an attempt is late
    /// whatever their start-up (in the demo the slow node's maps had not reported when every sibling
    /// had finished, and waited 9 s more for 1.5 start-ups). That median run time is Kaplan–Meier's,
    /// the running siblings censored at their age: the median of the finished ones alone is, early in
    /// a wave, the run time of the quickest, and on a healthy cluster whose maps report no progress
    /// before they end (the quick bench's 1-MB maps) it had every map that took longer than the first
    /// one copied.
    #[inline]
    pub fn started_or_late(
        &self,
        job: &JobState,
        kind: TaskKind,
        now: Millis,
        factor: f64,
        runtime_factor: f64,
        bar: &std::cell::OnceCell<StartupBar>,
    ) -> bool {
        if self.shown || factor <= 0.0 {
            return true;
        }
        let run_bar = bar.get_or_init(|| StartupBar::of(job, kind, now));
        if self.running && self.age_ms < run_bar.silent_late_from_ms(job, kind, factor, runtime_factor) {
            return false;
        }
        let age_s = self.age_ms as f64 / 1000.0;
        Silence::late_by_run_time(job, kind, now, age_s, runtime_factor, run_bar) || self.late_to_start(job, kind, now, factor, bar)
    }

    /// Whether an age is past `runtime_factor` (never negative) times the kind's Kaplan–Meier
    /// median run time. That median is one of the succeeded attempts' run times, so never below
    /// the least of them: an age at or below `runtime_factor` times the least is not past it, and
    /// the median, a walk over the running attempts' ages, is not taken (a wave's newly started
    /// attempts, seconds old where the first finished took tens). The same float operations on
    /// the same run times as the median's, so the bound and the test agree to the bit.
    fn late_by_run_time(job: &JobState, kind: TaskKind, now: Millis, age_s: f64, runtime_factor: f64, bar: &StartupBar) -> bool {
        match job.least_finished_run_ms(kind) {
            None => return false,
            Some(least_ms) if age_s <= runtime_factor * (least_ms as f64 / 1000.0) => return false,
            Some(_) => {}
        }
        bar.run_median_s(job, kind, now).is_some_and(|median_s| age_s > runtime_factor * median_s)
    }

    /// The start-up half of `started_or_late`: whether an attempt that has shown no progress has run
    /// `factor` times its siblings' median launch-to-first-progress (silent siblings counted at their
    /// age). Mantri asks only this: its own bar for a silent attempt, E[t_new] + Δ, already stands for
    /// what the finished siblings took.
    #[inline]
    pub fn late_to_start(&self, job: &JobState, kind: TaskKind, now: Millis, factor: f64, bar: &std::cell::OnceCell<StartupBar>) -> bool {
        if self.shown || factor <= 0.0 {
            return true;
        }
        let bar = bar.get_or_init(|| StartupBar::of(job, kind, now));
        if !bar.reported {
            return false;
        }
        // A running attempt's test in ms of age (the float test at an age of `NEVER`, or for a
        // second factor).
        if let Some(test) = bar.late_to_start_ms(factor).filter(|_| self.running && self.age_ms < NEVER) {
            let late = test.late(self.age_ms);
            debug_assert_eq!(
                late,
                bar.median_without_age(self.age_ms as f64 / 1000.0).is_some_and(|m| self.age_ms as f64 / 1000.0 > factor * m),
                "the start-up test in ms of age {} against its floats",
                self.age_ms
            );
            return late;
        }
        let age_s = self.age_ms as f64 / 1000.0;
        let median_s = if self.running { bar.median_without_age(age_s) } else { bar.median_without(None) };
        match median_s {
            Some(median_s) => age_s > factor * median_s,
            None => false,
        }
    }
}

/// Where a reduce stands against its job's maps (`rein.late.reduce-waits-for-maps`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShuffleWait {
    /// Maps of the job still run: a reduce's shuffle waits on them, and so would a copy's.
    Maps,
    /// The last map ended less than the settling time ago: a reduce has only just been given its
    /// last input, and its progress has not had time to move.
    Settling,
    /// Neither (or not a reduce).
    No,
}

/// Whether a task of `kind` is a reduce whose shuffle still waits on unfinished maps of its job
/// (`rein.late.reduce-waits-for-maps`). Such a reduce is slow because its input is not there yet;
/// a copy would fetch from the same maps and wait just as long, so it is not judged until the
/// map phase is over (the demo's AM log had a reduce copied at 24% while the slow node's maps ran,
/// and the copy lost after 25 container-seconds).
///
/// For `settle_ms` after the last map's end the reduce still waits: it has only just been given
/// its last input, and its progress has not had time to move (the bench's AM logs had both
/// reduces judged at progress 0.286, time left infinite, within a second of the last map's end).
/// A judge's minimum age for a reduce thus counts from the map phase's end.
pub fn shuffle_wait(job: &JobState, kind: TaskKind, now: Millis, settle_ms: Millis) -> ShuffleWait {
    if kind != TaskKind::Reduce {
        return ShuffleWait::No;
    }
    let maps = job.tasks(TaskKind::Map);
    if (job.succeeded_task_count(TaskKind::Map) as usize) < maps.len() {
        return ShuffleWait::Maps;
    }
    let last_map_end = maps
        .iter()
        .flat_map(|t| job.attempts_of(t))
        .filter(|a| a.state == AttemptState::Succeeded)
        .filter_map(|a| a.finish())
        .max();
    if last_map_end.is_some_and(|end| now - end < settle_ms) {
        ShuffleWait::Settling
    } else {
        ShuffleWait::No
    }
}

/// `shuffle_wait` as a yes or no: maps still run, or the phase is settling.
pub fn shuffle_waits_on_maps(job: &JobState, kind: TaskKind, now: Millis, settle_ms: Millis) -> bool {
    shuffle_wait(job, kind, now, settle_ms) != ShuffleWait::No
}

/// Seconds per unit of work of the kind's attempts now in the succeeded state that ran for some
/// time, as `order_key`s: per byte of input when every one's task has its size, else per task;
/// and which. Read from the job's list of succeeded attempts when it is whole (their tasks' ids,
/// not their records: only the input sizes are read, kept beside the tasks), in one pass when
/// the sizes are there, with no list of the runs of its own (10K at 100K tasks, each decision).
fn finished_units(job: &JobState, kind: TaskKind, now: Millis) -> (Vec<u64>, bool) {
    let done = job.succeeded_attempts(kind);
    if done.len() == job.succeeded_runtime_ms(kind).0 as usize {
        // Every attempt the job recorded as succeeded still is: its run time is at hand.
        let runs = done.iter().filter(|d| d.secs > 0.0).map(|d| (TaskId { kind, index: d.key.0 }, d.secs));
        return units_of(job, runs, done.len());
    }
    // A succeeded attempt was reported lost since: walk the attempts.
    let runs: Vec<(TaskId, f64)> = job
        .tasks(kind)
        .iter()
        .flat_map(|t| job.attempts_of(t).map(move |a| (t, a)))
        .filter(|(_, a)| a.state == AttemptState::Succeeded)
        .map(|(t, a)| (t.id, a.elapsed(now) as f64 / 1000.0))
        .filter(|(_, d)| *d > 0.0)
        .collect();
    units_of(job, runs.iter().copied(), runs.len())
}

/// `finished_units` of (task, seconds) runs, about `n` of them: per byte while every run so far
/// has its task's size (one pass, the usual case), per task from the start at the first without.
fn units_of(job: &JobState, runs: impl Iterator<Item = (TaskId, f64)> + Clone, n: usize) -> (Vec<u64>, bool) {
    let mut units = Vec::with_capacity(n);
    for (task, secs) in runs.clone() {
        match input_size(job, task) {
            Some(bytes) => units.push(order_key(secs / bytes)),
            None => {
                units.clear();
                units.extend(runs.map(|(_, secs)| order_key(secs)));
                return (units, false);
            }
        }
    }
    (units, true)
}

/// A task's input bytes as a float, when known and not zero.
fn input_size(job: &JobState, task: TaskId) -> Option<f64> {
    job.input_bytes(task).filter(|b| *b > 0).map(|b| b as f64)
}

/// What a fresh copy of a task of one kind would take, t_new, from the job's own attempts:
/// the median run time of the kind's finished attempts, else the start-up cost plus the work at
/// the median rate the running ones have shown since their first progress. Either is scaled by
/// the task's input bytes against its siblings' when every one involved has them (Mantri §5.4:
/// a task that is long because it has more data gains nothing from a copy).
#[derive(Clone, Copy)]
pub struct NewCopyTime {
    /// Seconds per byte (by bytes) or per task.
    per_unit: f64,
    by_bytes: bool,
    startup_s: f64,
    /// Whether `per_unit` is the finished attempts' run time (start-up included) or a rate.
    from_finished: bool,
}

/// `NewCopyTime::new` kept up to date as attempts finish, per task kind: the finished attempts'
/// units of work are taken for those listed since the last call only (the job lists them in the
/// order they finished), and their median read from a sorted list rather than selected again
/// from all of them: a scan a second over a phase of 200K finished tasks rebuilt and selected
/// 200K units each time one finished (a sixth of `auto`'s scans on a streamed job).
#[derive(Default)]
pub struct NewCopyTimeMemo {
    units: [FinishedUnits; 2],
}

/// The units of work of a kind's finished attempts (`finished_units`), as far as the job's list
/// of them has been read.
#[derive(Default)]
struct FinishedUnits {
    /// The inputs' epoch and how much of the list was read, when anything was.
    read: Option<(u64, usize)>,
    /// The runs read (attempts that ran for some time).
    runs: usize,
    /// Whether every run read has its task's size: then `per_byte` holds their seconds per byte
    /// as `order_key`s, sorted; else the units are the run times, which the job keeps sorted
    /// (`JobState::finished_run_ms_sorted`).
    by_bytes: bool,
    per_byte: Vec<u64>,
}

impl NewCopyTimeMemo {
    /// `NewCopyTime::new(job, kind, now, startup_s)`, the same in every figure.
    pub fn get(&mut self, job: &JobState, kind: TaskKind, now: Millis, startup_s: f64) -> Option<NewCopyTime> {
        let done = job.succeeded_attempts(kind);
        let kept = &mut self.units[kind as usize];
        // Only while every attempt recorded as succeeded still is: the runs then come from the
        // list alone (`finished_units`), not from `now`.
        if done.len() != job.succeeded_runtime_ms(kind).0 as usize {
            *kept = FinishedUnits::default();
            return NewCopyTime::new(job, kind, now, startup_s);
        }
        let epoch = job.inputs_epoch();
        let from = match kept.read {
            Some((at, read)) if at == epoch && read <= done.len() => read,
            // Sizes changed since (or nothing read yet): every unit is taken again.
            _ => {
                *kept = FinishedUnits { by_bytes: true, ..FinishedUnits::default() };
                0
            }
        };
        let mut new = Vec::with_capacity(if kept.by_bytes { done.len() - from } else { 0 });
        for d in done[from..].iter().filter(|d| d.secs > 0.0) {
            kept.runs += 1;
            if kept.by_bytes {
                match input_size(job, TaskId { kind, index: d.key.0 }) {
                    Some(bytes) => new.push(order_key(d.secs / bytes)),
                    // Per task from the first run without a size (`units_of`).
                    None => {
                        kept.by_bytes = false;
                        kept.per_byte = Vec::new();
                    }
                }
            }
        }
        if kept.by_bytes {
            new.sort_unstable();
            crate::model::merge_from(&mut kept.per_byte, &mut new, |k| *k);
        }
        kept.read = Some((epoch, done.len()));
        if kept.runs == 0 {
            // Nothing has finished that ran: t_new from the running attempts.
            return NewCopyTime::new(job, kind, now, startup_s);
        }
        // `percentile_of_keys`' median, read from the sorted units.
        let per_unit = if kept.by_bytes {
            median_of_sorted(kept.per_byte.len(), |k| from_order_key(kept.per_byte[k]))
        } else {
            // The same runs: every success's run time above zero, none reported lost since.
            let ms = job.finished_run_ms_sorted(kind);
            debug_assert_eq!(ms.len(), kept.runs, "the sorted run times are the runs");
            if ms.is_empty() {
                return NewCopyTime::new(job, kind, now, startup_s);
            }
            median_of_sorted(ms.len(), |k| ms[k] as f64 / 1000.0)
        };
        Some(NewCopyTime { per_unit, by_bytes: kept.by_bytes, startup_s, from_finished: true })
    }
}

impl NewCopyTime {
    pub fn new(job: &JobState, kind: TaskKind, now: Millis, startup_s: f64) -> Option<NewCopyTime> {
        let bytes = |t: TaskId| input_size(job, t);
        let (mut units, by_bytes) = finished_units(job, kind, now);
        if !units.is_empty() {
            let per_unit = percentile_of_keys(&mut units, 0.5)?;
            return Some(NewCopyTime { per_unit, by_bytes, startup_s, from_finished: true });
        }
        // No sibling has finished: rates since first progress, per unit of work. The running
        // tasks are read from their briefs where they have one, not from their records: until a
        // sibling finishes, every decision takes this again, over every task running. A job that
        // has reported no input size (`JobState::inputs_epoch` 0) has none to scale by: its
        // units, seconds per task (1 / rate), are taken in the same pass, and no task's size is
        // asked for (a read at random each).
        let sized = job.inputs_epoch() > 0;
        let mut rates: Vec<(TaskId, f64)> = Vec::new();
        let mut units: Vec<f64> = Vec::with_capacity(if sized { 0 } else { job.running_task_count(kind) as usize });
        let mut add = |id: TaskId, since: Option<Millis>, progress: f64| {
            let Some(since) = since else { return };
            let secs = (now - since) as f64 / 1000.0;
            if secs > 0.0 && progress > 0.0 {
                let rate = progress / secs;
                if sized {
                    rates.push((id, rate));
                } else {
                    units.push(1.0 / rate);
                }
            }
        };
        let tasks = job.tasks(kind);
        for index in job.running_task_indices(kind) {
            let id = TaskId { kind, index };
            match job.brief(id) {
                Some(b) => add(id, b.first_progress_at(), b.progress()),
                None => job.running_attempts_of(&tasks[index as usize]).for_each(|a| add(id, a.first_progress_at(), a.progress)),
            }
        }
        // Seconds per unit: 1 / rate for a whole task, scaled to per byte when every one has a size.
        let by_bytes = sized && !rates.is_empty() && rates.iter().all(|(t, _)| bytes(*t).is_some());
        if sized {
            units = rates.iter().map(|(t, r)| if by_bytes { 1.0 / (r * bytes(*t).unwrap()) } else { 1.0 / r }).collect();
        }
        let per_unit = percentile(&mut units, 0.5)?;
        Some(NewCopyTime { per_unit, by_bytes, startup_s, from_finished: false })
    }

    /// t_new for `task` in seconds; None when sizes are in use and the task's is unknown.
    pub fn t_new(&self, job: &JobState, task: TaskId) -> Option<f64> {
        let scale = if self.by_bytes { job.input_bytes(task).filter(|b| *b > 0)? as f64 } else { 1.0 };
        let work = self.per_unit * scale;
        Some(if self.from_finished { work } else { self.startup_s + work })
    }

    /// Whether t_new scales with the task's input bytes.
    pub fn by_bytes(&self) -> bool {
        self.by_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, Outcome};
    use crate::model::{kth_of_two, AttemptId, Phase, TaskId};
    use crate::{Config, Engine};

    /// The median less one occurrence of the judged attempt's own age: as removing the first
    /// occurrence from the sorted bounds and taking `stats::percentile`'s median, duplicates and
    /// the ends included.
    #[test]
    fn the_median_leaves_out_one_occurrence_of_the_own_age() {
        let mut next = crate::test_below();
        for case in 0..2_000 {
            let n = next(12) as usize;
            let mut bounds: Vec<f64> = (0..n).map(|_| next(6) as f64 * 0.5).collect();
            bounds.sort_unstable_by(f64::total_cmp);
            let bar = StartupBar::with_bounds(std::cell::OnceCell::from(None), true, NearMedian::of_sorted(&bounds));
            // The judged attempt's age is one of the bounds.
            let own = (case % 4 != 0 && n > 0).then(|| bounds[next(n as u64) as usize]);
            let mut rest = bounds.clone();
            if let Some(i) = own.and_then(|o| rest.iter().position(|b| *b == o)) {
                rest.remove(i);
            }
            let expected = crate::stats::percentile(&mut rest, 0.5);
            assert_eq!(bar.median_without(own), expected, "bounds {bounds:?} without {own:?}");
            // Taken once per decision for every own age there can be: the same number.
            if let Some(x) = own {
                assert_eq!(bar.median_without_age(x), expected, "bounds {bounds:?} without {x}, from the medians kept");
            }
        }
    }

    /// The start-up test of a running attempt in ms of age (`LateToStart`) is the test in floats
    /// at every age about each threshold, and about the held values where the count below
    /// changes: bounds of whole and fractional seconds, duplicates, few and many, factors below
    /// and above 1.
    #[test]
    fn the_start_up_test_in_ms_is_the_test_in_floats() {
        let mut next = crate::test_below();
        for _ in 0..1_500 {
            let n = next(12) as usize;
            let mut bounds: Vec<f64> = (0..n).map(|_| next(40) as f64 * [0.5, 0.001, 0.3][next(3) as usize]).collect();
            bounds.sort_unstable_by(f64::total_cmp);
            let bar = StartupBar::with_bounds(std::cell::OnceCell::from(None), true, NearMedian::of_sorted(&bounds));
            let factor = [1.5, 0.7, 1.0, 2.0 / 3.0][next(4) as usize];
            let test = LateToStart::new(&bar, factor);
            let floats = |age_ms: Millis| {
                let age_s = age_ms as f64 / 1000.0;
                bar.median_without_age(age_s).is_some_and(|m| age_s > factor * m)
            };
            let near = test.late_from.iter().chain(&test.value_below_from).filter(|&&t| t != NEVER).flat_map(|&t| t - 3..=t + 3);
            for age_ms in near.chain([0, 1, 999, 1_000, 1_001, 60_000]).filter(|&a| a >= 0) {
                assert_eq!(test.late(age_ms), floats(age_ms), "bounds {bounds:?}, factor {factor}, age {age_ms} ms");
            }
        }
    }

    /// No running silent attempt younger than `silent_late_from_ms` passes `started_or_late`,
    /// and past it some do (the least age is that of one of the two halves): on jobs of silent
    /// and reporting attempts, some finished, at moments from the first report to long after.
    #[test]
    fn no_silent_attempt_younger_than_the_bound_is_judged() {
        let mut next = crate::test_below();
        let mut bounded = 0;
        for _ in 0..60 {
            let mut e = Engine::new(Config::default());
            let n = 3 + next(30) as u32;
            for i in 0..n {
                let attempt = TaskId::map(i).attempt(0);
                let start = next(20_000) as Millis;
                e.ingest(start, Event::AttemptStarted { attempt, node: None, rack: None });
                if next(3) > 0 {
                    let at = start + 1 + next(15_000) as Millis;
                    e.ingest(at, Event::AttemptStatus { attempt, progress: 0.3, phase: Phase::Map });
                    if next(3) == 0 {
                        e.ingest(at + next(20_000) as Millis, Event::AttemptFinished { attempt, outcome: Outcome::Succeeded });
                    }
                }
            }
            let now = 40_000 + next(60_000) as Millis;
            let (factor, runtime_factor) = ([1.5, 0.5, 3.0][next(3) as usize], [1.25, 0.0, 4.0][next(3) as usize]);
            let (job, bar) = (e.job(), std::cell::OnceCell::new());
            let judged = |age_ms: Millis| Silence { shown: false, age_ms, running: true }.started_or_late(job, TaskKind::Map, now, factor, runtime_factor, &bar);
            judged(0);
            let from = bar.get().unwrap().silent_late_from_ms(job, TaskKind::Map, factor, runtime_factor);
            if from == NEVER {
                assert!(!judged(NEVER - 1), "no age is judged");
                continue;
            }
            bounded += 1;
            // `started_or_late` itself passes the younger over on the bound: the halves are asked
            // here, in their floats.
            let halves = |age_ms: Millis| {
                let (age_s, kept) = (age_ms as f64 / 1000.0, bar.get().unwrap());
                let by_run = Silence::late_by_run_time(job, TaskKind::Map, now, age_s, runtime_factor, kept);
                let by_start = kept.reported && kept.median_without_age(age_s).is_some_and(|m| age_s > factor * m);
                by_run || by_start
            };
            for age_ms in (from - 2_000).max(0)..from {
                assert!(!halves(age_ms), "age {age_ms} ms, below the bound {from}, is judged");
            }
            assert!(halves(from) || (from..from + 100_000).step_by(97).any(halves), "the bound {from} is below every age judged, far below");
            // Asked with a second factor, the bar passes nothing over on its bound and answers the
            // start-up test in floats.
            let (kept, other) = (bar.get().unwrap(), factor * 1.7);
            assert_eq!(kept.silent_late_from_ms(job, TaskKind::Map, other, runtime_factor), Millis::MIN);
            for age_ms in (0..120_000).step_by(997) {
                let age_s = age_ms as f64 / 1000.0;
                let floats = kept.reported && kept.median_without_age(age_s).is_some_and(|m| age_s > other * m);
                let silence = Silence { shown: false, age_ms, running: true };
                assert_eq!(silence.late_to_start(job, TaskKind::Map, now, other, &bar), floats, "a second factor, age {age_ms} ms");
            }
        }
        assert!(bounded > 20, "{bounded} jobs with a bound");
    }

    /// The values about the median found by halving over the start-ups and the silent ages are
    /// those of the two lists merged.
    #[test]
    fn the_values_about_the_median_of_two_lists_are_those_of_their_merge() {
        let mut next = crate::test_below();
        for _ in 0..2_000 {
            let mut shown: Vec<u32> = (0..next(9)).map(|_| next(8) as u32 * 500).collect();
            let mut silent: Vec<Millis> = (0..next(9)).map(|_| next(8) as Millis * 500).collect();
            shown.sort_unstable();
            silent.sort_unstable();
            let mut all: Vec<f64> = shown.iter().map(|&ms| ms as f64 / 1000.0).chain(silent.iter().map(|&ms| ms as f64 / 1000.0)).collect();
            all.sort_unstable_by(f64::total_cmp);
            let near = NearMedian::of(all.len(), |k| kth_of_two(&shown, &silent, k) as f64 / 1000.0);
            let merged = NearMedian::of_sorted(&all);
            assert_eq!((near.len, near.from), (merged.len, merged.from));
            for k in near.from..(near.from + 4).min(near.len) {
                assert_eq!(near.at(k), merged.at(k), "place {k} of {shown:?} and {silent:?}");
            }
        }
    }

    /// The bar read from the start times the job keeps is the bar read from the attempts, bit for
    /// bit, through a job's life: attempts starting (copies beside them now and then), reporting
    /// nothing, zero or progress, failing, killed or succeeding, judged at times before some starts
    /// (ages clamped at zero), under each policy that keeps them. A start 30 days after the first
    /// turns the kept times off; the bar is read from the attempts from then on. LATE keeps none.
    #[test]
    fn the_bar_from_kept_start_times_is_the_bar_from_the_attempts() {
        let mut next = crate::test_below();
        for round in 0..40 {
            let policy = ["ese", "mantri", "auto"][round % 3];
            let mut e = Engine::from_pairs([("rein.policy", policy)]).unwrap().0;
            let tasks = 20 + next(200) as u32;
            e.ingest(0, Event::JobCreated { maps: tasks, reduces: tasks / 4 });
            let mut live: Vec<AttemptId> = Vec::new();
            let mut attempts = vec![0u32; (tasks + tasks / 4) as usize];
            let mut now: Millis = 0;
            for step in 0..600 {
                now += next(400) as Millis;
                let at = now - next(3) as Millis * 700;
                match next(10) {
                    0..=2 => {
                        let i = next(tasks as u64 + tasks as u64 / 4) as u32;
                        let task = if i < tasks { TaskId::map(i) } else { TaskId::reduce(i - tasks) };
                        let a = task.attempt(attempts[i as usize]);
                        attempts[i as usize] += 1;
                        e.ingest(at, Event::AttemptStarted { attempt: a, node: Some(format!("n{}:1", next(9))), rack: None });
                        live.push(a);
                    }
                    3..=6 if !live.is_empty() => {
                        let a = live[next(live.len() as u64) as usize];
                        let progress = [0.0, 0.05, 0.3, 0.7][next(4) as usize];
                        e.ingest(at, Event::AttemptStatus { attempt: a, progress, phase: Phase::Map });
                    }
                    7..=9 if !live.is_empty() => {
                        let a = live.swap_remove(next(live.len() as u64) as usize);
                        let outcome = [Outcome::Succeeded, Outcome::Succeeded, Outcome::Failed, Outcome::Killed][next(4) as usize];
                        e.ingest(at, Event::AttemptFinished { attempt: a, outcome });
                    }
                    _ => {}
                }
                if round % 8 == 7 && step == 300 {
                    assert!(e.job().running_starts().is_some(), "{policy} keeps the start times");
                    let a = TaskId::map(0).attempt(attempts[0]);
                    attempts[0] += 1;
                    e.ingest(now + 30 * 86_400_000, Event::AttemptStarted { attempt: a, node: None, rack: None });
                    live.push(a);
                    assert!(e.job().running_starts().is_none(), "a start 30 days on turns the kept times off");
                }
                if next(5) == 0 {
                    for kind in TaskKind::ALL {
                        let judged = now + next(3) as Millis * 500 - 500;
                        let (kept, read) = (StartupBar::of(e.job(), kind, judged), StartupBar::of_read(e.job(), kind, judged));
                        let bits = |b: &StartupBar| {
                            let median = b.run_median_s(e.job(), kind, judged).map(f64::to_bits);
                            (median, b.reported, b.bounds.len, b.bounds.from, b.bounds.values.map(f64::to_bits))
                        };
                        assert_eq!(bits(&kept), bits(&read), "{policy}, round {round}, step {step}, {kind:?} at {judged}");
                        // The bound on the median leaves it untaken only where the test it stands
                        // for fails: ages about the least run time and the median, factors 0 to 2.
                        let median = kept.run_median_s(e.job(), kind, judged);
                        let least = e.job().least_finished_run_ms(kind).map(|ms| ms as f64 / 1000.0);
                        assert_eq!(least, e.job().finished_run_ms_sorted(kind).first().map(|&ms| ms as f64 / 1000.0));
                        for _ in 0..8 {
                            let factor = next(9) as f64 * 0.25;
                            let around = [least, median].into_iter().flatten().map(|s| s * factor).collect::<Vec<_>>();
                            let age_s = match around.get(next(3) as usize) {
                                Some(&s) => s + [-0.001, 0.0, 0.001][next(3) as usize],
                                None => next(20) as f64 * 0.5,
                            };
                            let fresh = StartupBar::of(e.job(), kind, judged);
                            let by_bound = Silence::late_by_run_time(e.job(), kind, judged, age_s, factor, &fresh);
                            let by_median = median.is_some_and(|m| age_s > factor * m);
                            assert_eq!(by_bound, by_median, "{policy}, round {round}, step {step}, {kind:?}: age {age_s} s, factor {factor}");
                        }
                    }
                }
            }
        }
        let mut late = Engine::from_pairs([("rein.policy", "late")]).unwrap().0;
        late.ingest(0, Event::AttemptStarted { attempt: TaskId::map(0).attempt(0), node: None, rack: None });
        assert!(late.job().running_starts().is_none(), "LATE keeps no start times");
    }

    #[test]
    fn resource_aware_before_the_last_wave_greedy_in_it_never_below_start_up() {
        // One copy running: RAS needs t_rem > 2·t_new.
        assert_eq!(grass_allows(25.0, 10.0, 1, 5.0, false), Some(GrassRule::ResourceAware));
        assert_eq!(grass_allows(15.0, 10.0, 1, 5.0, false), None);
        // Two copies running: 2·t_rem > 3·t_new.
        assert_eq!(grass_allows(16.0, 10.0, 2, 5.0, false), Some(GrassRule::ResourceAware));
        assert_eq!(grass_allows(15.0, 10.0, 2, 5.0, false), None);
        // The last wave: any copy expected to finish first.
        assert_eq!(grass_allows(15.0, 10.0, 1, 5.0, true), Some(GrassRule::Greedy));
        assert_eq!(grass_allows(9.0, 10.0, 1, 5.0, true), None);
        // Less left than a copy takes to start: never, whatever t_new says.
        assert_eq!(grass_allows(4.0, 1.0, 1, 5.0, true), None);
        assert_eq!(grass_allows(f64::INFINITY, 10.0, 1, 5.0, false), Some(GrassRule::ResourceAware));
    }

    #[test]
    fn start_up_cost_is_measured_from_launch_to_first_progress() {
        let mut e = Engine::new(Config::default());
        assert_eq!(startup_cost_s(e.job(), 10_000), (10.0, false), "the default before any progress");
        for (i, startup) in [(0u32, 6_000), (1, 8_000), (2, 30_000)] {
            let a = TaskId::map(i).attempt(0);
            e.ingest(0, Event::AttemptStarted { attempt: a, node: None, rack: None });
            e.ingest(startup, Event::AttemptStatus { attempt: a, progress: 0.0, phase: Phase::Map });
            e.ingest(startup + 1000, Event::AttemptStatus { attempt: a, progress: 0.1, phase: Phase::Map });
        }
        assert_eq!(startup_cost_s(e.job(), 10_000), (9.0, true), "the median of 7, 9 and 31 s");
    }

    /// The memo's t_new is `NewCopyTime::new`'s as the job changes under it: more attempts
    /// finished, an input size set, a succeeded attempt reported lost, none finished at all.
    #[test]
    fn the_memo_of_t_new_follows_the_job() {
        let mut e = Engine::new(Config::default());
        let mut memo = NewCopyTimeMemo::default();
        let check = |e: &Engine, memo: &mut NewCopyTimeMemo, now: Millis| {
            let kept = memo.get(e.job(), TaskKind::Map, now, 5.0).map(|m| (m.t_new(e.job(), TaskId::map(9)), m.by_bytes()));
            let fresh = NewCopyTime::new(e.job(), TaskKind::Map, now, 5.0).map(|m| (m.t_new(e.job(), TaskId::map(9)), m.by_bytes()));
            assert_eq!(kept, fresh, "at {now}");
        };
        for i in 0..10 {
            e.ingest(0, Event::TaskInput { task: TaskId::map(i), bytes: (64 + i as u64) << 20 });
            e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{i}:1")), rack: None });
            e.ingest(3_000, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress: 0.1, phase: Phase::Map });
        }
        check(&e, &mut memo, 10_000);
        check(&e, &mut memo, 12_000);
        for i in 0..6 {
            e.ingest(20_000 + 1_000 * i as i64, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
            check(&e, &mut memo, 30_000);
            check(&e, &mut memo, 31_000);
        }
        e.ingest(32_000, Event::TaskInput { task: TaskId::map(2), bytes: 1 << 30 });
        check(&e, &mut memo, 33_000);
        e.ingest(34_000, Event::AttemptFinished { attempt: TaskId::map(3).attempt(0), outcome: Outcome::Killed });
        check(&e, &mut memo, 35_000);
        check(&e, &mut memo, 36_000);
    }

    /// Kept up to date over many finishes in any order, read at random points, the memo's t_new is
    /// `NewCopyTime::new`'s: with every task's size (per byte), with none (per task), and with a
    /// task without one finishing among sized ones, sizes arriving on the way.
    #[test]
    fn the_memo_of_t_new_follows_a_stream_of_finishes() {
        let mut next = crate::test_below();
        for sizes in ["all", "none", "some"] {
            let n = 400u32;
            let mut e = Engine::new(Config::default());
            let mut memo = NewCopyTimeMemo::default();
            for i in 0..n {
                let sized = match sizes {
                    "all" => true,
                    "none" => false,
                    _ => i != 7,
                };
                if sized {
                    e.ingest(0, Event::TaskInput { task: TaskId::map(i), bytes: (1 + next(200)) << 20 });
                }
                e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{}:1", i % 9)), rack: None });
                e.ingest(1_000, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress: 0.1, phase: Phase::Map });
            }
            let mut order: Vec<u32> = (0..n).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, next(i as u64 + 1) as usize);
            }
            let mut now = 2_000;
            for (k, &i) in order.iter().enumerate() {
                now += next(300) as Millis;
                e.ingest(now, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
                if sizes == "some" && k == n as usize / 2 {
                    e.ingest(now, Event::TaskInput { task: TaskId::map(7), bytes: 3 << 20 });
                }
                if next(6) == 0 {
                    let kept = memo.get(e.job(), TaskKind::Map, now, 5.0).map(|m| (m.per_unit.to_bits(), m.by_bytes(), m.from_finished));
                    let fresh = NewCopyTime::new(e.job(), TaskKind::Map, now, 5.0).map(|m| (m.per_unit.to_bits(), m.by_bytes(), m.from_finished));
                    assert_eq!(kept, fresh, "{sizes}: after {} finished", k + 1);
                }
            }
        }
    }

    #[test]
    fn a_task_with_no_progress_is_judged_only_once_it_is_late_to_start_against_its_siblings() {
        let mut e = Engine::new(Config::default());
        let (quick, slow) = (TaskId::map(0).attempt(0), TaskId::map(1).attempt(0));
        e.ingest(0, Event::AttemptStarted { attempt: quick, node: None, rack: None });
        e.ingest(0, Event::AttemptStarted { attempt: slow, node: None, rack: None });
        let judged = |e: &Engine, now| {
            Silence::of(e.job().attempt(slow).unwrap(), now).started_or_late(e.job(), TaskKind::Map, now, 2.0, 1.25, &Default::default())
        };
        assert!(!judged(&e, 30_000), "no sibling has started either: nothing to compare with");
        e.ingest(10_000, Event::AttemptStatus { attempt: quick, progress: 0.05, phase: Phase::Map });
        assert!(!judged(&e, 20_000), "twice the siblings' 10 s start-up not reached");
        assert!(judged(&e, 20_001));
        assert!(Silence::of(e.job().attempt(slow).unwrap(), 1).started_or_late(e.job(), TaskKind::Map, 1, 0.0, 1.25, &Default::default()), "factor 0: LATE as printed");
    }

    /// Early in a wave only the quickest starters have reported; the siblings still silent count
    /// at their age so far, so one quick sibling does not make every other look late.
    #[test]
    fn siblings_still_silent_count_at_their_age_in_the_start_up_median() {
        let mut e = Engine::new(Config::default());
        let ids: Vec<_> = (0..5).map(|i| TaskId::map(i).attempt(0)).collect();
        for a in &ids {
            e.ingest(0, Event::AttemptStarted { attempt: *a, node: None, rack: None });
        }
        e.ingest(4_000, Event::AttemptStatus { attempt: ids[0], progress: 0.05, phase: Phase::Map });
        let judged = |e: &Engine, now| Silence::of(e.job().attempt(ids[4]).unwrap(), now).started_or_late(e.job(), TaskKind::Map, now, 1.5, 1.25, &Default::default());
        // Siblings: 4 s (reported) and three silent at 7 s: the median is 7 s, not 4 s.
        assert!(!judged(&e, 7_000), "7 s is not 1.5 times the siblings' start-up");
        for a in &ids[1..4] {
            e.ingest(8_000, Event::AttemptStatus { attempt: *a, progress: 0.05, phase: Phase::Map });
        }
        // Now 4, 8, 8, 8 s: median 8 s, so the last is late after 12 s.
        assert!(!judged(&e, 12_000));
        assert!(judged(&e, 12_001));
    }

    /// Siblings that have finished outright set a bound too: an attempt silent for 1.25 times
    /// their median run time is late, even before 1.5 start-ups have passed. The median is
    /// Kaplan–Meier's, the running siblings counted as at least their age: the first sibling to
    /// finish alone (the quickest) does not make the others late.
    #[test]
    fn an_attempt_silent_for_longer_than_its_siblings_take_to_finish_is_late() {
        let mut e = Engine::new(Config::default());
        let ids: Vec<_> = (0..4).map(|i| TaskId::map(i).attempt(0)).collect();
        for a in &ids {
            e.ingest(0, Event::AttemptStarted { attempt: *a, node: None, rack: None });
        }
        e.ingest(7_000, Event::AttemptStatus { attempt: ids[0], progress: 0.5, phase: Phase::Map });
        e.ingest(8_000, Event::AttemptFinished { attempt: ids[0], outcome: Outcome::Succeeded });
        e.ingest(9_000, Event::AttemptStatus { attempt: ids[1], progress: 0.5, phase: Phase::Map });
        let judged = |e: &Engine, now| {
            Silence::of(e.job().attempt(ids[3]).unwrap(), now).started_or_late(e.job(), TaskKind::Map, now, 1.5, 1.25, &Default::default())
        };
        assert!(!judged(&e, 9_500), "one of four has finished, in 8 s: the median run time is not known yet");
        e.ingest(10_000, Event::AttemptFinished { attempt: ids[1], outcome: Outcome::Succeeded });
        // Run times 8 and 10 s, two still running: median 10 s. Start-ups 7 and 9 s: 13.5 s.
        assert!(!judged(&e, 12_500), "12.5 s: not 1.25 times the siblings' 10 s");
        assert!(judged(&e, 12_501), "silent for 1.25 times as long as its siblings take to finish");
        assert!(
            Silence::of(e.job().attempt(ids[3]).unwrap(), 10_001).started_or_late(e.job(), TaskKind::Map, 10_001, 1.5, 0.0, &Default::default()),
            "factor 0: as soon as the median is known"
        );
    }

    #[test]
    fn a_reduce_waits_while_maps_run_and_for_the_settling_time_after_the_last() {
        let mut e = Engine::new(Config::default());
        e.ingest(0, Event::JobCreated { maps: 2, reduces: 1 });
        for i in 0..2 {
            e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: None, rack: None });
        }
        e.ingest(1_000, Event::AttemptStarted { attempt: TaskId::reduce(0).attempt(0), node: None, rack: None });
        e.ingest(8_000, Event::AttemptFinished { attempt: TaskId::map(0).attempt(0), outcome: Outcome::Succeeded });
        let waits = |e: &Engine, now| shuffle_waits_on_maps(e.job(), TaskKind::Reduce, now, 5_000);
        assert!(waits(&e, 9_000), "a map still runs");
        assert!(!shuffle_waits_on_maps(e.job(), TaskKind::Map, 9_000, 5_000), "only reduces wait");
        e.ingest(10_000, Event::AttemptFinished { attempt: TaskId::map(1).attempt(0), outcome: Outcome::Succeeded });
        assert!(waits(&e, 14_999), "the last map ended 4.999 s ago");
        assert!(!waits(&e, 15_000), "settled");
        assert!(!shuffle_waits_on_maps(e.job(), TaskKind::Reduce, 10_001, 0), "no settling time asked for");
        assert_eq!(shuffle_wait(e.job(), TaskKind::Reduce, 14_999, 5_000), ShuffleWait::Settling);
        assert_eq!(shuffle_wait(e.job(), TaskKind::Reduce, 15_000, 5_000), ShuffleWait::No);
    }

    /// Before any sibling has finished, t_new's work is the median of the running tasks' seconds
    /// per unit since their first progress: per byte when every one has a size, per task when
    /// none has or only some have.
    #[test]
    fn t_new_before_any_finish_is_per_byte_only_when_every_running_task_has_a_size() {
        let progress = [0.2, 0.5, 0.4];
        let mb = [100u64, 400, 200];
        for sized in [0, 3, 2] {
            let mut e = Engine::new(Config::default());
            for i in 0..3u32 {
                if i < sized {
                    e.ingest(0, Event::TaskInput { task: TaskId::map(i), bytes: mb[i as usize] << 20 });
                }
                let attempt = TaskId::map(i).attempt(0);
                e.ingest(0, Event::AttemptStarted { attempt, node: None, rack: None });
                e.ingest(1_000, Event::AttemptStatus { attempt, progress: 0.01, phase: Phase::Map });
                e.ingest(11_000, Event::AttemptStatus { attempt, progress: progress[i as usize], phase: Phase::Map });
            }
            let model = NewCopyTime::new(e.job(), TaskKind::Map, 21_000, 5.0).unwrap();
            // 20 s since the first progress, at each task's progress then.
            let mut units: Vec<f64> = (0..3)
                .map(|i| {
                    let rate = progress[i] / 20.0;
                    if sized == 3 { 1.0 / (rate * (mb[i] << 20) as f64) } else { 1.0 / rate }
                })
                .collect();
            units.sort_by(f64::total_cmp);
            assert_eq!((model.per_unit, model.by_bytes(), model.from_finished), (units[1], sized == 3, false), "{sized} of 3 sized");
        }
    }

    #[test]
    fn t_new_scales_with_input_so_a_task_long_for_its_data_is_not_worth_a_copy() {
        let mut e = Engine::new(Config::default());
        for (i, mb) in [(0u32, 100u64), (1, 100), (2, 400)] {
            e.ingest(0, Event::TaskInput { task: TaskId::map(i), bytes: mb << 20 });
            e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: None, rack: None });
        }
        e.ingest(20_000, Event::AttemptFinished { attempt: TaskId::map(0).attempt(0), outcome: Outcome::Succeeded });
        let model = NewCopyTime::new(e.job(), TaskKind::Map, 20_000, 5.0).unwrap();
        assert!(model.by_bytes());
        let big = model.t_new(e.job(), TaskId::map(2)).unwrap();
        assert!((big - 80.0).abs() < 1e-9, "four times the data of a 20 s sibling: {big}");
    }
}
