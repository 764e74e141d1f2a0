//! Time-left estimators, selectable per policy (`rein.<policy>.estimator`).
//!
//! - progress rate (LATE §4): rate = score / elapsed, time left = (1 − score) / rate;
//! - phase-aware (LATE §4.2): a reduce's current phase at its own rate, phases it has not reached
//!   at the average duration other attempts took for them;
//! - Mantri (§5.5): a moving average of the recent rate, no report for longer than Δ counted as
//!   no progress, plus the wrap-up time earlier tasks spent after reading all their input;
//! - exponential smoothing (Hadoop's estimator of that name): an exponentially smoothed rate.

use crate::config::EstimatorKind;
use crate::model::{Attempt, Brief, JobState, Millis, Phase, TaskKind};

/// Progress per second of an attempt at `now`: its score over the time it has run
/// (for a finished attempt, over its whole run). Zero for an attempt that has not run yet.
pub fn progress_rate(a: &Attempt, now: Millis) -> f64 {
    rate_over(a.progress, a.elapsed(now))
}

/// `progress_rate` of a task's one running attempt, from its brief.
pub fn brief_progress_rate(b: &Brief, now: Millis) -> f64 {
    rate_over(b.progress(), b.elapsed(now))
}

/// Whether a rate is above zero and finite (false for NaN). `rate - rate` is zero for a finite
/// rate and NaN for an infinite one or NaN: written with `is_finite` or against infinity, the
/// test was compiled as one on the number's bits, some twenty instructions for every running
/// task an estimate reads.
#[inline]
#[allow(clippy::eq_op)] // `rate - rate` on purpose: NaN for an infinite rate.
fn positive_finite(rate: f64) -> bool {
    rate > 0.0 && rate - rate == 0.0
}

fn rate_over(progress: f64, elapsed_ms: Millis) -> f64 {
    let secs = elapsed_ms as f64 / 1000.0;
    if secs <= 0.0 {
        return 0.0;
    }
    progress / secs
}

/// The attempt's mean pace over its reading phase, launch to `done` (start-up included, as in
/// its elapsed time): the score it had when its input was read over the time that took.
fn reading_rate(a: &Attempt, done: Millis) -> Option<f64> {
    let secs = (done - a.start) as f64 / 1000.0;
    let rate = a.input_done_progress / secs;
    positive_finite(rate).then_some(rate)
}

/// The score at which a Hadoop task has read its input, less a thousandth for the rounding of
/// its single-precision reports: a map's MAP phase weighs 0.667 of its score when its job has
/// reduces (`MapTask`), a reduce's SHUFFLE a third. A map of a map-only job reads for all of its
/// score, and is past this by the time it has read its input.
fn reading_end_score(kind: TaskKind) -> f64 {
    match kind {
        TaskKind::Map => 0.667 - 1e-3,
        TaskKind::Reduce => 1.0 / 3.0 - 1e-3,
    }
}

fn left_at(progress: f64, rate: f64) -> f64 {
    if !positive_finite(rate) {
        return f64::INFINITY;
    }
    (1.0 - progress).max(0.0) / rate
}

/// Job-wide statistics the estimators share, computed once per decision.
pub struct Estimator {
    kind: EstimatorKind,
    now: Millis,
    delta_ms: Millis,
    /// Mean seconds from "input read" to finish, per task kind (Mantri's t_wrapup), and over how
    /// many finished attempts.
    wrapup_s: [f64; 2],
    wrapup_n: [u32; 2],
    /// Mean progress score at which attempts had read their input, per task kind (a map's
    /// reading phase is two thirds of its score when the job has reduces, all of it otherwise).
    read_end: [f64; 2],
    /// Mean seconds each reduce phase took, over attempts that went through it.
    phase_s: [Option<f64>; Phase::COUNT],
    /// Mantri: keep extrapolating an attempt's own rate once its input is read, and for the
    /// wrap-up before any sibling has finished (`rein.mantri.extrapolate-after-read`).
    extrapolate_after_read: bool,
    /// Mantri: a window of reports spanning less than this reads no slower than the attempt's
    /// average since launch (`rein.mantri.min-window-ms`).
    min_window_ms: Millis,
}

/// `rein.mantri.min-window-ms`'s default.
pub const MIN_WINDOW_MS: Millis = 3_000;

/// What the Mantri and phase-aware estimates read of the job's succeeded attempts: the means of
/// `Estimator`'s fields of the same names.
#[derive(Clone, Copy, Debug, PartialEq)]
struct FinishedMeans {
    wrapup_s: [f64; 2],
    wrapup_n: [u32; 2],
    read_end: [f64; 2],
    phase_s: [Option<f64>; Phase::COUNT],
}

impl FinishedMeans {
    /// Nothing finished: what the estimates assume then.
    const NONE: FinishedMeans =
        FinishedMeans { wrapup_s: [0.0; 2], wrapup_n: [0; 2], read_end: [1.0; 2], phase_s: [None; Phase::COUNT] };

    /// From a walk over every succeeded attempt of the job.
    fn of(job: &JobState) -> FinishedMeans {
        let mut sums = FinishedSums::default();
        sums.add_new(job);
        sums.means()
    }
}

/// The sums behind [`FinishedMeans`], over the job's succeeded attempts up to `counted` of each
/// kind, in the order they finished (`JobState::succeeded_attempts`): a sum carried on from there
/// over the attempts listed since is the sum a walk over all of them takes, figure for figure.
#[derive(Clone, Copy, Debug, Default)]
struct FinishedSums {
    counted: [usize; 2],
    wrapup: [(f64, u32); 2],
    read_end: [(f64, u32); 2],
    /// Only reduces have phases.
    phases: [(f64, u32); Phase::COUNT],
}

impl FinishedSums {
    /// Adds the attempts listed since the last call.
    fn add_new(&mut self, job: &JobState) {
        for kind in TaskKind::ALL {
            let k = kind as usize;
            let done = job.succeeded_attempts(kind);
            for d in &done[self.counted[k]..] {
                if let Some((w, p)) = d.wrapup() {
                    self.wrapup[k].0 += w;
                    self.wrapup[k].1 += 1;
                    self.read_end[k].0 += p;
                    self.read_end[k].1 += 1;
                }
                for (p, secs) in REDUCE_PHASES.iter().zip(d.phases()) {
                    if let Some(s) = secs {
                        self.phases[p.index()].0 += s;
                        self.phases[p.index()].1 += 1;
                    }
                }
            }
            self.counted[k] = done.len();
        }
    }

    fn means(&self) -> FinishedMeans {
        let mean = |(sum, n): (f64, u32)| if n > 0 { Some(sum / n as f64) } else { None };
        FinishedMeans {
            wrapup_s: self.wrapup.map(|w| mean(w).unwrap_or(0.0)),
            wrapup_n: self.wrapup.map(|w| w.1),
            read_end: self.read_end.map(|r| mean(r).unwrap_or(1.0)),
            phase_s: self.phases.map(mean),
        }
    }
}

/// A policy's [`Estimator`]s, one a decision, with the sums over the job's succeeded attempts
/// carried on over those that succeeded since the last (the job's list of them only grows, in
/// the order they finished): a scan a second over a job with 100K finished attempts walked all
/// of them each time they changed (a tenth of Mantri's and ESE's scan at 100K tasks, more on a
/// streamed job, where they change every second).
#[derive(Default)]
pub struct EstimatorMemo {
    sums: FinishedSums,
}

impl EstimatorMemo {
    /// `Estimator::new(kind, job, now, delta_ms)`, the same in every figure.
    pub fn estimator(&mut self, kind: EstimatorKind, job: &JobState, now: Millis, delta_ms: Millis) -> Estimator {
        if !Estimator::reads_means(kind) {
            return Estimator::with_means(kind, FinishedMeans::NONE, now, delta_ms);
        }
        self.sums.add_new(job);
        Estimator::with_means(kind, self.sums.means(), now, delta_ms)
    }
}

const REDUCE_PHASES: [Phase; 3] = [Phase::Shuffle, Phase::Sort, Phase::Reduce];

impl Estimator {
    /// `delta_ms` is the report period after which a silent attempt is taken to have stalled.
    pub fn new(kind: EstimatorKind, job: &JobState, now: Millis, delta_ms: Millis) -> Estimator {
        // Only the Mantri and phase-aware estimates read these means: the others (LATE's progress
        // rate above all) skip the walk over the succeeded attempts.
        let means = if Estimator::reads_means(kind) { FinishedMeans::of(job) } else { FinishedMeans::NONE };
        Estimator::with_means(kind, means, now, delta_ms)
    }

    fn reads_means(kind: EstimatorKind) -> bool {
        matches!(kind, EstimatorKind::Mantri | EstimatorKind::PhaseAware)
    }

    fn with_means(kind: EstimatorKind, means: FinishedMeans, now: Millis, delta_ms: Millis) -> Estimator {
        let FinishedMeans { wrapup_s, wrapup_n, read_end, phase_s } = means;
        Estimator { kind, now, delta_ms, wrapup_s, wrapup_n, read_end, phase_s, extrapolate_after_read: true, min_window_ms: MIN_WINDOW_MS }
    }

    /// Whether the Mantri estimator extrapolates past the input (true) or takes the wrap-up
    /// from earlier tasks only, as Mantri §5.5 prints it (false).
    pub fn extrapolate_after_read(mut self, on: bool) -> Estimator {
        self.extrapolate_after_read = on;
        self
    }

    /// The Mantri estimator reads a window of reports spanning less than `ms` as no slower than
    /// the attempt's average since launch; 0 takes the window's rate alone.
    pub fn min_window_ms(mut self, ms: Millis) -> Estimator {
        self.min_window_ms = ms;
        self
    }

    /// `time_left_s` of a running attempt from its progress and `progress_rate` alone, when the
    /// estimator needs no more (the progress-rate estimator, and the phase-aware one for maps);
    /// None otherwise.
    pub fn time_left_at(&self, kind: TaskKind, progress: f64, rate: f64) -> Option<f64> {
        match (self.kind, kind) {
            (EstimatorKind::ProgressRate, _) | (EstimatorKind::PhaseAware, TaskKind::Map) => Some(left_at(progress, rate)),
            _ => None,
        }
    }

    /// Estimated seconds until a running attempt finishes; infinite when it shows no progress.
    pub fn time_left_s(&self, kind: TaskKind, a: &Attempt) -> f64 {
        match self.kind {
            EstimatorKind::ProgressRate => left_at(a.progress, progress_rate(a, self.now)),
            EstimatorKind::ExpSmoothing => {
                left_at(a.progress, a.smoothed_rate().unwrap_or_else(|| progress_rate(a, self.now)))
            }
            EstimatorKind::Mantri => self.mantri(kind, a),
            EstimatorKind::PhaseAware => match kind {
                TaskKind::Map => left_at(a.progress, progress_rate(a, self.now)),
                TaskKind::Reduce => self.phase_aware(a),
            },
        }
    }

    /// Whether `time_left_s(kind, a)` of a task's one running attempt `a` is certainly at most
    /// `bar`, told from the task's brief `b` without dividing (and without reading the task's
    /// record); false when it cannot be told so. A scan asks it of every running task before
    /// estimating it, against the bar a copy must clear: an estimate is four divisions, each
    /// waiting on the last, and on a healthy job of 100K running tasks none clears the bar.
    ///
    /// Told only for the Mantri estimate's usual case: an attempt still reading its input, whose
    /// window of reports spans some time and some progress, the last report within Δ. Its
    /// estimate is then `work / rate (+ plus)`, the rate being Δp / (Δt / 1000), each operation
    /// rounded to the nearest float: it exceeds the exact `work · Δt / (1000 · Δp) (+ plus)` by
    /// a relative 10⁻¹⁵ at most. The test compares `work · Δt` with `(bar·(1 − 10⁻⁹) − plus) ·
    /// 1000 · Δp`, each product within a relative 10⁻¹⁵ of its exact value (all are normal floats
    /// here): when it holds, the estimate is below the bar by far more than these roundings. A
    /// window shorter than `rein.mantri.min-window-ms` may be read at the faster rate since
    /// launch instead, which only lowers the estimate.
    pub fn brief_time_left_clearly_at_most(&self, kind: TaskKind, b: &Brief, bar: f64) -> bool {
        if self.kind != EstimatorKind::Mantri || !(bar > 1e-200 && bar < 1e200) || b.input_done() {
            return false;
        }
        if self.now - b.reported_at() > self.delta_ms {
            return false;
        }
        let (Some((t0, p0)), Some((t1, p1))) = (b.first_report(), b.last_report()) else { return false };
        let dp = (p1 - p0).max(0.0);
        if t1 <= t0 || t1 - t0 > 1 << 40 || !(dp > 1e-100 && dp < 1e100) {
            return false;
        }
        let k = kind as usize;
        let read_end = self.read_end[k];
        let read = (read_end - b.progress()).max(0.0);
        // What `mantri` divides by the rate, and what it adds to the quotient.
        let (work, plus) = if self.extrapolate_after_read && self.wrapup_n[k] == 0 {
            (read + (1.0 - read_end).max(0.0), 0.0)
        } else {
            (read, self.wrapup_s[k])
        };
        if !(work < 1e100 && (0.0..1e200).contains(&plus)) {
            return false;
        }
        let room = bar * (1.0 - 1e-9) - plus;
        room > 0.0 && work * (t1 - t0) as f64 <= room * 1000.0 * dp
    }

    /// Mantri §5.5: t_rem = time to read the rest at the moving-average rate + t_wrapup.
    /// The paper prints the first term as t_elapsed·d/d_read — the *total* reading time — while
    /// saying it "captures the remaining time to process data"; rein uses the remaining time.
    ///
    /// t_wrapup "is estimated from the behavior of earlier tasks in the phase". Taken literally
    /// (`extrapolate_after_read` off), a task that has read its input is given the siblings' mean
    /// wrap-up less the time since, whatever its own pace — a reduce whose sort and reduce crawl
    /// on a slow node looks done — and before any sibling has finished the wrap-up is zero. With
    /// it on (rein's default), once the input is read and the attempt's score has moved since,
    /// the pace of its score since then is extrapolated over the rest of it, and before any
    /// sibling has finished the wrap-up is extrapolated at the reading rate.
    ///
    /// Only the score's movement after the input was read is the wrap-up's pace: a moving average
    /// that reaches back into the reading phase mixes two paces, and a score that has not moved
    /// since says nothing of it. A Hadoop map's score stands at 2/3 from the end of its map phase
    /// while it sorts, combines and spills its output (the SORT third moves only while merging
    /// spills), reporting every second all the while; the window of the last reports then fills
    /// with that standstill, and extrapolating it once made a map one second from its end look
    /// 80 s from it. With no movement since the input was read, the siblings' wrap-up is used as
    /// §5.5 prints it until the wrap-up has overrun theirs (then the overrun again), and before any
    /// sibling has finished, the rest goes at the pace the attempt read its input (and takes no
    /// less than the wrap-up has run so far).
    fn mantri(&self, kind: TaskKind, a: &Attempt) -> f64 {
        let k = kind as usize;
        let finished_wrapup = self.wrapup_n[k] > 0;
        let wrapup = self.wrapup_s[k];
        if let Some(done) = a.input_done_at() {
            let literal = (wrapup - (self.now - done) as f64 / 1000.0).max(0.0);
            if !self.extrapolate_after_read {
                return literal;
            }
            return match self.rate_since(kind, a, done) {
                Some(r) => (1.0 - a.progress).max(0.0) / r,
                // No movement since the input was read: nothing of its own wrap-up pace yet, so
                // the siblings' wrap-up less the time since. That reaches 0 and stays there: a
                // map whose sort and spill crawl on a bad node (its score stands at 2/3 until
                // its end) would never be copied. A wrap-up that has overrun the siblings' is
                // taken to need as long again as it has overrun them, and grows.
                None if finished_wrapup => literal.max((self.now - done) as f64 / 1000.0 - wrapup),
                // Nor any sibling's: the rest at the pace it read its input. Not the moving
                // average of its last reports, which by now hold the standstill: in the skew
                // bench the 12-MB map, a second into its sort at 2/3, read as 33 s from its end
                // (against 27 s for a fresh copy) and was asked a copy; it ended 1.3 s later.
                // A wrap-up already longer than that is taken to need as long again as it has
                // run, so that one stuck on a node gone bad still grows into a straggler.
                None => match reading_rate(a, done) {
                    Some(r) => ((1.0 - a.progress).max(0.0) / r).max((self.now - done).max(0) as f64 / 1000.0),
                    None => f64::INFINITY,
                },
            };
        }
        self.mantri_reading(k, a.progress, self.moving_rate(a))
    }

    /// `mantri` of an attempt still reading its input, from its progress and moving rate.
    fn mantri_reading(&self, k: usize, progress: f64, rate: Option<f64>) -> f64 {
        let Some(rate) = rate else { return f64::INFINITY };
        let read_end = self.read_end[k];
        let read_left = (read_end - progress).max(0.0) / rate;
        if self.extrapolate_after_read && self.wrapup_n[k] == 0 {
            return read_left + (1.0 - read_end).max(0.0) / rate;
        }
        read_left + self.wrapup_s[k]
    }

    /// `time_left_s` of a task's one running attempt, from the task's brief alone, when the
    /// brief holds all the estimate reads: the progress-rate estimate (and the phase-aware one
    /// for maps), and the Mantri estimate of an attempt still reading its input. None otherwise.
    /// The same figure, bit for bit: the same operations on the same values (the brief keeps
    /// the attempt's window ends as the attempt does). A decision that judges every running task
    /// of a job where all are late thus reads 48 bytes of each, in task order, not the task's
    /// record and its attempt's.
    pub fn brief_time_left_s(&self, kind: TaskKind, b: &Brief) -> Option<f64> {
        match (self.kind, kind) {
            (EstimatorKind::ProgressRate, _) | (EstimatorKind::PhaseAware, TaskKind::Map) => {
                Some(left_at(b.progress(), brief_progress_rate(b, self.now)))
            }
            (EstimatorKind::Mantri, _) if !b.input_done() => {
                let lifetime = || brief_progress_rate(b, self.now);
                let rate = self.window_rate(b.first_report(), b.last_report(), b.reported_at(), lifetime);
                Some(self.mantri_reading(kind as usize, b.progress(), rate))
            }
            _ => None,
        }
    }

    /// The moving-average progress rate over the attempt's recent reports; a silence longer than
    /// Δ counts as no progress since the last report. None when it shows no progress.
    fn moving_rate(&self, a: &Attempt) -> Option<f64> {
        self.window_rate(a.reports().next(), a.last_report(), a.reported_at(), || progress_rate(a, self.now))
    }

    /// `moving_rate` from the window's first and last report, the last report's time and the
    /// rate over the attempt's whole life (asked only when needed: two divisions for every
    /// running task of every scan, where most have reported twice and lately, a sixth of
    /// Mantri's scan).
    fn window_rate(
        &self,
        first: Option<(Millis, f64)>,
        last: Option<(Millis, f64)>,
        reported_at: Millis,
        lifetime: impl Fn() -> f64,
    ) -> Option<f64> {
        let mut rate = match (first, last) {
            (Some((t0, p0)), Some((t1, p1))) if t1 > t0 => {
                let window = (p1 - p0).max(0.0) / ((t1 - t0) as f64 / 1000.0);
                // A window of close reports is too short to show a straggler's pace: on a loaded
                // machine a WordCount map with four times its siblings' input paused a second
                // just short of the end of its reading (0.640 to 0.654 of its score, blocked on
                // a spill), and that second's rate, extrapolated over the third of the score left,
                // read as 25.8 s against 9.4 s for a fresh copy; it ended 0.5 s later. Its
                // average since launch, start-up included, said 4.6 s. A task slow all along is
                // slow by both; one that slows down later shows it once its window is longer.
                if t1 - t0 < self.min_window_ms {
                    window.max(lifetime())
                } else {
                    window
                }
            }
            _ => lifetime(),
        };
        if self.now - reported_at > self.delta_ms {
            // No report for a while: assume no progress since the last one.
            rate = rate.min(lifetime());
        }
        positive_finite(rate).then_some(rate)
    }

    /// The pace of the attempt's score since `since` (when it had read its input): over its
    /// recent reports from then on, and, after a silence longer than Δ, no faster than its
    /// average since then (Mantri §5.5: no progress assumed since the last report). None when the
    /// score has not moved since then.
    ///
    /// The window starts at the first report whose score has reached the end of the reading
    /// ([`reading_end_score`]): a Hadoop map reports its SORT phase before its score has caught
    /// up with the end of its reading (0.647, then 0.667 a second later), and that catch-up is
    /// the reading's, not the wrap-up's. Taken as the wrap-up's pace and extrapolated over the
    /// third of the score left, it made maps a second or two from their end look 17 and 26 s
    /// from it (a restart and a copy in the cluster tests).
    fn rate_since(&self, kind: TaskKind, a: &Attempt, since: Millis) -> Option<f64> {
        if a.progress <= a.input_done_progress || a.reported_at() <= since {
            return None;
        }
        let end = reading_end_score(kind);
        let (t0, p0) = a.reports().find(|&(t, p)| t >= since && p >= end)?;
        let (t1, p1) = a.last_report()?;
        let secs = |from: Millis, to: Millis| (to - from) as f64 / 1000.0;
        let mut rate = if t1 > t0 { (p1 - p0).max(0.0) / secs(t0, t1) } else { 0.0 };
        if self.now - a.reported_at() > self.delta_ms && self.now > since {
            rate = rate.min((a.progress - a.input_done_progress).max(0.0) / secs(since, self.now));
        }
        positive_finite(rate).then_some(rate)
    }

    /// LATE §4.2: the current phase at this attempt's own rate in it, later phases at the
    /// average other attempts took for them (or this phase's pace when none has yet).
    fn phase_aware(&self, a: &Attempt) -> f64 {
        let current = REDUCE_PHASES.iter().position(|p| *p == a.phase).unwrap_or(0);
        let began = a.phase_start(a.phase).unwrap_or(a.start);
        let within = ((a.progress - current as f64 / 3.0) * 3.0).clamp(0.0, 1.0);
        let secs = (self.now - began).max(0) as f64 / 1000.0;
        let rate = if secs > 0.0 { within / secs } else { 0.0 };
        let mut left = match self.phase_s[a.phase.index()] {
            // Just entered the phase: others' average for it says more than a rate of nothing.
            Some(avg) if rate <= 0.0 => avg * (1.0 - within),
            _ => left_at(within, rate),
        };
        let pace = if rate > 0.0 { 1.0 / rate } else { f64::INFINITY };
        for p in &REDUCE_PHASES[current + 1..] {
            left += self.phase_s[p.index()].unwrap_or(pace);
        }
        left
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
    use crate::model::TaskId;
    use crate::{Config, Engine};

    /// Progress reports keep an attempt's smoothed rate only where an estimator the configuration
    /// names reads it (`exp-smoothing`, for any of LATE, Mantri and ESE); and that estimator then
    /// reads the smoothed rate, not the rate since launch.
    #[test]
    fn the_smoothed_rate_is_kept_only_where_an_estimator_reads_it() {
        let cases = [
            ("rein.late.estimator", "progress-rate", false),
            ("rein.late.estimator", "exp-smoothing", true),
            ("rein.mantri.estimator", "exp-smoothing", true),
            ("rein.ese.estimator", "exp-smoothing", true),
        ];
        for (key, estimator, kept) in cases {
            let mut e = Engine::from_pairs([("rein.policy", "late"), (key, estimator)]).unwrap().0;
            e.ingest(0, Event::JobCreated { maps: 1, reduces: 0 });
            let a = TaskId::map(0).attempt(0);
            e.ingest(0, Event::AttemptStarted { attempt: a, node: Some("n1:1".into()), rack: None });
            // Quick at first, then slow: the smoothed rate is below the rate since launch.
            e.ingest(1_000, Event::AttemptStatus { attempt: a, progress: 0.5, phase: Phase::Map });
            e.ingest(21_000, Event::AttemptStatus { attempt: a, progress: 0.6, phase: Phase::Map });
            let attempt = e.job().attempt(a).unwrap();
            assert_eq!(attempt.smoothed_rate().is_some(), kept, "{key}={estimator}");
            if kept {
                let smoothed = Estimator::new(EstimatorKind::ExpSmoothing, e.job(), 21_000, 10_000).time_left_s(TaskKind::Map, attempt);
                let naive = Estimator::new(EstimatorKind::ProgressRate, e.job(), 21_000, 10_000).time_left_s(TaskKind::Map, attempt);
                assert!(smoothed > naive, "{key}: smoothed {smoothed} s left against {naive} s at the rate since launch");
            }
        }
    }

    #[test]
    fn a_rate_is_positive_and_finite_exactly_as_is_finite_says() {
        let rates = [0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, f64::MIN_POSITIVE, f64::MAX, f64::MIN, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN, 0.25];
        for r in rates {
            assert_eq!(positive_finite(r), r > 0.0 && r.is_finite(), "{r}");
        }
    }

    fn engine() -> Engine {
        Engine::new(Config::default())
    }

    /// `brief_time_left_clearly_at_most` never says "at most" of an estimate above the bar, whatever
    /// the reports (equal, far apart, tiny or no progress, silent for longer than Δ), siblings
    /// finished with and without a wrap-up, and bars from far below the estimate to a hair
    /// either side of it; and it does tell the usual case, well under its bar. Over the same
    /// attempts, `brief_time_left_s`, where it tells, is `time_left_s` bit for bit, under every
    /// estimator.
    #[test]
    fn from_the_brief_an_estimate_is_never_wrong_and_tells_the_usual_case() {
        let mut next = crate::test_rng();
        let (mut told, mut asked, mut same) = (0, 0, 0);
        for case in 0..3_000 {
            let mut e = engine();
            let mut r = |m: u64| next() % m;
            // Siblings: none finished, or some that finished reading only, or with a wrap-up.
            let siblings = r(3);
            for i in 1..=siblings as u32 * 2 {
                let a = TaskId::map(i).attempt(0);
                e.ingest(0, Event::AttemptStarted { attempt: a, node: None, rack: None });
                e.ingest(5_000, Event::AttemptStatus { attempt: a, progress: 0.3, phase: Phase::Map });
                if siblings == 2 {
                    e.ingest(8_000 + r(4_000) as i64, Event::AttemptStatus { attempt: a, progress: 0.7, phase: Phase::Sort });
                }
                e.ingest(20_000 + r(5_000) as i64, Event::AttemptFinished { attempt: a, outcome: crate::Outcome::Succeeded });
            }
            let a = TaskId::map(0).attempt(0);
            let start = r(10_000) as i64;
            e.ingest(start, Event::AttemptStarted { attempt: a, node: None, rack: None });
            let (mut at, mut p) = (start, 0.0f64);
            // None at all now and then: a newly started attempt, silent so far.
            for _ in 0..r(7) {
                at += [0, 1, 7, 1_000, 3_000, 60_000][r(6) as usize];
                p = (p + [0.0, 1e-12, 1e-6, 0.01, 0.1, 0.3][r(6) as usize]).min(1.0);
                // Reported as Hadoop does, in single precision, now and then past its reading.
                let phase = if case % 17 == 0 { Phase::Sort } else { Phase::Map };
                e.ingest(at, Event::AttemptStatus { attempt: a, progress: p as f32 as f64, phase });
            }
            let now = at + [0, 500, 9_999, 10_001, 100_000][r(5) as usize];
            let delta = [1_000, 10_000][r(2) as usize];
            let est = Estimator::new(EstimatorKind::Mantri, e.job(), now, delta)
                .extrapolate_after_read(case % 5 != 0)
                .min_window_ms([0, 3_000, 20_000][case % 3]);
            let attempt = e.job().attempt(a).unwrap();
            let t = est.time_left_s(TaskKind::Map, attempt);
            // From the brief, when it tells: the same figure, bit for bit, for every estimator.
            let brief = e.job().brief(TaskId::map(0)).expect("the task's one running attempt has a brief");
            for kind in [EstimatorKind::Mantri, EstimatorKind::ProgressRate, EstimatorKind::PhaseAware, EstimatorKind::ExpSmoothing] {
                let est = Estimator::new(kind, e.job(), now, delta).extrapolate_after_read(case % 5 != 0).min_window_ms([0, 3_000, 20_000][case % 3]);
                if let Some(from_brief) = est.brief_time_left_s(TaskKind::Map, brief) {
                    let full = est.time_left_s(TaskKind::Map, attempt);
                    assert_eq!(from_brief.to_bits(), full.to_bits(), "case {case}, {kind:?}: {from_brief} from the brief, {full}");
                    same += 1;
                }
            }
            let hair = [1.0 - 1e-15, 1.0 - 1e-12, 1.0, 1.0 + 1e-15, 1.0 + 1e-12, 1.0 + 1e-8, 0.5, 2.0, 1e-3];
            for bar in hair.iter().map(|h| t * h).chain([0.0, 1e-300, 1.0, 30.0, 1e6]) {
                asked += 1;
                let brief = e.job().brief(TaskId::map(0)).expect("the task's one running attempt has a brief");
                if est.brief_time_left_clearly_at_most(TaskKind::Map, brief, bar) {
                    told += 1;
                    assert!(t <= bar, "case {case}: t_rem {t} told at most {bar}");
                }
            }
        }
        assert!(told > asked / 20, "told {told} of {asked}");
        assert!(same > 3_000 * 2, "the brief told the estimate {same} times in 12,000");
        // The usual case: a map reading at a steady pace, well under its bar.
        let mut e = engine();
        let a = TaskId::map(0).attempt(0);
        e.ingest(0, Event::AttemptStarted { attempt: a, node: None, rack: None });
        for (at, p) in [(3_000, 0.1), (6_000, 0.2), (9_000, 0.3)] {
            e.ingest(at, Event::AttemptStatus { attempt: a, progress: p, phase: Phase::Map });
        }
        let est = Estimator::new(EstimatorKind::Mantri, e.job(), 10_000, 10_000);
        let t = est.time_left_s(TaskKind::Map, e.job().attempt(a).unwrap());
        let brief = e.job().brief(a.task).unwrap();
        assert!(est.brief_time_left_clearly_at_most(TaskKind::Map, brief, t * 1.001));
        assert!(!est.brief_time_left_clearly_at_most(TaskKind::Map, brief, t * 0.999));
    }

    /// A map of a failed cluster test, launched at 0, read its input by 7.65 s, where it reported
    /// its SORT phase still at 0.647; a second later its score had caught up to 0.667, and it
    /// ended 1.5 s after that; a sibling had finished its wrap-up in 1 s. At 9.46 s the catch-up
    /// is no wrap-up pace: the siblings' wrap-up says it is done (t_rem 0, as §5.5 prints it), or,
    /// 0.81 s past it, 0.81 s to go, where the catch-up extrapolated said 17.4 s. A wrap-up that
    /// then moves is read from 0.667; one stuck at 0.667 grows with its overrun.
    #[test]
    fn the_catch_up_to_the_end_of_the_reading_is_no_wrap_up_pace() {
        let left = |reports: &[(i64, f64, Phase)], now: i64, extrapolate: bool| {
            let mut e = engine();
            let s = TaskId::map(1).attempt(0);
            e.ingest(0, Event::AttemptStarted { attempt: s, node: None, rack: None });
            e.ingest(4_000, Event::AttemptStatus { attempt: s, progress: 0.667, phase: Phase::Sort });
            e.ingest(5_000, Event::AttemptFinished { attempt: s, outcome: crate::Outcome::Succeeded });
            let a = TaskId::map(0).attempt(0);
            e.ingest(0, Event::AttemptStarted { attempt: a, node: None, rack: None });
            for &(at, progress, phase) in reports {
                e.ingest(at, Event::AttemptStatus { attempt: a, progress: progress as f32 as f64, phase });
            }
            let est = Estimator::new(EstimatorKind::Mantri, e.job(), now, 5_000).extrapolate_after_read(extrapolate);
            est.time_left_s(TaskKind::Map, e.job().attempt(a).unwrap())
        };
        let seen = [(6_580, 0.298, Phase::Map), (7_644, 0.647, Phase::Map), (7_652, 0.647, Phase::Sort), (8_674, 0.667, Phase::Sort)];
        let near = |got: f64, want: f64| assert!((got - want).abs() < 1e-9, "{got} against {want}");
        near(left(&seen, 9_458, true), 9.458 - 7.652 - 1.0);
        assert_eq!(left(&seen, 9_458, false), 0.0, "the siblings' wrap-up, less the time since the reading");
        let stuck: Vec<_> = (9_674..=59_674).step_by(1_000).map(|at| (at, 0.667, Phase::Sort)).collect();
        let stuck = [&seen[..], &stuck[..]].concat();
        near(left(&stuck, 60_000, true), 60.0 - 7.652 - 1.0);
        assert_eq!(left(&stuck, 60_000, false), 0.0, "§5.5 as printed: done");
        let slow = [&seen[..], &[(9_674, 0.687, Phase::Sort), (10_674, 0.707, Phase::Sort)]].concat();
        let t = left(&slow, 11_000, true);
        assert!((t - 0.293 / 0.02).abs() < 0.01, "{t}");
    }

    /// `rein.mantri.min-window-ms`: a map launched at 0 whose two reports a second apart (0.640,
    /// 0.654) show a pause is given its pace since launch, not the pause's; a slowdown its window
    /// shows over longer than that is still read at the window's pace. At 0, the pause is
    /// extrapolated as the moving average prints it.
    #[test]
    fn a_short_window_reads_no_slower_than_the_attempts_average() {
        let left = |reports: &[(i64, f64)], now: i64, min_window_ms: i64| {
            let mut e = engine();
            let a = TaskId::map(0).attempt(0);
            e.ingest(0, Event::AttemptStarted { attempt: a, node: None, rack: None });
            for &(at, p) in reports {
                e.ingest(at, Event::AttemptStatus { attempt: a, progress: p, phase: Phase::Map });
            }
            let est = Estimator::new(EstimatorKind::Mantri, e.job(), now, 5_000).min_window_ms(min_window_ms);
            est.time_left_s(TaskKind::Map, e.job().attempt(a).unwrap())
        };
        // Reports are single precision: within a relative 10⁻⁵.
        let near = |got: f64, want: f64| assert!((got / want - 1.0).abs() < 1e-5, "{got} against {want}");
        let pause = [(6_400, 0.640), (7_400, 0.654)];
        near(left(&pause, 8_600, 3_000), (1.0 - 0.654) / (0.654 / 8.6));
        near(left(&pause, 8_600, 0), (1.0 - 0.654) / 0.014);
        let slowed = [(3_000, 0.3), (6_000, 0.31)];
        near(left(&slowed, 6_500, 3_000), (1.0 - 0.31) / (0.01 / 3.0));
    }

    /// LATE §4.2's misestimate, in a reduce's phases: a fast first third (10 s), then two slow
    /// thirds (25 s each). T1 starts at 0, T2 at 10; at 20 the progress-rate heuristic gives T1
    /// 22.9 s left and T2 20 s, though T1 ends at 60 and T2 at 70. Knowing the slow phases from a
    /// finished attempt, the phase-aware estimate gets both right: 40 s and 50 s.
    #[test]
    fn section_4_2_phase_aware_fixes_the_two_phase_misestimate() {
        let mut e = engine();
        let (done, t1, t2) = (TaskId::reduce(0), TaskId::reduce(1), TaskId::reduce(2));
        let status = |e: &mut Engine, at: i64, t: TaskId, p: f64, phase: Phase| {
            e.ingest(at, Event::AttemptStatus { attempt: t.attempt(0), progress: p, phase });
        };
        e.ingest(-100_000, Event::AttemptStarted { attempt: done.attempt(0), node: None, rack: None });
        status(&mut e, -90_000, done, 1.0 / 3.0, Phase::Sort);
        status(&mut e, -65_000, done, 2.0 / 3.0, Phase::Reduce);
        e.ingest(-40_000, Event::AttemptFinished { attempt: done.attempt(0), outcome: crate::Outcome::Succeeded });

        e.ingest(0, Event::AttemptStarted { attempt: t1.attempt(0), node: None, rack: None });
        e.ingest(10_000, Event::AttemptStarted { attempt: t2.attempt(0), node: None, rack: None });
        status(&mut e, 10_000, t1, 1.0 / 3.0, Phase::Sort);
        status(&mut e, 20_000, t1, 1.0 / 3.0 + 0.4 / 3.0, Phase::Sort);
        status(&mut e, 20_000, t2, 1.0 / 3.0, Phase::Sort);

        let now = 20_000;
        let job = e.job();
        let a1 = job.attempt(t1.attempt(0)).unwrap();
        let a2 = job.attempt(t2.attempt(0)).unwrap();
        let naive = Estimator::new(EstimatorKind::ProgressRate, job, now, 10_000);
        let (n1, n2) = (naive.time_left_s(TaskKind::Reduce, a1), naive.time_left_s(TaskKind::Reduce, a2));
        assert!((n1 - 22.857).abs() < 0.01 && (n2 - 20.0).abs() < 1e-9, "{n1} {n2}");
        let aware = Estimator::new(EstimatorKind::PhaseAware, job, now, 10_000);
        let (p1, p2) = (aware.time_left_s(TaskKind::Reduce, a1), aware.time_left_s(TaskKind::Reduce, a2));
        assert!((p1 - 40.0).abs() < 1e-9 && (p2 - 50.0).abs() < 1e-9, "{p1} {p2}");
    }

    /// The skew bench's 12-MB map on the bed: silent for 6.6 s, then 0.636, then at 2/3 in its
    /// sort from 7.6 s, reporting 2/3 every second. No sibling has reported a wrap-up (the small
    /// maps report nothing before they end). At 10.2 s its rest goes at its reading pace, 2/3 in
    /// 7.6 s: 3.8 s left, not the 33 s the standstill's moving average gave. Stuck there, it
    /// grows into a straggler all the same.
    #[test]
    fn mantri_takes_a_sorting_map_at_its_reading_pace_before_any_wrap_up_is_known() {
        let mut e = engine();
        let t = TaskId::map(0);
        e.ingest(0, Event::AttemptStarted { attempt: t.attempt(0), node: None, rack: None });
        e.ingest(6_600, Event::AttemptStatus { attempt: t.attempt(0), progress: 0.636, phase: Phase::Map });
        for at in [7_600, 8_600, 9_600] {
            e.ingest(at, Event::AttemptStatus { attempt: t.attempt(0), progress: 2.0 / 3.0, phase: Phase::Sort });
        }
        let a = e.job().attempt(t.attempt(0)).unwrap();
        let left = Estimator::new(EstimatorKind::Mantri, e.job(), 10_200, 10_000).time_left_s(TaskKind::Map, a);
        assert!((left - 3.8).abs() < 1e-9, "1/3 left at 2/3 per 7.6 s: {left}");
        // Still at 2/3, still reporting, 30 s into its sort: as long again, and growing.
        for at in (10_600..=37_600).step_by(1_000) {
            e.ingest(at, Event::AttemptStatus { attempt: t.attempt(0), progress: 2.0 / 3.0, phase: Phase::Sort });
        }
        let a = e.job().attempt(t.attempt(0)).unwrap();
        let stuck = Estimator::new(EstimatorKind::Mantri, e.job(), 37_600, 10_000).time_left_s(TaskKind::Map, a);
        assert!((stuck - 30.0).abs() < 1e-9, "30 s into a wrap-up of 3.8: {stuck}");
    }

    #[test]
    fn mantri_assumes_no_progress_when_reports_stop() {
        let mut e = engine();
        let t = TaskId::map(0);
        e.ingest(0, Event::AttemptStarted { attempt: t.attempt(0), node: None, rack: None });
        for i in 1..=5 {
            e.ingest(i * 10_000, Event::AttemptStatus { attempt: t.attempt(0), progress: i as f64 * 0.1, phase: Phase::Map });
        }
        let a = e.job().attempt(t.attempt(0)).unwrap();
        let fresh = Estimator::new(EstimatorKind::Mantri, e.job(), 50_000, 10_000).time_left_s(TaskKind::Map, a);
        assert!((fresh - 50.0).abs() < 1e-4, "0.5 left at 0.01/s: {fresh}");
        let stale = Estimator::new(EstimatorKind::Mantri, e.job(), 150_000, 10_000).time_left_s(TaskKind::Map, a);
        assert!((stale - 150.0).abs() < 1e-4, "0.5 left at 0.5/150 s: {stale}");
    }
}
