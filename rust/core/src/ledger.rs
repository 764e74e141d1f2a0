//! The decision ledger: every action the engine takes, as a JSON line with the numbers behind
//! it, and — once the job shows it — the action's outcome: whether the copy won, what it cost
//! in container-seconds, and how the task's end compares with the original attempt's
//! estimated end. It also keeps the job's return on investment for counters and the summary.
//!
//! The engine produces the records; the caller (the AM shim) writes them. Off unless the
//! configuration asks for it (`rein.decision-log`), so the simulator pays nothing for it.
//!
//! In shadow mode (`rein.mode=shadow`) nothing the engine asks for is carried out: each copy or
//! restart is instead scored against a copy started at the decision, estimated to take
//! `copy_est_s` (the policy's own E[t_new], else the mean successful attempt of the task's kind).

use std::fmt::Write as _;

use crate::action::Action;
use crate::event::Outcome;
use crate::idmap::{take, IdMap};
use crate::json::Obj;
use crate::model::{Attempt, AttemptId, AttemptState, JobState, Millis, TaskId, TaskKind};

/// Return on investment so far: what the copies cost and what they are estimated to have saved.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Roi {
    /// Copies asked for (speculations and clones); in shadow mode, those rein would have asked for.
    pub copies_asked: u32,
    /// Copies that started (never in shadow mode).
    pub copies_launched: u32,
    /// Copies that finished first.
    pub copies_won: u32,
    /// Container time of the copies, and of attempts rein killed (restarts, vetoes, moves).
    pub copy_container_ms: i64,
    /// The job's estimated end without rein's actions, less its actual end (shadow: the actual
    /// end less the estimated end with them); never negative.
    pub saved_ms: i64,
}

impl Roi {
    /// Job-seconds saved per container-second spent; `None` before anything was spent.
    pub fn ratio(&self) -> Option<f64> {
        (self.copy_container_ms > 0).then(|| self.saved_ms as f64 / self.copy_container_ms as f64)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verb {
    Copy,
    Clone,
    Restart,
    Veto,
    Move,
}

impl Verb {
    fn name(self) -> &'static str {
        match self {
            Verb::Copy => "copy",
            Verb::Clone => "clone",
            Verb::Restart => "restart",
            Verb::Veto => "veto",
            Verb::Move => "move",
        }
    }
}

/// A decision taken, numbered in the log by its place in `Ledger::decisions` plus one.
struct Decision {
    at: Millis,
    verb: Verb,
    task: TaskId,
    /// The attempt killed (restart, veto, move), or the original a copy is measured against.
    attempt: Option<AttemptId>,
    /// The original attempt's estimated end at the decision, on the caller's clock.
    original_est_end: Option<Millis>,
    /// A fresh copy's estimated duration at the decision.
    copy_est_ms: Option<Millis>,
    /// Whether an outcome was recorded for it (one per decision, per copy attempt for copies).
    settled: bool,
}

/// Per task, the copy decisions whose copies have not all started, oldest first, each with the
/// copies still to start: a list per task threaded through `entries`, its head found by task
/// index. A decision that copies 100K tasks, in the order of their rank, then writes 4 bytes a
/// task at random (400 KB, which the caches hold) and appends its entries in order, where a hash
/// map of 100K lists missed the caches twice a copy (most of such a decision's cost once the log
/// was full). Entries are not reused: there is one per copy decision, as `Ledger::decisions` has.
#[derive(Default)]
struct Unstarted {
    /// Per kind, by task index: the place of the task's oldest entry in `entries`, plus one; 0
    /// for none.
    head: [Vec<u32>; 2],
    entries: Vec<Waiting>,
}

struct Waiting {
    decision: usize,
    copies: u32,
    /// The place of the task's next entry, plus one; 0 for none.
    next: u32,
}

impl Unstarted {
    fn reserve(&mut self, decisions: usize) {
        self.entries.reserve(decisions);
    }

    fn head(&self, task: TaskId) -> u32 {
        self.head[task.kind as usize].get(task.index as usize).copied().unwrap_or(0)
    }

    fn head_mut(&mut self, task: TaskId) -> &mut u32 {
        crate::model::slot(&mut self.head[task.kind as usize], task.index as usize, 0)
    }

    /// A decision asked for `copies` copies of `task`, after its older ones.
    fn push(&mut self, task: TaskId, decision: usize, copies: u32) {
        self.entries.push(Waiting { decision, copies, next: 0 });
        let place = u32::try_from(self.entries.len()).expect("ledger entries beyond u32");
        let mut at = self.head(task);
        if at == 0 {
            *self.head_mut(task) = place;
            return;
        }
        while self.entries[at as usize - 1].next != 0 {
            at = self.entries[at as usize - 1].next;
        }
        self.entries[at as usize - 1].next = place;
    }

    /// One copy of the task's oldest decision started or was dropped: that decision.
    fn take_one(&mut self, task: TaskId) -> Option<usize> {
        let at = self.head(task);
        let entry = self.entries.get_mut(at.checked_sub(1)? as usize)?;
        entry.copies -= 1;
        let (decision, left, next) = (entry.decision, entry.copies, entry.next);
        if left == 0 {
            *self.head_mut(task) = next;
        }
        Some(decision)
    }

    /// Removes the task's decisions, oldest first, each with the copies that never started.
    fn take_all(&mut self, task: TaskId) -> Vec<(usize, u32)> {
        let mut at = self.head(task);
        if at == 0 {
            return Vec::new();
        }
        *self.head_mut(task) = 0;
        let mut all = Vec::new();
        while at != 0 {
            let e = &self.entries[at as usize - 1];
            all.push((e.decision, e.copies));
            at = e.next;
        }
        all
    }
}

#[derive(Default)]
pub struct Ledger {
    on: bool,
    shadow: bool,
    policy: &'static str,
    decisions: Vec<Decision>,
    /// Records not yet taken by the caller.
    out: Vec<String>,
    /// The bytes left for records under `rein.decision-log.max-bytes` (`new`), and whether
    /// a record has met the bound: from then on none is made, only counted.
    room: u64,
    max_bytes: u64,
    truncated: bool,
    /// Per task, copy decisions whose copies have not all started, oldest first.
    unstarted: Unstarted,
    /// Copy attempts and the decision each belongs to.
    copies: IdMap<AttemptId, usize>,
    /// Attempts rein asked to kill and the decision that did.
    kills: IdMap<AttemptId, usize>,
    /// Per task, the decisions still waiting for the task's end (restarts; shadow copies).
    at_task_end: IdMap<TaskId, Vec<usize>>,
    /// The estimated end of a task had rein not acted (act) or had it acted (shadow), where
    /// that differs from the task's actual end.
    counterfactual_end: IdMap<TaskId, Millis>,
    /// The latest successful end seen.
    actual_end: Option<Millis>,
    /// The latest end of the tasks with a counterfactual end, taken as that end.
    other_end: Option<Millis>,
    /// The latest end of the tasks without one.
    untouched_end: Option<Millis>,
    /// Sum and count of successful attempt durations per kind: the fallback copy estimate.
    durations: [(i64, u32); 2],
    roi: Roi,
}

fn kind_idx(kind: TaskKind) -> usize {
    match kind {
        TaskKind::Map => 0,
        TaskKind::Reduce => 1,
    }
}

pub fn task_name(task: TaskId) -> String {
    format!("{}_{:06}", task.kind.letter(), task.index)
}

/// Bytes of `rein.decision-log.max-bytes` the engine leaves to the lines its caller writes
/// itself (the shim's `job` record, about 100 bytes) and to the `truncated` record.
pub const RESERVED_BYTES: u64 = 1024;

/// What the engine knew of the attempt a decision is about, for a reader who asks why: when it
/// started, its phase and score, when it had read its input, and the progress reports it kept
/// (`[ms, progress]`, oldest first) — what its estimates are taken from.
fn evidence(a: &Attempt) -> String {
    let mut reports = String::from("[");
    for (i, (at, p)) in a.reports().enumerate() {
        if i > 0 {
            reports.push(',');
        }
        let _ = write!(reports, "[{at},{}]", (p * 1e6).round() / 1e6);
    }
    reports.push(']');
    Obj::new()
        .int("start_ms", a.start)
        .str("phase", &format!("{:?}", a.phase).to_lowercase())
        .num("progress", a.progress)
        .opt_int("input_done_ms", a.input_done_at())
        .raw("reports", &reports)
        .finish()
}

/// An attempt's end extrapolated from its progress rate at `at` (LATE §4's estimator).
fn extrapolated_end(a: &Attempt, at: Millis) -> Option<Millis> {
    extrapolated(a.start, a.progress, a.reported_at(), at)
}

/// The end of an attempt that started at `start` and had made `progress` by its last report at
/// `reported_at`, extrapolated at `at`.
fn extrapolated(start: Millis, progress: f64, reported_at: Millis, at: Millis) -> Option<Millis> {
    let elapsed = (reported_at.min(at) - start).max(0) as f64;
    (progress > 0.0 && elapsed > 0.0).then(|| start + (elapsed / progress).round() as Millis)
}

impl Ledger {
    /// A ledger whose records come to at most `max_bytes` (`rein.decision-log.max-bytes`), each
    /// with its line's end, less [`RESERVED_BYTES`] for the lines the caller writes itself (the
    /// shim's `job` record). The first record that does not fit is replaced by a `truncated`
    /// record, and no record is handed out after it; decision records, the large ones, are no
    /// longer even formatted. A decision that copies 100K tasks would otherwise format 100K of
    /// them (60 MB for Mantri's, 900 MB for `auto`'s, whose every copy lists the nodes it avoids)
    /// for a log that keeps the first 16 MB. The decisions are still counted and followed to
    /// their outcomes, and the summary record still covers them all.
    pub fn new(on: bool, shadow: bool, policy: &'static str, max_bytes: u64) -> Ledger {
        Ledger { on, shadow, policy, room: max_bytes.saturating_sub(RESERVED_BYTES), max_bytes, ..Ledger::default() }
    }

    /// Whether records are still being made: the log is on and has not met its bound.
    fn writing(&self) -> bool {
        self.on && !self.truncated
    }

    /// Hands a record to the caller if it fits the bound; the first that does not is replaced
    /// by the `truncated` record (`new`).
    fn emit(&mut self, line: String) {
        if !self.writing() {
            return;
        }
        let need = line.len() as u64 + 1;
        if need <= self.room {
            self.room -= need;
            self.out.push(line);
        } else {
            self.truncated = true;
            self.out.push(Obj::new().str("record", "truncated").int("max_bytes", self.max_bytes as i64).finish());
        }
    }

    pub fn is_on(&self) -> bool {
        self.on
    }

    pub fn roi(&self) -> Roi {
        self.roi
    }

    /// Takes the records written since the last call, oldest first.
    pub fn take(&mut self) -> Vec<String> {
        std::mem::take(&mut self.out)
    }

    /// Makes room for a decision's `actions` at once, rather than growing by doubling (a decision
    /// can copy 100K tasks).
    pub fn reserve(&mut self, actions: usize) {
        if self.on {
            self.decisions.reserve(actions);
            if !self.shadow {
                self.unstarted.reserve(actions);
            }
        }
    }

    /// Records an action the engine returns at `now`.
    pub fn decided(&mut self, now: Millis, action: &Action, job: &JobState) {
        if !self.on {
            return;
        }
        let task = action.task();
        let (verb, killed) = match action {
            Action::Speculate { .. } => (Verb::Copy, None),
            Action::Clone { .. } => (Verb::Clone, None),
            Action::Restart { attempt, .. } => (Verb::Restart, Some(*attempt)),
            Action::Veto { attempt, .. } => (Verb::Veto, Some(*attempt)),
            Action::Move { attempt, .. } => (Verb::Move, Some(*attempt)),
        };
        let reason = action.reason();
        // Past the bound, a copy of a task with one running attempt is measured against that
        // attempt as its brief has it (`JobState::brief`), without reading the task's record and
        // its attempts': a decision can copy 100K tasks, each a miss of the caches.
        let brief = (killed.is_none() && !self.writing() && job.has_task(task)).then(|| job.brief(task)).flatten();
        // The attempt a copy races: the oldest running one that is not itself a copy, else any.
        let original = killed.and_then(|a| job.attempt(a)).or_else(|| {
            job.task(task).filter(|_| brief.is_none()).and_then(|t| {
                job.running_attempts_of(t).find(|a| !a.is_copy).or_else(|| job.running_attempts_of(t).next())
            })
        });
        let original_est_end = match (reason.time_left_s(), brief) {
            (Some(s), _) => Some(now + (s * 1000.0).round() as Millis),
            (None, Some(b)) => extrapolated(b.start(), b.progress(), b.reported_at(), now),
            (None, None) => original.and_then(|a| extrapolated_end(a, now)),
        };
        let original_id = brief.map(|b| b.attempt(task)).or(original.map(|a| a.id));
        let (sum, n) = self.durations[kind_idx(task.kind)];
        let copy_est_ms = reason
            .new_copy_s()
            .map(|s| (s * 1000.0).round() as Millis)
            .or_else(|| (n > 0).then(|| sum / n as i64));
        let id = self.decisions.len() as u64 + 1;
        // Past the bound the decision is counted and followed, but its record is not made.
        if self.writing() {
            let node = original.and_then(|a| a.node).map(|n| job.node(n).name);
            // Room for a record of the usual size (several hundred bytes), made once.
            let mut rec = Obj::with_capacity(1024)
                .str("record", "decision")
                .int("id", id as i64)
                .int("at_ms", now)
                .str("action", verb.name())
                .str("task", &task_name(task))
                .opt_int("attempt", original.map(|a| a.id.n as i64))
                .opt_str("node", node.as_deref())
                .str("policy", self.policy)
                .boolean("shadow", self.shadow);
            match action {
                Action::Speculate { avoid_nodes, prefer_rack, .. } => {
                    rec = rec.int("copies", 1).strs("avoid_nodes", avoid_nodes.iter().map(|n| &**n));
                    rec = rec.opt_str("prefer_rack", prefer_rack.as_deref());
                }
                Action::Clone { copies, .. } => rec = rec.int("copies", *copies as i64),
                _ => {}
            }
            let mut line = rec
                .opt_int("original_est_end_ms", original_est_end)
                .opt_num("copy_est_s", copy_est_ms.map(|ms| ms as f64 / 1000.0))
                .raw("reason", &reason.to_json());
            if let Some(a) = original {
                line = line.raw("evidence", &evidence(a));
            }
            let line = line.text("text", reason).finish();
            self.emit(line);
        }
        let idx = self.decisions.len();
        self.decisions.push(Decision {
            at: now,
            verb,
            task,
            attempt: original_id,
            original_est_end,
            copy_est_ms,
            settled: false,
        });
        let copies = action.new_copies();
        self.roi.copies_asked += copies;
        if self.shadow {
            if matches!(verb, Verb::Copy | Verb::Clone | Verb::Restart) {
                self.at_task_end.entry(task).or_default().push(idx);
            }
            return;
        }
        match verb {
            Verb::Copy | Verb::Clone => self.unstarted.push(task, idx, copies),
            Verb::Restart => {
                self.at_task_end.entry(task).or_default().push(idx);
                self.kills.insert(killed.expect("a restart names its attempt"), idx);
            }
            Verb::Veto | Verb::Move => {
                let attempt = killed.expect("a kill names its attempt");
                self.kills.insert(attempt, idx);
                // A vetoed copy's replacement is still the copy its decision asked for.
                if let Some(&copy) = self.copies.get(&attempt) {
                    if verb == Verb::Veto {
                        self.unstarted.push(task, copy, 1);
                    }
                }
            }
        }
    }

    /// A new attempt started; `is_copy` says whether the engine booked it as one of its copies.
    /// Inline: every start of a big job comes here, and the log is usually off.
    #[inline]
    pub fn started(&mut self, attempt: AttemptId, is_copy: bool) {
        if !self.on || self.shadow || !is_copy {
            return;
        }
        let Some(idx) = self.unstarted.take_one(attempt.task) else { return };
        self.copies.insert(attempt, idx);
        self.roi.copies_launched += 1;
    }

    /// The caller did not launch one copy of `task`.
    pub fn copy_dropped(&mut self, now: Millis, task: TaskId) {
        if !self.on || self.shadow {
            return;
        }
        let Some(idx) = self.unstarted.take_one(task) else { return };
        self.dropped(now, idx);
    }

    /// The caller did not carry out the kill of `attempt`.
    pub fn kill_dropped(&mut self, now: Millis, attempt: AttemptId) {
        if !self.on {
            return;
        }
        if let Some(idx) = take(&mut self.kills, &attempt) {
            if let Some(list) = self.at_task_end.get_mut(&attempt.task) {
                list.retain(|&i| i != idx);
            }
            self.dropped(now, idx);
        }
    }

    fn dropped(&mut self, now: Millis, idx: usize) {
        let line = self.settle(now, idx, "dropped").finish();
        self.emit(line);
    }

    /// Marks decision `idx` settled and starts its outcome record with `result`.
    fn settle(&mut self, now: Millis, idx: usize, result: &str) -> Obj {
        self.decisions[idx].settled = true;
        self.outcome(now, idx).str("result", result)
    }

    /// Starts the outcome record of decision `idx`: muted once the log has met its bound, so
    /// that an outcome no longer kept is not written only to be dropped (one for every copy that
    /// ends, on the path of the job's events).
    fn outcome(&self, now: Millis, idx: usize) -> Obj {
        if !self.writing() {
            return Obj::muted();
        }
        let d = &self.decisions[idx];
        Obj::new()
            .str("record", "outcome")
            .int("decision", idx as i64 + 1)
            .int("at_ms", now)
            .str("action", d.verb.name())
            .str("task", &task_name(d.task))
    }

    /// An attempt ended; `job` already shows the end. Inline as far as the test of the log: every
    /// finish of a big job comes here, and the log is usually off.
    #[inline]
    pub fn finished(&mut self, now: Millis, attempt: AttemptId, outcome: Outcome, job: &JobState) {
        if self.on {
            self.attempt_ended(now, attempt, outcome, job);
        }
    }

    /// `finished` with the log on.
    fn attempt_ended(&mut self, now: Millis, attempt: AttemptId, outcome: Outcome, job: &JobState) {
        let Some(a) = job.attempt(attempt) else { return };
        let end = a.finish().unwrap_or(now);
        if outcome == Outcome::Succeeded && a.state == AttemptState::Succeeded {
            let k = kind_idx(attempt.task.kind);
            self.durations[k].0 += (end - a.start).max(0);
            self.durations[k].1 += 1;
            self.actual_end = Some(self.actual_end.map_or(end, |e| e.max(end)));
        }
        let spent = (end - a.start).max(0);
        if let Some(idx) = take(&mut self.copies, &attempt) {
            self.roi.copy_container_ms += spent;
            self.copy_ended(now, idx, a, outcome, job);
        } else if let Some(idx) = take(&mut self.kills, &attempt) {
            self.roi.copy_container_ms += spent;
            if matches!(self.decisions[idx].verb, Verb::Veto | Verb::Move) {
                let line = self
                    .outcome(now, idx)
                    .int("attempt", attempt.n as i64)
                    .str("result", if outcome == Outcome::Killed { "killed" } else { "ended-first" })
                    .num("container_s", spent as f64 / 1000.0)
                    .finish();
                self.emit(line);
                self.decisions[idx].settled = true;
            }
        }
        if outcome == Outcome::Succeeded && a.state == AttemptState::Succeeded {
            self.never_launched(now, attempt.task);
            self.task_succeeded(now, attempt, end, job);
            // The job's end the other way (without rein's actions, or with them in shadow mode).
            let other = take(&mut self.counterfactual_end, &attempt.task);
            match other {
                Some(e) => self.other_end = Some(self.other_end.map_or(e, |x| x.max(e))),
                None => self.untouched_end = Some(self.untouched_end.map_or(end, |x| x.max(end))),
            }
            let actual = self.actual_end.unwrap_or(end);
            let other = self.other_end.into_iter().chain(self.untouched_end).max().unwrap_or(actual);
            self.roi.saved_ms = if self.shadow { actual - other } else { other - actual }.max(0);
        }
    }

    fn copy_ended(&mut self, now: Millis, idx: usize, copy: &Attempt, outcome: Outcome, job: &JobState) {
        let d = &self.decisions[idx];
        let end = copy.finish().unwrap_or(now);
        let task_done = job.task(d.task).is_some_and(|t| t.succeeded);
        let result = match outcome {
            Outcome::Succeeded => "won",
            Outcome::Failed => "failed",
            Outcome::Killed if task_done => "lost",
            Outcome::Killed => "killed",
        };
        let mut rec = self
            .outcome(now, idx)
            .int("attempt", copy.id.n as i64)
            .opt_str("node", copy.node.map(|n| &*job.node(n).name))
            .str("result", result)
            .num("container_s", (end - copy.start).max(0) as f64 / 1000.0);
        if outcome == Outcome::Succeeded {
            // The original's end: extrapolated from its progress when the copy won, else the
            // estimate made at the decision, else — an original that never reported progress —
            // a lower bound: all of the task's work still ahead of it, done no faster than the
            // copy did it from its first report.
            let original = d.attempt.and_then(|o| job.attempt(o));
            let lower_bound = || {
                let first = original.filter(|o| o.progress == 0.0).and(copy.first_progress_at())?;
                Some((end + (end - first).max(0), "lower-bound"))
            };
            let (est, basis) = original
                .and_then(|o| extrapolated_end(o, end))
                .map(|e| (e, "extrapolated"))
                .or(d.original_est_end.map(|e| (e, "at-decision")))
                .or_else(lower_bound)
                .map_or((None, "unknown"), |(e, basis)| (Some(e), basis));
            rec = rec.int("task_end_ms", end).opt_int("original_est_end_ms", est).str("original_est", basis);
            if let Some(est) = est {
                rec = rec.num("saved_s", (est - end) as f64 / 1000.0);
                let e = self.counterfactual_end.entry(d.task).or_insert(est);
                *e = (*e).max(est);
            }
            self.roi.copies_won += 1;
        } else {
            rec = rec.num("saved_s", 0.0);
        }
        self.emit(rec.finish());
        self.decisions[idx].settled = true;
    }

    /// Settles the copies of a task that ended before the AM found them a container: they
    /// cost nothing and saved nothing.
    fn never_launched(&mut self, now: Millis, task: TaskId) {
        for (idx, copies) in self.unstarted.take_all(task) {
            let line = self
                .settle(now, idx, "not-launched")
                .int("copies", copies as i64)
                .num("container_s", 0.0)
                .num("saved_s", 0.0)
                .finish();
            self.emit(line);
        }
    }

    /// Scores the decisions that wait for their task's end: restarts (act) and every copy or
    /// restart in shadow mode.
    fn task_succeeded(&mut self, now: Millis, winner: AttemptId, end: Millis, job: &JobState) {
        let Some(waiting) = take(&mut self.at_task_end, &winner.task) else { return };
        for idx in waiting {
            let d = &self.decisions[idx];
            if d.settled {
                continue;
            }
            let mut rec = self
                .outcome(now, idx)
                .boolean("shadow", self.shadow)
                .int("task_end_ms", end)
                .int("winner", winner.n as i64);
            if self.shadow {
                // What a copy started at the decision would have changed.
                let copy_end = d.copy_est_ms.map(|ms| d.at + ms);
                rec = rec.str("result", "not-acted").opt_int("copy_est_end_ms", copy_end);
                if let Some(copy_end) = copy_end {
                    rec = rec.num("would_save_s", (end - copy_end) as f64 / 1000.0);
                    if copy_end < end {
                        let e = self.counterfactual_end.entry(d.task).or_insert(copy_end);
                        *e = (*e).min(copy_end);
                    }
                }
            } else {
                // A restart: its replacement (or a later attempt) won, or an older one did.
                let replaced = d.attempt.is_some_and(|k| winner.n > k.n);
                let killed = d.attempt.and_then(|k| job.attempt(k));
                let spent = killed.map(|k| (k.finish().unwrap_or(now) - k.start).max(0));
                rec = rec
                    .str("result", if replaced { "won" } else { "lost" })
                    .opt_num("container_s", spent.map(|ms| ms as f64 / 1000.0))
                    .opt_int("original_est_end_ms", d.original_est_end);
                if let Some(est) = d.original_est_end.filter(|_| replaced) {
                    rec = rec.num("saved_s", (est - end) as f64 / 1000.0);
                    let e = self.counterfactual_end.entry(d.task).or_insert(est);
                    *e = (*e).max(est);
                }
            }
            self.emit(rec.finish());
            self.decisions[idx].settled = true;
        }
    }

    /// The summary record at `now`: actions by kind, copies, what they cost and saved, and the
    /// ratio. Copies still running count with their time so far.
    pub fn summary(&self, now: Millis, job: &JobState) -> String {
        let mut counts = [0i64; 5];
        for d in &self.decisions {
            counts[d.verb as usize] += 1;
        }
        let running: i64 = self
            .copies
            .keys()
            .filter_map(|a| job.attempt(*a))
            .map(|a| (a.finish().unwrap_or(now) - a.start).max(0))
            .sum();
        let roi = Roi { copy_container_ms: self.roi.copy_container_ms + running, ..self.roi };
        let mut actions = Obj::new();
        for (verb, n) in [Verb::Copy, Verb::Clone, Verb::Restart, Verb::Veto, Verb::Move].iter().zip(counts) {
            actions = actions.int(verb.name(), n);
        }
        Obj::new()
            .str("record", "summary")
            .int("at_ms", now)
            .str("policy", self.policy)
            .boolean("shadow", self.shadow)
            .raw("actions", &actions.finish())
            .int("copies_asked", roi.copies_asked as i64)
            .int("copies_launched", roi.copies_launched as i64)
            .int("copies_won", roi.copies_won as i64)
            .num("copy_container_s", roi.copy_container_ms as f64 / 1000.0)
            .num(if self.shadow { "estimated_job_s_rein_would_save" } else { "estimated_job_s_saved" }, roi.saved_ms as f64 / 1000.0)
            .opt_num("saved_per_container_s", roi.ratio())
            .opt_int("job_end_ms", self.actual_end)
            .finish()
    }
}
