//! What the engine knows about one job: its tasks, their attempts and the nodes they ran on.
//!
//! The state is fed only by [`crate::event::Event`]s; policies read it and never change it.
//! Everything a policy could not see in a real ApplicationMaster (true task sizes, node speeds)
//! is deliberately absent.

use std::cell::{Ref, RefCell};
use std::collections::BTreeMap;
use std::fmt;
use std::num::NonZeroU64;
use std::sync::Mutex;
use crate::idmap::IdMap;
use crate::memory;
use crate::stats::order_key;

/// A node's `host:port`, interned for the life of the process: a cluster's node names are few
/// and come back job after job, so the names are kept once and a copy of one is a pointer's copy.
/// A decision that names nodes in 100K actions thus does not count 100K references to shared
/// names (an `Arc<str>` clone is an atomic operation, costly beside the decision's cache misses),
/// and a name is one word (a pointer to the interned string's own pointer and length). Equality,
/// order and hashing are the string's.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeName(&'static Box<str>);

impl NodeName {
    pub fn as_str(&self) -> &'static str {
        self.0
    }

    /// A number that stands for the name as long as the process lives, the same for equal names
    /// (names are interned) and different for different ones: cheaper to hash than the string,
    /// for a caller that maps thousands of names a decision (the JNI glue's encoding).
    pub fn id(&self) -> usize {
        self.0 as *const Box<str> as usize
    }
}

impl From<&str> for NodeName {
    fn from(name: &str) -> NodeName {
        static NAMES: Mutex<BTreeMap<&'static str, &'static Box<str>>> = Mutex::new(BTreeMap::new());
        let mut names = NAMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(&known) = names.get(name) {
            return NodeName(known);
        }
        let new: &'static Box<str> = Box::leak(Box::new(name.into()));
        names.insert(new, new);
        NodeName(new)
    }
}

impl From<String> for NodeName {
    fn from(name: String) -> NodeName {
        NodeName::from(name.as_str())
    }
}

impl std::ops::Deref for NodeName {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl std::borrow::Borrow<str> for NodeName {
    fn borrow(&self) -> &str {
        self.0
    }
}

impl AsRef<str> for NodeName {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl fmt::Display for NodeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self.0, f)
    }
}

impl fmt::Debug for NodeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self.0, f)
    }
}

/// Milliseconds on the caller's clock. The engine never reads a wall clock.
pub type Millis = i64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TaskKind {
    Map,
    Reduce,
}

impl TaskKind {
    pub const ALL: [TaskKind; 2] = [TaskKind::Map, TaskKind::Reduce];

    pub fn letter(self) -> char {
        match self {
            TaskKind::Map => 'm',
            TaskKind::Reduce => 'r',
        }
    }
}

/// A task within the job, e.g. map 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId {
    pub kind: TaskKind,
    pub index: u32,
}

impl TaskId {
    pub fn map(index: u32) -> TaskId {
        TaskId { kind: TaskKind::Map, index }
    }
    pub fn reduce(index: u32) -> TaskId {
        TaskId { kind: TaskKind::Reduce, index }
    }
    pub fn attempt(self, n: u32) -> AttemptId {
        AttemptId { task: self, n }
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:06}", self.kind.letter(), self.index)
    }
}

/// Attempt `n` of a task (Hadoop numbers attempts from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AttemptId {
    pub task: TaskId,
    pub n: u32,
}

impl fmt::Display for AttemptId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.task, self.n)
    }
}

/// Index into [`JobState::nodes`]; node names (`host:port`) are interned once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeIdx(pub u32);

/// The phase an attempt last reported (Hadoop's `Phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Starting,
    Map,
    Shuffle,
    Sort,
    Reduce,
    Cleanup,
}

impl Phase {
    pub const COUNT: usize = 6;

    pub fn index(self) -> usize {
        self as usize
    }

    /// Phases in which a task reads its input (Mantri's d_read grows): map, shuffle.
    pub fn reads_input(self) -> bool {
        matches!(self, Phase::Starting | Phase::Map | Phase::Shuffle)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptState {
    Running,
    Succeeded,
    Failed,
    Killed,
}

#[derive(Clone, Debug)]
pub struct Attempt {
    pub id: AttemptId,
    pub node: Option<NodeIdx>,
    pub start: Millis,
    pub state: AttemptState,
    pub progress: f64,
    pub phase: Phase,
    /// When the last progress report arrived and when the attempt ended, in ms after its start
    /// (see `offset`; an end is at most 49 days after it).
    reported_at: i32,
    finish: Option<u32>,
    /// The engine asked for this attempt (a speculative copy), as opposed to Hadoop's first attempt.
    pub is_copy: bool,
    /// The last few progress reports, oldest first: what moving averages are taken over
    /// (`Attempt::reports`).
    reports: Reports,
    /// When a reduce attempt was first seen sorting and reducing (its shuffle starts with it).
    sort_started: Mark,
    reduce_started: Mark,
    /// When the attempt had read all its input: its first report past the reading phase (MAP for
    /// a map, SHUFFLE for a reduce), and its progress then. Times within the attempt are kept as
    /// milliseconds after its start, saturated at 24 days: half the memory of a `Millis`.
    input_done_at: Mark,
    pub input_done_progress: f64,
    /// When the attempt first reported progress above zero: launch to then is its start-up
    /// (container, JVM, task set-up), which GRASS's start-up cost is measured from.
    first_progress_at: Mark,
    /// Progress per second, exponentially smoothed over reports (Hadoop-like estimator); NaN
    /// until two reports give a rate (a rate is never NaN: one f64 instead of an `Option`'s two).
    smoothed_rate: f64,
}

/// A moment within an attempt that may not have come yet, in ms after the attempt's start: an
/// `Option<i32>` in the four bytes of an `i32`, `i32::MIN` standing for none (`Attempt::mark`
/// saturates one above it, 24.8 days before the start).
#[derive(Clone, Copy, Debug)]
struct Mark(i32);

impl Mark {
    const NONE: Mark = Mark(i32::MIN);

    fn get(self) -> Option<i32> {
        (self.0 != i32::MIN).then_some(self.0)
    }

    fn is_none(self) -> bool {
        self.0 == i32::MIN
    }
}

/// A small ring of the latest `(time, progress)` reports of an attempt, kept compact: times as
/// milliseconds after the attempt's start (`base`, which the attempt keeps), progress in single
/// precision.
#[derive(Clone, Debug, Default)]
struct Reports {
    items: [(u32, f32); Reports::CAP],
    len: u8,
    head: u8,
}

impl Reports {
    const CAP: usize = 5;

    fn push(&mut self, base: Millis, at: Millis, progress: f64) {
        let offset = (at - base).clamp(0, u32::MAX as i64) as u32;
        let slot = (self.head as usize + self.len as usize) % Self::CAP;
        self.items[slot] = (offset, progress as f32);
        if (self.len as usize) < Self::CAP {
            self.len += 1;
        } else {
            self.head = ((self.head as usize + 1) % Self::CAP) as u8;
        }
    }

    fn get(&self, base: Millis, i: usize) -> (Millis, f64) {
        let (offset, p) = self.items[(self.head as usize + i) % Self::CAP];
        (base + offset as Millis, p as f64)
    }

    fn iter(&self, base: Millis) -> impl Iterator<Item = (Millis, f64)> + '_ {
        (0..self.len as usize).map(move |i| self.get(base, i))
    }

    fn last(&self, base: Millis) -> Option<(Millis, f64)> {
        (self.len > 0).then(|| self.get(base, self.len as usize - 1))
    }

    /// The first and the last report of the window as kept (ms after the start, progress).
    fn ends(&self) -> Option<((u32, f32), (u32, f32))> {
        let at = |i: usize| self.items[(self.head as usize + i) % Self::CAP];
        (self.len > 0).then(|| (at(0), at(self.len as usize - 1)))
    }
}

const REDUCE_PHASES: [Phase; 3] = [Phase::Shuffle, Phase::Sort, Phase::Reduce];

impl Done {
    /// A finished attempt's record, and how long it ran in ms as the job lists it
    /// ([`listed_run_ms`]; `secs` is that over 1,000); `first`: whether it is its task's first
    /// success (`Done::was_first`).
    fn of(a: &Attempt, kind: TaskKind, key: (u32, u32), first: bool) -> (Done, u32) {
        let finish = a.finish().unwrap_or(a.start);
        let ran_ms = listed_run_ms(a.elapsed(finish));
        let secs = crate::stats::secs_of_ms(ran_ms);
        let (wrapup_ms, wrapup_progress) =
            a.input_done_at().map_or((NO_SPAN, f64::NAN), |done| (span_ms(done, finish), a.input_done_progress));
        let mut phases_ms = [NO_SPAN; 3];
        if kind == TaskKind::Reduce {
            for (i, p) in REDUCE_PHASES.iter().enumerate() {
                let begin = a.phase_start(*p);
                let end = REDUCE_PHASES.get(i + 1).map_or(Some(finish), |n| a.phase_start(*n));
                if let (Some(b), Some(e)) = (begin, end) {
                    phases_ms[i] = span_ms(b, e);
                }
            }
        }
        let done = Done {
            key,
            secs,
            wrapup_progress,
            wrapup_ms,
            phases_ms,
            startup_ms: a.startup_ms().map_or(-1, |ms| i32::try_from(ms).unwrap_or(i32::MAX)),
            first,
        };
        (done, ran_ms)
    }

    /// Seconds from having read its input to finishing, and its progress score when it had; None
    /// if it never read all its input.
    pub fn wrapup(&self) -> Option<(f64, f64)> {
        span_secs(self.wrapup_ms).map(|secs| (secs, self.wrapup_progress))
    }

    /// Seconds spent in each reduce phase it went through (shuffle, sort, reduce).
    pub fn phases(&self) -> [Option<f64>; 3] {
        self.phases_ms.map(span_secs)
    }

    /// The attempt's launch to first progress in ms (`Attempt::startup_ms`).
    pub fn startup_ms(&self) -> Option<Millis> {
        Some(Millis::from(self.startup_ms)).filter(|ms| *ms >= 0)
    }

    /// Whether it was its task's first success when it came (the task had none, or none left).
    pub fn was_first(&self) -> bool {
        self.first
    }
}

impl Attempt {
    pub fn is_running(&self) -> bool {
        self.state == AttemptState::Running
    }

    /// When the attempt entered `phase`, if it has: the phases a task starts in begin with it.
    pub fn phase_start(&self, phase: Phase) -> Option<Millis> {
        match phase {
            Phase::Starting | Phase::Map | Phase::Shuffle => Some(self.start),
            Phase::Sort => self.sort_started.get().map(|d| self.start + d as Millis),
            Phase::Reduce => self.reduce_started.get().map(|d| self.start + d as Millis),
            Phase::Cleanup => None,
        }
    }

    /// Whether killing the attempt now risks finished work: it reported its cleanup phase (past
    /// its last working phase: committing, or done and waiting for its container to exit) or
    /// progress of at least [`Attempt::FINISHING_PROGRESS`]. Hadoop runs a kill that reaches an
    /// attempt of a map already in SUCCESS_FINISHING_CONTAINER: the map's output is dropped and
    /// the map re-runs. Killing attempts this close to their end saves nothing anyway.
    pub fn finishing(&self) -> bool {
        self.phase == Phase::Cleanup || self.progress >= Self::FINISHING_PROGRESS
    }

    /// Progress from which an attempt is never restarted, vetoed or moved (see `finishing`).
    pub const FINISHING_PROGRESS: f64 = 0.9;

    /// Progress per second, exponentially smoothed over reports, once two reports give a rate.
    pub fn smoothed_rate(&self) -> Option<f64> {
        (!self.smoothed_rate.is_nan()).then_some(self.smoothed_rate)
    }

    /// When the last progress report arrived.
    pub fn reported_at(&self) -> Millis {
        self.start + self.reported_at as Millis
    }

    /// When the attempt ended, once it has.
    pub fn finish(&self) -> Option<Millis> {
        self.finish.map(|d| self.start + d as Millis)
    }

    /// When the attempt had read all its input (see the field).
    pub fn input_done_at(&self) -> Option<Millis> {
        self.input_done_at.get().map(|d| self.start + d as Millis)
    }

    /// When the attempt first reported progress above zero (see the field).
    pub fn first_progress_at(&self) -> Option<Millis> {
        self.first_progress_at.get().map(|d| self.start + d as Millis)
    }

    /// The last few progress reports, `(time, progress)`, oldest first: what moving averages are
    /// taken over.
    pub fn reports(&self) -> impl Iterator<Item = (Millis, f64)> + '_ {
        self.reports.iter(self.start)
    }

    /// The latest progress report, `(time, progress)`.
    pub fn last_report(&self) -> Option<(Millis, f64)> {
        self.reports.last(self.start)
    }

    /// `at` as milliseconds after the attempt's start, saturated to 24 days either side.
    fn offset(&self, at: Millis) -> i32 {
        (at - self.start).clamp(i32::MIN as Millis, i32::MAX as Millis) as i32
    }

    /// `at` as a [`Mark`] of the attempt.
    fn mark(&self, at: Millis) -> Mark {
        Mark(self.offset(at).max(i32::MIN + 1))
    }

    /// Time from launch to the first progress, once the attempt has shown any.
    pub fn startup_ms(&self) -> Option<Millis> {
        self.first_progress_at().map(|at| (at - self.start).max(0))
    }

    /// Time the attempt has been running at `now` (never negative, even if the clock stepped back).
    pub fn elapsed(&self, now: Millis) -> Millis {
        (self.finish().unwrap_or(now) - self.start).max(0)
    }
}

#[derive(Clone, Debug)]
pub struct Task {
    pub id: TaskId,
    /// The task's attempts, in arrival order (rarely more than one or two).
    attempts: Attempts,
    pub succeeded: bool,
    /// Output bytes of the successful attempt (maps), `u64::MAX` while unknown (`output_bytes`):
    /// an `Option`'s tag would take a word of its own in every task's record.
    output: u64,
    /// Since when the task has been waiting for a container, `Millis::MIN` while it is not.
    waiting_since: Millis,
}

impl Task {
    /// Output bytes of the successful attempt (maps), when the caller knows them.
    pub fn output_bytes(&self) -> Option<u64> {
        (self.output != u64::MAX).then_some(self.output)
    }

    /// Sets or forgets the output bytes; a size of `u64::MAX` bytes counts as unknown.
    pub(crate) fn set_output_bytes(&mut self, bytes: Option<u64>) {
        self.output = bytes.unwrap_or(u64::MAX);
    }

    /// Since when the task has been waiting for a container, if it is.
    pub fn waiting_since(&self) -> Option<Millis> {
        (self.waiting_since != Millis::MIN).then_some(self.waiting_since)
    }
}

/// What the walks of a decision over every running task read of a task's one running attempt,
/// kept by the job beside the tasks in a record of 48 bytes, the task's own being about 200:
/// LATE's survey, the Hadoop model and Dolly read these for every running task, and Mantri, ESE
/// and `auto` judge from them a task whose estimate they hold (`Estimator::brief_time_left_s`).
/// Kept while the task has exactly one running attempt (`JobState::brief`); for a task with more,
/// the walks read the task.
#[derive(Clone, Copy, Debug)]
pub struct Brief {
    start: Millis,
    progress: f64,
    /// The last report's time, in ms after the start (as the attempt keeps it).
    reported_at: i32,
    /// The node's index, `u32::MAX` while the attempt is not placed: a `NodeIdx` in four bytes.
    node: u32,
    /// The first and the last report of the attempt's window of reports, as it keeps them (ms
    /// after the start, progress), when `reports` > 0: what the Mantri estimate's pace is taken
    /// over.
    first: (u32, f32),
    last: (u32, f32),
    /// When the attempt first showed progress, as the attempt keeps it.
    first_progress: Mark,
    /// The attempt's number; an attempt numbered beyond `u16::MAX` has no brief.
    n: u16,
    /// How many reports the window holds (at most `Reports::CAP`).
    reports: u8,
    /// Whether the attempt has read all its input (`Attempt::input_done_at`).
    input_done: bool,
}

const _: () = assert!(std::mem::size_of::<Brief>() <= 48, "a brief is read for every running task of every scan");

/// Writes into `place` the brief of the running attempt of a task that runs one
/// (`JobState::refresh_brief`).
#[inline(never)]
fn running_brief(task: &Task, place: &mut Option<Brief>) {
    *place = task.attempts.iter().find(|a| a.is_running()).and_then(Brief::of);
}

impl Brief {
    /// The brief of a running attempt, if its number and node fit.
    fn of(a: &Attempt) -> Option<Brief> {
        let node = match a.node {
            Some(n) if n.0 == u32::MAX => return None,
            Some(n) => n.0,
            None => u32::MAX,
        };
        let ends = a.reports.ends();
        let (first, last) = ends.unwrap_or_default();
        Some(Brief {
            start: a.start,
            progress: a.progress,
            reported_at: a.reported_at,
            node,
            first,
            last,
            n: u16::try_from(a.id.n).ok()?,
            first_progress: a.first_progress_at,
            reports: a.reports.len,
            input_done: a.input_done_at.get().is_some(),
        })
    }

    /// The attempt's id, given its task's.
    pub fn attempt(&self, task: TaskId) -> AttemptId {
        task.attempt(self.n as u32)
    }

    /// As the attempt's fields and methods of the same names give them.
    pub fn start(&self) -> Millis {
        self.start
    }

    pub fn progress(&self) -> f64 {
        self.progress
    }

    pub fn node(&self) -> Option<NodeIdx> {
        (self.node != u32::MAX).then_some(NodeIdx(self.node))
    }

    pub fn reported_at(&self) -> Millis {
        self.start + self.reported_at as Millis
    }

    /// Whether the attempt has reported progress above zero (`Attempt::first_progress_at`).
    pub fn shown_progress(&self) -> bool {
        !self.first_progress.is_none()
    }

    /// When the attempt first showed progress (`Attempt::first_progress_at`).
    pub fn first_progress_at(&self) -> Option<Millis> {
        self.first_progress.get().map(|d| self.start + d as Millis)
    }

    /// The first report of the attempt's window (`Attempt::reports`' first).
    pub fn first_report(&self) -> Option<(Millis, f64)> {
        (self.reports > 0).then(|| (self.start + self.first.0 as Millis, self.first.1 as f64))
    }

    /// The attempt's last report (`Attempt::last_report`).
    pub fn last_report(&self) -> Option<(Millis, f64)> {
        (self.reports > 0).then(|| (self.start + self.last.0 as Millis, self.last.1 as f64))
    }

    /// How many reports the attempt's window holds (`Attempt::reports`' count).
    pub fn report_count(&self) -> usize {
        self.reports as usize
    }

    /// Whether the attempt has read all its input (`Attempt::input_done_at` is some).
    pub fn input_done(&self) -> bool {
        self.input_done
    }

    /// Time the attempt has been running at `now` (`Attempt::elapsed` of a running attempt).
    pub fn elapsed(&self, now: Millis) -> Millis {
        (now - self.start).max(0)
    }
}

/// A task's running attempts and what the engine's own decisions booked on it: what a decision
/// reads and writes of every task it copies, kept by the job beside the tasks in a record of 24
/// bytes rather than in the task's of about 160. A decision that copies 100K tasks books them in
/// the order of their rank, not of the tasks: these records stay in the caches where the tasks'
/// would not (`JobState::booking`).
#[derive(Clone, Copy, Debug)]
pub struct Booking {
    running: u32,
    copies_pending: u32,
    copies_requested: u32,
    restarts: u16,
    /// Containers the task is waiting for: the sum of Hadoop's TASK_CONTAINER_NEED_UPDATE
    /// changes, which count a copy's container request as they count a first attempt's.
    containers_wanted: i16,
    /// When the engine last asked for a copy or clone of the task; `Millis::MIN` for never, so
    /// that the record is three words (see `last_copy_at`).
    last_copy_at: Millis,
}

impl Default for Booking {
    fn default() -> Booking {
        Booking { running: 0, copies_pending: 0, copies_requested: 0, restarts: 0, containers_wanted: 0, last_copy_at: Millis::MIN }
    }
}

impl Booking {
    /// Attempts of the task running now.
    pub fn running(&self) -> u32 {
        self.running
    }

    /// Copies the engine asked for that have not shown up as attempts yet.
    pub fn copies_pending(&self) -> u32 {
        self.copies_pending
    }

    /// Copies the engine asked for over the task's life.
    pub fn copies_requested(&self) -> u32 {
        self.copies_requested
    }

    /// Attempts the engine killed so that Hadoop restarts the task (Mantri's γ).
    pub fn restarts(&self) -> u32 {
        self.restarts as u32
    }

    /// Containers the task is waiting for, its copies' included.
    pub fn containers_wanted(&self) -> u32 {
        self.containers_wanted.max(0) as u32
    }

    /// Containers the task is waiting for beyond the copies the engine asked for and not yet
    /// seen start: what waits for a slot other than the engine's own copies.
    fn containers_wanted_beyond_copies(&self) -> u32 {
        self.containers_wanted().saturating_sub(self.copies_pending)
    }

    /// What the task counts in the job's totals over its tasks (`JobState::count_booking_change`).
    fn totals(&self, succeeded: bool) -> BookingTotals {
        BookingTotals {
            speculated: self.speculated(succeeded),
            copies_pending: self.copies_pending,
            wanted_beyond_copies: self.containers_wanted_beyond_copies(),
        }
    }

    /// When the engine last asked for a copy or clone of the task.
    pub fn last_copy_at(&self) -> Option<Millis> {
        (self.last_copy_at != Millis::MIN).then_some(self.last_copy_at)
    }

    /// Whether a task not succeeded has more than one live copy (running attempts plus copies
    /// asked for and not started): a task being speculated.
    fn speculated(&self, succeeded: bool) -> bool {
        !succeeded && self.running + self.copies_pending > 1
    }
}

/// What one task's booking counts in the job's totals over its tasks.
#[derive(Clone, Copy)]
struct BookingTotals {
    speculated: bool,
    copies_pending: u32,
    wanted_beyond_copies: u32,
}

/// What [`JobState::start_attempt`] found, for the engine's hooks on a start: whether the attempt
/// is new, whether it had a node before this report, and whether it is one of the engine's copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Started {
    pub new: bool,
    pub placed_before: bool,
    pub is_copy: bool,
}

/// Asks the processor to bring `x`'s first cache line in, without waiting for it.
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    prefetch_at(x as *const T as usize);
}

/// `prefetch` of every cache line `x` spans.
#[inline(always)]
pub(crate) fn prefetch_lines<T>(x: &T) {
    each_line(x, prefetch_at);
}

/// Calls `f` with an address in every cache line `x` spans, in order (the last line maybe twice):
/// every 64 bytes from its first byte, then its last byte. The count of calls depends on the
/// type alone, so that the loop unrolls and no branch hangs on where `x` lies: a loop over the
/// lines themselves mispredicted their count, as often as not for a record under a line long
/// that may straddle two (a task's brief and booking, asked for by every event of a batch).
#[inline(always)]
fn each_line<T>(x: &T, f: impl Fn(usize)) {
    let (start, size) = (x as *const T as usize, std::mem::size_of::<T>());
    if size == 0 {
        return;
    }
    let mut offset = 0;
    while offset + 64 < size {
        f(start + offset);
        offset += 64;
    }
    f(start + offset);
    f(start + size - 1);
}

/// The prefetch of the cache line holding `address`, which must lie within a live value.
#[inline(always)]
fn prefetch_at(address: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it reads nothing into the program and never faults, and the
    // address is within a live value besides.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(address as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// `prefetch_lines` for memory about to be written: each line is asked for with the intent to
/// write it (`prefetchw`), so that the store that follows finds it owned.
#[inline(always)]
pub(crate) fn prefetch_lines_for_write<T>(x: &T) {
    each_line(x, |line| {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a hint that reads and writes nothing and never faults; a processor without
        // `prefetchw` runs its encoding as a no-op.
        unsafe {
            std::arch::asm!("prefetchw [{0}]", in(reg) line, options(nostack, preserves_flags, readonly))
        };
        #[cfg(not(target_arch = "x86_64"))]
        let _ = line;
    });
}

/// How many tasks ahead of a walk's turn `JobState::prefetch_brief_ahead` asks for a brief: about
/// 3 KB of briefs, a few dozen running tasks on a job that runs half of its tasks at once.
const BRIEF_AHEAD: usize = 64;

/// A task's attempts, the first kept inline in the task: most tasks only ever have one, and a
/// decision's walks over the tasks then read one contiguous array instead of following a
/// pointer per task.
#[derive(Clone, Debug, Default)]
enum Attempts {
    #[default]
    None,
    One(Attempt),
    Many(Vec<Attempt>),
}

impl Attempts {
    fn as_slice(&self) -> &[Attempt] {
        match self {
            Attempts::None => &[],
            Attempts::One(a) => std::slice::from_ref(a),
            Attempts::Many(v) => v,
        }
    }

    fn as_mut_slice(&mut self) -> &mut [Attempt] {
        match self {
            Attempts::None => &mut [],
            Attempts::One(a) => std::slice::from_mut(a),
            Attempts::Many(v) => v,
        }
    }

    fn iter(&self) -> std::slice::Iter<'_, Attempt> {
        self.as_slice().iter()
    }

    fn iter_mut(&mut self) -> std::slice::IterMut<'_, Attempt> {
        self.as_mut_slice().iter_mut()
    }

    fn push(&mut self, a: Attempt) {
        match self {
            // A task's first attempt, the usual case: written in place, nothing taken out first.
            Attempts::None => *self = Attempts::One(a),
            Attempts::Many(v) => v.push(a),
            Attempts::One(_) => {
                if let Attempts::One(first) = std::mem::take(self) {
                    *self = Attempts::Many(vec![first, a]);
                }
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct Node {
    pub name: NodeName,
    pub rack: Option<String>,
    pub lost: bool,
}

/// Everything the engine has been told about one job.
#[derive(Clone, Debug, Default)]
pub struct JobState {
    maps: Vec<Task>,
    reduces: Vec<Task>,
    /// Per kind, by task index, beside `maps` and `reduces`.
    booked: [Vec<Booking>; 2],
    briefs: [Vec<Option<Brief>>; 2],
    /// Input bytes (maps), when the caller knows them (`input_bytes`).
    inputs: [Vec<Option<NonZeroU64>>; 2],
    nodes: Vec<Node>,
    /// Hashed as ids are: the names come from the cluster, never from a hostile caller, and
    /// every attempt's start looks its node up here.
    node_index: IdMap<String, NodeIdx>,
    /// The caller's node ids (`Event::NodeNamed`), by id.
    node_ids: Vec<Option<NodeIdx>>,
    /// The nodes in the order of their names: a decision's avoid list, sorted by name, is read
    /// off it rather than sorted (a string comparison each step).
    nodes_by_name: Vec<NodeIdx>,
    /// Slots the cluster gives this job, when the caller reports it.
    pub reported_slots: Option<u32>,
    /// Free slots at the last capacity report, when known.
    pub free_slots: Option<u32>,
    /// Copies of stragglers one decision asks for at most (`rein.max-copies-per-scan`); None: no
    /// bound. Set by the engine from its configuration.
    pub max_copies_per_scan: Option<u32>,
    /// Whether a big job's blocks are advised for huge pages (`rein.memory.huge-pages`,
    /// `memory::reserve_exact`): its per-task lists and lists of successes here, and the
    /// policies' big blocks (Dolly's list of clones, the stock model's memo). Set by the engine
    /// from its configuration.
    pub huge_pages: bool,
    /// Slots other jobs are known to hold (for cloning policies' utilisation), when reported.
    pub busy_elsewhere: u32,
    /// Speculative copies other jobs run or wait for, when the caller reports it (LATE's cap).
    pub copies_elsewhere: u32,
    /// The most attempts ever seen running at once: the job's observed footprint.
    pub peak_running: u32,
    /// Mean delay from a task asking for a container to its attempt starting (Mantri's schedLag).
    pub sched_lag: Mean,
    /// What decisions would otherwise recompute from every task at every call, kept as events
    /// arrive so that a decision costs O(running attempts), not O(tasks) (DESIGN: costs).
    index: Index,
}

/// A succeeded attempt, as the estimators see it; fixed once the attempt has finished. 48 bytes:
/// the job keeps one per success and the estimators read them all, so the figures that may be
/// absent are kept as NaN or a reserved value rather than as options (104 bytes), and the times
/// made from two instants are kept in whole ms, 32 bits each, read back in seconds as the same
/// doubles a division of the ms by 1,000 makes (as doubles the record took 64 bytes: on memory an
/// ApplicationMaster meets for the first time, each 4-KB page of the list is a fault, once in 85
/// successes rather than once in 64). The start-up is kept here rather than in a list beside (as it was): a success then
/// writes one fresh record, not two, and a big job's list of them is big enough to be mapped on
/// huge pages (`memory`), where its first touch faults once per 2 MB rather than once per 4 KB.
#[derive(Clone, Copy, Debug)]
pub struct Done {
    /// The task's index and the attempt's position among the task's attempts.
    pub key: (u32, u32),
    /// Seconds the attempt ran (up to `u32::MAX` ms, [`listed_run_ms`]).
    pub secs: f64,
    /// `wrapup`'s progress score; NaN when absent.
    wrapup_progress: f64,
    /// `wrapup`'s time in ms ([`span_ms`]); [`NO_SPAN`] when absent.
    wrapup_ms: u32,
    /// `phases`' times in ms ([`span_ms`]); [`NO_SPAN`] where absent.
    phases_ms: [u32; 3],
    /// The attempt's launch to first progress in ms (`Attempt::startup_ms`, which the attempt
    /// keeps in 32 bits too); -1 for none. Mantri's t_new samples read it for the first
    /// successes without reading the attempts.
    startup_ms: i32,
    /// Whether it was its task's first success when it came: the task had none, or none left
    /// (`JobState::success_ever_lost`). The first successes in the order they came are these
    /// records (`JobState::first_successes`), where a list of their tasks took 4 more bytes a
    /// task, first touched as the tasks succeed.
    first: bool,
}

const _: () = assert!(std::mem::size_of::<Done>() <= 48, "a job keeps one per success, read by the estimators");

/// A record's time that is absent (`Done::wrapup_ms`, `Done::phases_ms`).
const NO_SPAN: u32 = u32::MAX;

/// A record's time from one instant to a later one, in ms, clamped as a run time is
/// ([`listed_run_ms`]: 0 if the later came first), and short of [`NO_SPAN`].
fn span_ms(from: Millis, to: Millis) -> u32 {
    listed_run_ms(to - from).min(NO_SPAN - 1)
}

/// A record's time in seconds, if present.
fn span_secs(ms: u32) -> Option<f64> {
    (ms != NO_SPAN).then(|| crate::stats::secs_of_ms(ms))
}

/// Per task kind: tasks with a running attempt, succeeded attempts and first successes in the
/// order they happened, and counts.
#[derive(Clone, Debug, Default)]
struct Index {
    running_tasks: [TaskBits; 2],
    /// Per kind, the attempts running now (copies counted).
    running_attempts: [u32; 2],
    /// Per kind, the tasks that have succeeded (`Task::succeeded`): with `running_tasks`, the
    /// running tasks not yet done are found a word of 64 at a time, without reading a task.
    succeeded_tasks_bits: [TaskBits; 2],
    /// The succeeded attempts and their run times, in the order they finished (`Finished`).
    finished: Finished,
    /// Per kind, `finished_run_ms` in increasing order (`JobState::finished_run_ms_sorted`):
    /// apart, so that only its reader merges it. In ms, whole numbers, so that the 33K a second
    /// that finish at the end of a wave are sorted by counting (`RunsSorted`).
    runs_sorted: RefCell<[RunsSorted; 2]>,
    /// Per kind, the launch-to-first-progress of every attempt that has shown progress, in ms,
    /// sorted (`JobState::startups_ms`).
    startups: RefCell<[Growing<u32>; 2]>,
    /// Per kind, the fit's and the mean's sums over `finished_run_ms` in seconds, carried on as
    /// it grows (`JobState::finished_duration_sums`): one logarithm per duration for every
    /// policy that fits a tail (SCA and its detecting ESE both read them), taken as each attempt
    /// succeeds (`FitSums::push`) once they are read, or from the first for a policy that reads
    /// them at every scan (`duration_sums_kept`).
    duration_sums: RefCell<[crate::stats::FitSums; 2]>,
    /// Whether `duration_sums` are begun with the first duration listed (`keep_duration_sums`),
    /// rather than at their first read.
    duration_sums_kept: bool,
    /// The running attempts' start times (`RunningStarts`).
    starts: RefCell<RunningStarts>,
    /// Containers wanted beyond each task's copies pending (`Booking::containers_wanted_beyond_copies`).
    containers_wanted_beyond_copies: u64,
    /// Bumped whenever a task's input size is set: what was derived from sizes is stale.
    inputs_epoch: u64,
    /// Per kind: tasks waiting for a container, tasks succeeded, and the attempts now in the
    /// succeeded state with their summed run time in ms (integers: the sum is exact in any order).
    waiting_tasks: [u32; 2],
    succeeded_tasks: [u32; 2],
    succeeded_now: [u32; 2],
    succeeded_ms: [i64; 2],
    /// Per kind: tasks that have had an attempt.
    started_tasks: [u32; 2],
    /// Copies asked for and not started, over every task.
    copies_pending: u64,
    /// Whether a succeeded attempt was ever reported killed or failed (`success_ever_lost`).
    success_lost: bool,
    /// Per kind, the earliest and the latest start of an attempt (`earliest_start`, `latest_start`).
    earliest_start: [Option<Millis>; 2],
    latest_start: [Option<Millis>; 2],
    /// Tasks being speculated (`Task::speculated`).
    speculated_tasks: u32,
    /// Per node index: its attempts now in the succeeded state.
    succeeded_on_node: Vec<u32>,
}

/// Per task kind, the succeeded attempts in the order they finished and their run times, as the
/// policies read them (`JobState::succeeded_attempts`, `JobState::finished_run_ms`): appended
/// as attempts succeed, nothing in them ever moves. Kept in task order instead, every scan of a
/// big job merged a second's finishes into lists of 100K and more (a quarter of the scans at
/// 100K running tasks); in the order things happened, a sum over them can be carried on from
/// where it stopped (`estimate::EstimatorMemo`). A task's first success is found through `first`.
#[derive(Clone, Debug, Default)]
struct Finished {
    done: [Vec<Done>; 2],
    /// Per kind, the run times in ms of `done`'s attempts that ran for some time (`Done::secs` >
    /// 0), in the same order, in 32 bits ([`listed_run_ms`]): 4 bytes a success, where the
    /// seconds as a double took 8 (half the fresh pages a big job's finishes first touch here).
    run_ms: [Vec<u32>; 2],
    /// Per kind, by task index: the place in `done`, plus one, of the task's succeeded attempt
    /// of the lowest number; 0 for none.
    first: [Vec<u32>; 2],
    /// Per kind, how many of `done` were their task's first success when they came (`Done::first`).
    firsts: [usize; 2],
}

impl Finished {
    /// Lists a succeeded attempt of a kind with `tasks` tasks, which ran `ran_ms`
    /// ([`listed_run_ms`]); `huge`: the job's `huge_pages`.
    fn add(&mut self, k: usize, d: Done, ran_ms: u32, tasks: usize, huge: bool) {
        if ran_ms > 0 {
            push_within(&mut self.run_ms[k], ran_ms, tasks, huge);
        }
        let at = u32::try_from(self.done[k].len() + 1).expect("succeeded attempts beyond u32");
        let first = slot(&mut self.first[k], d.key.0 as usize, 0);
        if *first == 0 || self.done[k][*first as usize - 1].key > d.key {
            *first = at;
        }
        self.firsts[k] += usize::from(d.first);
        push_within(&mut self.done[k], d, tasks, huge);
    }

    fn first(&self, k: usize, index: u32) -> Option<&Done> {
        self.first_place(k, index).map(|i| &self.done[k][i])
    }

    fn first_place(&self, k: usize, index: u32) -> Option<usize> {
        let at = *self.first[k].get(index as usize)?;
        at.checked_sub(1).map(|i| i as usize)
    }
}

/// Merges `new`, sorted by `key`, into `list`, sorted by `key`; a new item goes below listed ones
/// of an equal key. Both ways fill the list from the back, in its own room. Many new items (an
/// eighth of the list or more) are merged item by item. Fewer are placed one at a time: for each
/// new item, largest first, the block of listed items above it moves up (one `copy_within`) and
/// the item takes its place below them, so only the listed items after the first new one move,
/// each once.
pub(crate) fn merge_into<T: Copy, K: Ord>(list: &mut Vec<T>, new: &[T], key: impl Fn(&T) -> K) {
    if list.is_empty() {
        list.extend_from_slice(new);
        return;
    }
    if new.is_empty() {
        return;
    }
    if new.len() >= list.len() / 8 {
        // The list grows at its end by the new items' room (by doubling, so that a list merged
        // into second after second is not copied whole to fresh memory each time), then is filled
        // from the back: the larger of the listed and the new items at hand goes to the last
        // place free, a listed item first where the keys are equal.
        let mut listed = list.len();
        list.extend_from_slice(new);
        let mut free = list.len();
        for item in new.iter().rev() {
            let k = key(item);
            while listed > 0 && key(&list[listed - 1]) >= k {
                listed -= 1;
                free -= 1;
                list[free] = list[listed];
            }
            free -= 1;
            list[free] = *item;
        }
        debug_assert_eq!(listed, free, "every new item placed");
        return;
    }
    list.extend_from_slice(new);
    // Listed items before `end` are not placed yet; everything from `placed` on is.
    let (mut end, mut placed) = (list.len() - new.len(), list.len());
    for item in new.iter().rev() {
        let k = key(item);
        let at = place_from_end(list, end, &k, &key);
        let above = end - at;
        list.copy_within(at..end, placed - above);
        placed -= above + 1;
        list[placed] = *item;
        end = at;
    }
    debug_assert_eq!(end, placed, "every new item placed");
}

/// [`merge_into`] from a list the caller owns, left empty: where `list` is empty, `new` becomes
/// it, swapped in rather than copied, and `new` takes the list's old room. A big job's first
/// decision settles every start-up shown so far (100K, 400 KB copied to fresh memory before).
pub(crate) fn merge_from<T: Copy, K: Ord>(list: &mut Vec<T>, new: &mut Vec<T>, key: impl Fn(&T) -> K) {
    if list.is_empty() {
        std::mem::swap(list, new);
    } else {
        merge_into(list, new, key);
    }
    new.clear();
}

/// Merges the floats `new`, sorted, into the sorted `list` (`merge_into`).
pub(crate) fn merge_sorted(list: &mut Vec<f64>, new: &[f64]) {
    merge_into(list, new, |x| order_key(*x));
}

/// The place of `k` in the sorted `list[..end]` (the first item not below it), searched from the
/// end: galloping back one, two, four… items, then a binary search between the last two probes.
/// The new items of a merge come close together, largest first: each is found near the last one,
/// in memory the caches still hold, where a binary search over the whole list missed them at
/// nearly every probe.
fn place_from_end<T, K: Ord>(list: &[T], end: usize, k: &K, key: impl Fn(&T) -> K) -> usize {
    // Every item from `hi` to `end` is not below k.
    let (mut hi, mut step) = (end, 1);
    while hi > 0 {
        let probe = hi.saturating_sub(step);
        if key(&list[probe]) < *k {
            return probe + 1 + list[probe + 1..hi].partition_point(|x| key(x) < *k);
        }
        hi = probe;
        step *= 2;
    }
    0
}

/// A sorted list of whole numbers that only grows, such as the start-ups shown so far (launch to
/// first progress: it never changes once shown, and attempts are never forgotten), which GRASS's
/// start-up bar takes its median over at each decision, where it used to read every attempt of
/// the kind. New items wait in `arrived` and are merged in when the list is next read.
#[derive(Clone, Debug)]
struct Growing<T> {
    sorted: Vec<T>,
    arrived: Vec<T>,
    /// The least item, listed or arrived.
    least: Option<T>,
}

impl<T> Default for Growing<T> {
    fn default() -> Growing<T> {
        Growing { sorted: Vec::new(), arrived: Vec::new(), least: None }
    }
}

impl<T: Copy + Ord> Growing<T> {
    fn add(&mut self, item: T) {
        self.arrived.push(item);
        self.note_least(item);
    }

    /// Keeps the least item up to date for an item that will arrive at the next read.
    fn note_least(&mut self, item: T) {
        self.least = Some(self.least.map_or(item, |least| least.min(item)));
    }

    fn unsettled(&self) -> bool {
        !self.arrived.is_empty()
    }

    /// The least item, listed or arrived.
    fn least(&self) -> Option<T> {
        self.least
    }

    /// Merges the arrivals in, sorted by `sort` (by counting: `stats::sort_u32`,
    /// `stats::sort_ms`); their list's room is kept for the next (`merge_from`: the first
    /// arrivals become the list, and the next take its old room).
    fn settle(&mut self, sort: impl Fn(&mut Vec<T>)) {
        if self.arrived.is_empty() {
            return;
        }
        sort(&mut self.arrived);
        merge_from(&mut self.sorted, &mut self.arrived, |x| *x);
    }
}

/// A kind's succeeded run times in ms, sorted: `Growing`, whose arrivals are not listed as
/// successes come but taken at a read from the run times the job lists anyway
/// (`Finished::run_ms`, from place `merged` on). A success then writes only the least here: a
/// big job's finishes between two reads (100K of them in a row at its end, or as a benchmark
/// sends them) do not fill a second list of fresh memory.
#[derive(Clone, Debug, Default)]
struct RunsSorted {
    runs: Growing<Millis>,
    /// How many of the kind's run times are merged into `runs`.
    merged: usize,
}

impl RunsSorted {
    /// Merges in the run times listed beyond `merged`.
    fn take(&mut self, run_ms: &[u32]) {
        let Some(new) = run_ms.get(self.merged..).filter(|new| !new.is_empty()) else { return };
        self.runs.arrived.extend(new.iter().map(|&ms| Millis::from(ms)));
        self.merged = run_ms.len();
        self.runs.settle(|ms: &mut Vec<Millis>| crate::stats::sort_ms(ms));
    }
}

/// A success's run time as the job lists it (`Finished::run_ms`, `Done::of`): its ms, in 32
/// bits, one of 49 days or more listed as `u32::MAX` ms. In seconds through
/// [`crate::stats::secs_of_ms`], as `Done::secs` holds it.
fn listed_run_ms(ran_ms: Millis) -> u32 {
    u32::try_from(ran_ms.max(0)).unwrap_or(u32::MAX)
}

/// A sorted multiset of whole numbers that grows and shrinks in batches: items added and taken
/// out wait in `added` and `removed` until the bag is next read (or until they outnumber the
/// sorted ones by a few thousand, so that an engine never read keeps a bounded backlog), then are
/// sorted and merged in one pass. Every item taken out was added before.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bag {
    sorted: Vec<u32>,
    added: Vec<u32>,
    removed: Vec<u32>,
}

impl Bag {
    /// The backlog beyond the sorted items that `add` and `remove` let wait for a read.
    const BACKLOG: usize = 4_096;

    pub(crate) fn add(&mut self, item: u32) {
        self.added.push(item);
        self.bound();
    }

    pub(crate) fn remove(&mut self, item: u32) {
        self.removed.push(item);
        self.bound();
    }

    fn bound(&mut self) {
        if self.added.len() + self.removed.len() > self.sorted.len() + Bag::BACKLOG {
            self.settle();
        }
    }

    fn unsettled(&self) -> bool {
        !self.added.is_empty() || !self.removed.is_empty()
    }

    /// The items in increasing order, once `settle` has run.
    pub(crate) fn sorted(&self) -> &[u32] {
        debug_assert!(!self.unsettled(), "a bag read before it was settled");
        &self.sorted
    }

    /// Merges the items added in and takes the removed ones out.
    pub(crate) fn settle(&mut self) {
        if !self.unsettled() {
            return;
        }
        // Added in the order their attempts started, usually sorted already; removed in any order.
        self.added.sort_unstable();
        crate::stats::sort_u32(&mut self.removed);
        self.sorted.reserve_exact(self.added.len());
        merge_into(&mut self.sorted, &self.added, |x| *x);
        // Each removed item takes out one equal item, in one pass: both lists are sorted, and every
        // removed item is held, so the next one to take out is never below the item at hand.
        let mut r = 0;
        let removed = &self.removed;
        self.sorted.retain(|&x| {
            debug_assert!(r == removed.len() || removed[r] >= x, "{} taken out of a bag that does not hold it", removed[r]);
            let taken = removed.get(r) == Some(&x);
            r += usize::from(taken);
            !taken
        });
        debug_assert_eq!(r, self.removed.len(), "items taken out of a bag that does not hold them");
        self.added.clear();
        self.removed.clear();
    }
}

/// The start times of a job's running attempts, per kind, and of those among them that have not
/// shown progress yet: what GRASS's start-up bar reads their ages from (`JobState::running_starts`)
/// at each decision that judges a silent attempt, rather than every running attempt's record and a
/// sort of 100K ages. Kept as offsets from the first start seen, in 32 bits (24 days either way);
/// a start beyond that turns the lists off for good, and the bar reads the attempts instead.
/// Kept only for a policy that builds the bar at most scans of a wave (`Policy::reads_startup_bar`:
/// Mantri, ESE, `auto`), from the job's start; any other pays nothing for them, and reads the
/// attempts when it builds the bar.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunningStarts {
    base: Option<Millis>,
    /// Whether the lists are kept (from the job's start).
    kept: bool,
    off: bool,
    pub(crate) all: [Bag; 2],
    pub(crate) silent: [Bag; 2],
}

impl RunningStarts {
    const MIDDLE: Millis = 1 << 31;

    /// A start's place in the lists, or None once they are off.
    fn key(&mut self, start: Millis) -> Option<u32> {
        if self.off || !self.kept {
            return None;
        }
        let base = *self.base.get_or_insert(start);
        let key = u32::try_from(start - base + RunningStarts::MIDDLE).ok();
        if key.is_none() {
            *self = RunningStarts { kept: true, off: true, ..RunningStarts::default() };
        }
        key
    }

    /// An attempt of `kind` started at `start`, silent so far.
    fn started(&mut self, kind: TaskKind, start: Millis) {
        if let Some(k) = self.key(start) {
            self.all[kind as usize].add(k);
            self.silent[kind as usize].add(k);
        }
    }

    /// A running attempt showed its first progress.
    fn shown(&mut self, kind: TaskKind, start: Millis) {
        if let Some(k) = self.key(start) {
            self.silent[kind as usize].remove(k);
        }
    }

    /// A running attempt ended; `silent` if it never showed progress.
    fn ended(&mut self, kind: TaskKind, start: Millis, silent: bool) {
        if let Some(k) = self.key(start) {
            self.all[kind as usize].remove(k);
            if silent {
                self.silent[kind as usize].remove(k);
            }
        }
    }

    /// The age at `now` of an attempt whose start has key `k` (as `Attempt::elapsed`).
    pub(crate) fn age_ms(&self, k: u32, now: Millis) -> Millis {
        let start = self.base.unwrap_or(0) + k as Millis - RunningStarts::MIDDLE;
        (now - start).max(0)
    }

    fn settle(&mut self) {
        self.all.iter_mut().chain(&mut self.silent).for_each(Bag::settle);
    }

    fn settle_silent(&mut self) {
        self.silent.iter_mut().for_each(Bag::settle);
    }
}

/// Both kinds' lists of a cell, with the items that arrived since the last read merged in first.
/// Both at once: a later read, while an earlier read's borrow is held, could not merge its own.
fn settled<T: Copy + Ord>(cell: &RefCell<[Growing<T>; 2]>, sort: impl Fn(&mut Vec<T>) + Copy) -> Ref<'_, [Growing<T>; 2]> {
    if cell.borrow().iter().any(Growing::unsettled) {
        cell.borrow_mut().iter_mut().for_each(|g| g.settle(sort));
    }
    cell.borrow()
}

/// Appends `item` to one of a kind's lists of successes (`Finished`), which
/// come to about one item per task of the kind: when the list is full and shorter than `tasks`,
/// it is given room for `tasks` items at once (or twice its length, if more: a job whose tasks
/// are made as their events come still grows it twofold), rather than doubled on the way there.
/// Each doubling copied the list: about a tenth of a finish's time at 100K tasks in the shim's
/// batches, and a fifth with the records in the caches (`ingest_batches`). Past `tasks` (copies
/// that succeed too) it grows as a `Vec` does. `huge`: the room is advised for huge pages
/// (`memory::reserve_exact`; a 100K-task job's successes take 5.6 MB).
#[inline]
fn push_within<T>(list: &mut Vec<T>, item: T, tasks: usize, huge: bool) {
    if list.len() == list.capacity() {
        make_room(list, tasks, huge);
    }
    list.push(item);
}

/// `push_within`'s growth, out of its way.
#[cold]
#[inline(never)]
fn make_room<T>(list: &mut Vec<T>, tasks: usize, huge: bool) {
    let len = list.len();
    memory::reserve_exact(list, tasks.saturating_sub(len).max(len).max(1), huge);
}

/// The place of index `i` in a list kept by index, grown with `empty` if it is short: at least
/// twofold, since a decision that touches 100K tasks meets their indices in any order, and
/// growing by one place at a time cost a call for each.
#[inline]
pub(crate) fn slot<T: Clone>(list: &mut Vec<T>, i: usize, empty: T) -> &mut T {
    if list.len() <= i {
        grow_through(list, i, empty);
    }
    &mut list[i]
}

/// `slot`'s growth, out of its callers' way: most calls find the place there already (a
/// finish's task in the job's bitsets), and the growth inlined made each of them a call.
#[cold]
#[inline(never)]
fn grow_through<T: Clone>(list: &mut Vec<T>, i: usize, empty: T) {
    list.resize((i + 1).max(2 * list.len()), empty);
}

/// The k-th smallest (from 0) of two sorted lists together, found by halving: how many of the
/// first k + 1 come from `a` is the least i at which `a`'s i-th is not below `b`'s (k − i)-th.
/// The lists' items are whole numbers, of one type or two.
pub(crate) fn kth_of_two<A: Copy + Into<i64>, B: Copy + Into<i64>>(a: &[A], b: &[B], k: usize) -> i64 {
    kth_of_two_by(a, b.len(), |j| b[j].into(), k)
}

/// [`kth_of_two`] with the second list read by place (`b_at(j)` its j-th, of `b_len`), for a list
/// that is another read in reverse (GRASS's silent attempts' ages, from their start times): only
/// the few items the halving probes are worked out.
pub(crate) fn kth_of_two_by<A: Copy + Into<i64>>(a: &[A], b_len: usize, b_at: impl Fn(usize) -> i64, k: usize) -> i64 {
    debug_assert!(k < a.len() + b_len);
    let take = k + 1;
    let (mut lo, mut hi) = (take.saturating_sub(b_len), take.min(a.len()));
    while lo < hi {
        let i = (lo + hi) / 2;
        // Taking i from `a` and take − i from `b`: too few from `a` while a[i] < b[take − i − 1].
        if a[i].into() < b_at(take - i - 1) {
            lo = i + 1;
        } else {
            hi = i;
        }
    }
    let from_a = lo.checked_sub(1).map(|i| a[i].into());
    let from_b = (take - lo).checked_sub(1).map(&b_at);
    from_a.max(from_b).expect("k is within the two lists")
}

/// A set of task indices, a bit each: membership changes in constant time, and a walk in index
/// order skips 64 absent tasks a word. The job's running and succeeded tasks; a cloning policy's
/// decided ones (`policy::TaskSet`).
#[derive(Clone, Debug, Default)]
pub(crate) struct TaskBits {
    words: Vec<u64>,
    len: u32,
}

impl TaskBits {
    #[inline]
    pub(crate) fn insert(&mut self, i: u32) {
        self.add_word((i / 64) as usize, 1u64 << (i % 64));
    }

    /// Adds the tasks of `bits`, word `w`'s. The words grow at least twofold (`slot`): a decision
    /// can add 100K tasks, a word of them at a time.
    #[inline]
    pub(crate) fn add_word(&mut self, w: usize, bits: u64) {
        let word = slot(&mut self.words, w, 0);
        self.len += (bits & !*word).count_ones();
        *word |= bits;
    }

    pub(crate) fn contains(&self, i: u32) -> bool {
        self.words.get((i / 64) as usize).is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }

    fn remove(&mut self, i: u32) {
        let (w, bit) = ((i / 64) as usize, 1u64 << (i % 64));
        if let Some(word) = self.words.get_mut(w).filter(|word| **word & bit != 0) {
            *word &= !bit;
            self.len -= 1;
        }
    }

    /// The words, 64 tasks each by index.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// The members, in increasing order.
    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| word_members(w, word))
    }
}

/// The indices whose bits are set in `word`, word number `w` of a set of tasks, in increasing order.
fn word_members(w: usize, word: u64) -> impl Iterator<Item = u32> {
    let mut rest = word;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let bit = rest.trailing_zeros();
            rest &= rest - 1;
            w as u32 * 64 + bit
        })
    })
}

/// A running mean.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mean {
    sum: f64,
    n: u64,
}

impl Mean {
    pub fn add(&mut self, x: f64) {
        if x.is_finite() {
            self.sum += x;
            self.n += 1;
        }
    }

    pub fn get(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }
}

impl JobState {
    pub fn tasks(&self, kind: TaskKind) -> &[Task] {
        match kind {
            TaskKind::Map => &self.maps,
            TaskKind::Reduce => &self.reduces,
        }
    }

    /// Tasks of a kind with at least one running attempt, in index order.
    pub fn running_tasks(&self, kind: TaskKind) -> impl Iterator<Item = &Task> + '_ {
        let tasks = self.tasks(kind);
        self.index.running_tasks[kind as usize].iter().map(move |i| &tasks[i as usize])
    }

    /// Indices of the tasks of a kind that have a running attempt and have not succeeded, in
    /// increasing order, read from the job's bitsets without touching a task; each task's brief
    /// is asked for some places ahead, for the walks that read it (`prefetch_brief_ahead`).
    pub fn running_unsucceeded(&self, kind: TaskKind) -> impl Iterator<Item = u32> + '_ {
        self.running_unsucceeded_but(kind, &[]).inspect(move |&index| self.prefetch_brief_ahead(TaskId { kind, index }))
    }

    /// `running_unsucceeded` less the tasks whose bits are set in `skip` (a word of 64 tasks
    /// each, by index): those are passed over a word at a time.
    pub(crate) fn running_unsucceeded_but<'a>(&'a self, kind: TaskKind, skip: &'a [u64]) -> impl Iterator<Item = u32> + 'a {
        self.running_unsucceeded_words_but(kind, skip).flat_map(|(w, word)| word_members(w, word))
    }

    /// `running_unsucceeded_but` a word of 64 tasks at a time: each word's number and its bits.
    pub(crate) fn running_unsucceeded_words_but<'a>(&'a self, kind: TaskKind, skip: &'a [u64]) -> impl Iterator<Item = (usize, u64)> + 'a {
        let (running, succeeded) = (&self.index.running_tasks[kind as usize], &self.index.succeeded_tasks_bits[kind as usize]);
        running.words.iter().enumerate().map(move |(w, &word)| {
            (w, word & !succeeded.words.get(w).copied().unwrap_or(0) & !skip.get(w).copied().unwrap_or(0))
        })
    }

    /// How many tasks of a kind have a running attempt.
    pub fn running_task_count(&self, kind: TaskKind) -> u32 {
        self.index.running_tasks[kind as usize].len
    }

    /// Tasks with a running attempt, of both kinds: what a decision's lists over them hold at most.
    pub fn running_task_total(&self) -> usize {
        TaskKind::ALL.map(|kind| self.running_task_count(kind) as usize).iter().sum()
    }

    /// How many attempts of a kind are running (a task's copies each counted).
    pub fn running_attempt_count(&self, kind: TaskKind) -> u32 {
        self.index.running_attempts[kind as usize]
    }

    /// Succeeded attempts of a kind, in the order they finished (each once; one reported lost
    /// since stays listed).
    pub fn succeeded_attempts(&self, kind: TaskKind) -> &[Done] {
        &self.index.finished.done[kind as usize]
    }

    /// Of a task's listed succeeded attempts, the one of the lowest number.
    pub fn first_success(&self, id: TaskId) -> Option<&Done> {
        self.index.finished.first(id.kind as usize, id.index)
    }

    /// Asks for the place of a task's first success ahead of `first_success`.
    pub(crate) fn prefetch_first_place(&self, id: TaskId) {
        if let Some(at) = self.index.finished.first[id.kind as usize].get(id.index as usize) {
            prefetch(at);
        }
    }

    /// Asks for a task's first success ahead of `first_success`, from its place (itself asked
    /// for earlier by `prefetch_first_place`).
    pub(crate) fn prefetch_first_success(&self, id: TaskId) {
        let f = &self.index.finished;
        let k = id.kind as usize;
        if let Some(i) = f.first_place(k, id.index).filter(|&i| i < f.done[k].len()) {
            prefetch(&f.done[k][i]);
        }
    }

    /// The run times in ms of the succeeded attempts of a kind that ran for some time, in the
    /// order of `succeeded_attempts`; one of 49 days or more reads `u32::MAX`. In seconds, each
    /// is `stats::secs_of_ms` of it.
    pub fn finished_run_ms(&self, kind: TaskKind) -> &[u32] {
        &self.index.finished.run_ms[kind as usize]
    }

    /// `finished_run_ms` in seconds, collected.
    pub fn finished_durations(&self, kind: TaskKind) -> Vec<f64> {
        self.finished_run_ms(kind).iter().map(|&ms| crate::stats::secs_of_ms(ms)).collect()
    }

    /// The fit's and the mean's sums over `finished_run_ms` in seconds (`stats::FitSums`),
    /// carried on over the run times listed since the last call.
    pub(crate) fn finished_duration_sums(&self, kind: TaskKind) -> crate::stats::FitSums {
        let mut sums = self.index.duration_sums.borrow_mut();
        sums[kind as usize].carry(self.finished_run_ms(kind));
        sums[kind as usize]
    }

    /// `finished_run_ms`, in increasing order.
    pub fn finished_run_ms_sorted(&self, kind: TaskKind) -> Ref<'_, [Millis]> {
        let run_ms = &self.index.finished.run_ms;
        if self.index.runs_sorted.borrow().iter().zip(run_ms).any(|(r, d)| r.merged < d.len()) {
            // Both kinds at once: a later read, while this one's borrow is held, could not merge.
            self.index.runs_sorted.borrow_mut().iter_mut().zip(run_ms).for_each(|(r, d)| r.take(d));
        }
        Ref::map(self.index.runs_sorted.borrow(), |s| s[kind as usize].runs.sorted.as_slice())
    }

    /// The launch-to-first-progress, in ms, of every attempt of a kind that has shown progress
    /// (running or not), in increasing order (at most `u32::MAX`).
    pub fn startups_ms(&self, kind: TaskKind) -> Ref<'_, [u32]> {
        Ref::map(settled(&self.index.startups, crate::stats::sort_u32), |s| s[kind as usize].sorted.as_slice())
    }

    /// Has `finished_duration_sums` carried on from the first duration listed, for a policy that
    /// reads them at every scan: each success then takes its logarithm as it is listed, and a
    /// large job's first scan does not take them all (10K at 100K running, 0.05–0.1 ms of
    /// SCA's, ESE's and `auto`'s). A success with a new least duration stops that until the
    /// next read, which takes them all again (`FitSums::carry`), as before.
    pub(crate) fn keep_duration_sums(&mut self) {
        self.index.duration_sums_kept = true;
        for kind in TaskKind::ALL {
            self.index.duration_sums.get_mut()[kind as usize].carry(&self.index.finished.run_ms[kind as usize]);
        }
    }

    /// Keeps the running attempts' start times from now on (`RunningStarts`), for a policy that
    /// reads them at every scan; only while no attempt runs (a new job's), so that every running
    /// attempt is in them.
    pub(crate) fn keep_running_starts(&mut self) {
        let starts = self.index.starts.get_mut();
        if !starts.kept && self.index.running_attempts == [0, 0] {
            starts.kept = true;
        }
    }

    /// The start times of the running attempts and of the silent ones among them, sorted
    /// (`RunningStarts`), or None when they are not kept (the policy does not read them at every
    /// scan, or a start lay too far from the first): the reader then reads the attempts.
    pub(crate) fn running_starts(&self) -> Option<Ref<'_, RunningStarts>> {
        self.starts_settled(RunningStarts::settle)
    }

    /// [`JobState::running_starts`] with only the silent attempts' lists read: the running ones'
    /// (`RunningStarts::all`) are left to merge at their next read, which a decision that needs
    /// no Kaplan–Meier median does not make.
    pub(crate) fn silent_starts(&self) -> Option<Ref<'_, RunningStarts>> {
        self.starts_settled(RunningStarts::settle_silent)
    }

    fn starts_settled(&self, settle: impl FnOnce(&mut RunningStarts)) -> Option<Ref<'_, RunningStarts>> {
        let mut starts = self.index.starts.borrow_mut();
        if !starts.kept || starts.off {
            return None;
        }
        settle(&mut starts);
        drop(starts);
        Some(self.index.starts.borrow())
    }

    /// The least of `finished_run_ms_sorted(kind)`, without merging the run times listed since its
    /// last read.
    pub(crate) fn least_finished_run_ms(&self, kind: TaskKind) -> Option<Millis> {
        self.index.runs_sorted.borrow()[kind as usize].runs.least()
    }

    /// Tasks of a kind in the order they first succeeded (a task whose successes were all lost
    /// comes again when it next succeeds): the succeeded attempts that were their task's first
    /// success (`Done::was_first`), from place `from` of `succeeded_attempts` on.
    pub fn first_successes(&self, kind: TaskKind, from: usize) -> impl Iterator<Item = u32> + '_ {
        let done = &self.index.finished.done[kind as usize];
        done.get(from..).unwrap_or_default().iter().filter(|d| d.first).map(|d| d.key.0)
    }

    /// How many `first_successes` a kind has had.
    pub fn first_success_count(&self, kind: TaskKind) -> usize {
        self.index.finished.firsts[kind as usize]
    }

    /// The earliest start of an attempt of the kind, of all the job has had (running or not):
    /// every attempt has run at most `now` less this.
    pub fn earliest_start(&self, kind: TaskKind) -> Option<Millis> {
        self.index.earliest_start[kind as usize]
    }

    /// The latest start of any attempt of a kind, running or not; None before the first.
    pub fn latest_start(&self, kind: TaskKind) -> Option<Millis> {
        self.index.latest_start[kind as usize]
    }

    /// Whether an attempt of the job has ever been reported killed or failed after it
    /// succeeded. Until one has, a task is among `first_successes` once, as its one listed
    /// success is in `succeeded_attempts`, and that success is its first.
    pub fn success_ever_lost(&self) -> bool {
        self.index.success_lost
    }

    /// How many tasks of a kind wait for a container.
    pub fn waiting_task_count(&self, kind: TaskKind) -> u32 {
        self.index.waiting_tasks[kind as usize]
    }

    /// How many tasks of a kind have succeeded (and not been re-opened since).
    pub fn succeeded_task_count(&self, kind: TaskKind) -> u32 {
        self.index.succeeded_tasks[kind as usize]
    }

    /// The attempts of a kind in the succeeded state now, and their summed run time in ms.
    pub fn succeeded_runtime_ms(&self, kind: TaskKind) -> (u32, i64) {
        (self.index.succeeded_now[kind as usize], self.index.succeeded_ms[kind as usize])
    }

    /// Changes whenever a task's input size is set.
    pub fn inputs_epoch(&self) -> u64 {
        self.index.inputs_epoch
    }

    /// Sets a task's input size.
    pub(crate) fn set_input_bytes(&mut self, id: TaskId, bytes: u64) {
        self.ensure_task(id); // makes the task, and its places beside the tasks, if it is new
        self.inputs[id.kind as usize][id.index as usize] = NonZeroU64::new(bytes);
        self.index.inputs_epoch += 1;
    }

    /// Adds `delta` to the containers a task waits for (Hadoop's TASK_CONTAINER_NEED_UPDATE).
    pub(crate) fn add_container_need(&mut self, id: TaskId, delta: i32, now: Millis) {
        let change = delta.clamp(i16::MIN.into(), i16::MAX.into()) as i16;
        let (before, after) = self.with_booking(id, |b| {
            let before = b.containers_wanted();
            b.containers_wanted = b.containers_wanted.saturating_add(change);
            (before, b.containers_wanted())
        });
        if before == 0 && delta > 0 {
            self.task_mut(id).waiting_since = now.max(Millis::MIN + 1);
        }
        let waiting = &mut self.index.waiting_tasks[id.kind as usize];
        match (before > 0, after > 0) {
            (false, true) => *waiting += 1,
            (true, false) => *waiting -= 1,
            _ => {}
        }
    }

    /// The brief of a task's one running attempt, when it has exactly one (see [`Brief`]).
    pub fn brief(&self, id: TaskId) -> Option<&Brief> {
        let brief = self.briefs[id.kind as usize][id.index as usize].as_ref();
        // The walks that pass a task over from its brief before reading its booking rely on it.
        debug_assert!(brief.is_none() || self.booking(id).running() == 1, "a brief of {id:?} with {} running", self.booking(id).running());
        brief
    }

    /// Asks for the records an event on task `id` reads and writes (the task with its first
    /// attempt, its brief and, with `booking`, its booking), some events before it comes
    /// (`Engine::ingest_all`): a big job's events reach its tasks in no order, each task's
    /// records long out of the caches, and one event alone waits on each of those misses in turn.
    pub(crate) fn prefetch_task(&self, id: TaskId, booking: bool) {
        let (k, i) = (id.kind as usize, id.index as usize);
        if let Some(task) = self.tasks(id.kind).get(i) {
            prefetch_lines(task);
        }
        if let Some(b) = self.booked[k].get(i).filter(|_| booking) {
            prefetch_lines(b);
        }
        if let Some(brief) = self.briefs[k].get(i) {
            prefetch_lines(brief);
        }
    }

    /// Asks for a task's brief and booking: for a walk over tasks picked ahead of it, which
    /// reads both of each (LATE's candidates, `Late::candidates`).
    pub(crate) fn prefetch_brief_and_booking(&self, id: TaskId) {
        let (k, i) = (id.kind as usize, id.index as usize);
        if let Some(brief) = self.briefs[k].get(i) {
            prefetch_lines(brief);
        }
        if let Some(b) = self.booked[k].get(i) {
            prefetch(b);
        }
    }

    /// Asks for the brief [`BRIEF_AHEAD`] tasks after `id`'s, for a walk over the running tasks in
    /// index order (`running_task_indices`, `running_unsucceeded`; every one of them reads the
    /// briefs): between two scans the events of tens of thousands of other tasks push the briefs
    /// out of the caches, and the walk, which skips the tasks not running, waited on memory the
    /// processor did not ask for ahead by itself.
    fn prefetch_brief_ahead(&self, id: TaskId) {
        if let Some(b) = self.briefs[id.kind as usize].get(id.index as usize + BRIEF_AHEAD) {
            prefetch(b);
        }
    }

    /// Indices of the tasks of a kind with at least one running attempt, in increasing order;
    /// each task's brief is asked for some places ahead, as `running_unsucceeded` does.
    pub fn running_task_indices(&self, kind: TaskKind) -> impl Iterator<Item = u32> + '_ {
        self.index.running_tasks[kind as usize].iter().inspect(move |&index| self.prefetch_brief_ahead(TaskId { kind, index }))
    }

    /// A task's input bytes, when the caller has told them and they are not zero: a size of zero
    /// scales nothing (t_new by bytes, Mantri §5.4), so it counts as unknown. Kept beside the
    /// tasks, eight bytes each, so that a decision reading the sizes of the tasks it judges does
    /// not read their records.
    pub fn input_bytes(&self, id: TaskId) -> Option<u64> {
        self.inputs[id.kind as usize].get(id.index as usize).copied().flatten().map(NonZeroU64::get)
    }

    /// What the engine booked on a task, and its running attempts (see [`Booking`]).
    pub fn booking(&self, id: TaskId) -> &Booking {
        &self.booked[id.kind as usize][id.index as usize]
    }

    /// Whether the job has such a task and it has succeeded, read from the job's bitset of
    /// succeeded tasks without touching the task.
    pub fn task_succeeded(&self, id: TaskId) -> bool {
        self.index.succeeded_tasks_bits[id.kind as usize].contains(id.index)
    }

    /// Whether the job has such a task.
    pub fn has_task(&self, id: TaskId) -> bool {
        (id.index as usize) < self.tasks(id.kind).len()
    }

    pub fn all_tasks(&self) -> impl Iterator<Item = &Task> {
        self.maps.iter().chain(self.reduces.iter())
    }

    pub fn task(&self, id: TaskId) -> Option<&Task> {
        self.tasks(id.kind).get(id.index as usize)
    }

    /// The task, created (with any missing lower-numbered siblings) if the job did not announce it.
    #[inline]
    pub fn task_mut(&mut self, id: TaskId) -> &mut Task {
        self.ensure_task(id);
        let list = match id.kind {
            TaskKind::Map => &mut self.maps,
            TaskKind::Reduce => &mut self.reduces,
        };
        debug_assert!(self.booked[id.kind as usize].len() >= list.len(), "a task without its booking");
        &mut list[id.index as usize]
    }

    /// Makes the task `id` if the job lacks it (`make_tasks_through`).
    #[inline]
    fn ensure_task(&mut self, id: TaskId) {
        if !self.has_task(id) {
            self.make_tasks_through(id);
        }
    }

    /// Makes the kind's tasks up to `id`, with their bookings, briefs and input sizes: out of
    /// `task_mut`'s way, which almost always finds the task made (every event on a task after
    /// its first, every finish).
    #[cold]
    #[inline(never)]
    fn make_tasks_through(&mut self, id: TaskId) {
        let list = match id.kind {
            TaskKind::Map => &mut self.maps,
            TaskKind::Reduce => &mut self.reduces,
        };
        while list.len() <= id.index as usize {
            let index = list.len() as u32;
            list.push(Task {
                id: TaskId { kind: id.kind, index },
                attempts: Attempts::None,
                succeeded: false,
                output: u64::MAX,
                waiting_since: Millis::MIN,
            });
        }
        let huge = self.huge_pages;
        let booked = &mut self.booked[id.kind as usize];
        if booked.len() < list.len() {
            memory::reserve_exact(booked, list.capacity() - booked.len(), huge);
            booked.resize(list.len(), Booking::default());
            let briefs = &mut self.briefs[id.kind as usize];
            memory::reserve_exact(briefs, list.capacity() - briefs.len(), huge);
            briefs.resize(list.len(), None);
            let inputs = &mut self.inputs[id.kind as usize];
            memory::reserve_exact(inputs, list.capacity() - inputs.len(), huge);
            inputs.resize(list.len(), None);
        }
    }

    pub fn ensure_tasks(&mut self, kind: TaskKind, count: u32) {
        let list = match kind {
            TaskKind::Map => &mut self.maps,
            TaskKind::Reduce => &mut self.reduces,
        };
        // The job's size is known: no slack from doubling the list as it grows.
        memory::reserve_exact(list, (count as usize).saturating_sub(list.len()), self.huge_pages);
        if count > 0 {
            self.task_mut(TaskId { kind, index: count - 1 });
        }
    }

    pub fn attempt(&self, id: AttemptId) -> Option<&Attempt> {
        self.task(id.task)?.attempts.iter().find(|a| a.id == id)
    }

    fn attempt_mut(&mut self, id: AttemptId) -> Option<&mut Attempt> {
        self.task_if_mut(id.task)?.attempts.iter_mut().find(|a| a.id == id)
    }

    /// The task, when the job has it (`task_mut` makes it).
    fn task_if_mut(&mut self, id: TaskId) -> Option<&mut Task> {
        let list = match id.kind {
            TaskKind::Map => &mut self.maps,
            TaskKind::Reduce => &mut self.reduces,
        };
        list.get_mut(id.index as usize)
    }

    pub fn attempts_of<'a>(&'a self, task: &'a Task) -> impl Iterator<Item = &'a Attempt> + 'a {
        task.attempts.iter()
    }

    pub fn running_attempts_of<'a>(&'a self, task: &'a Task) -> impl Iterator<Item = &'a Attempt> + 'a {
        self.attempts_of(task).filter(|a| a.is_running())
    }

    /// Running attempts plus copies asked for but not started: what the task occupies or will.
    pub fn live_copies(&self, task: &Task) -> u32 {
        self.running_attempts_of(task).count() as u32 + self.booking(task.id).copies_pending
    }

    pub fn node(&self, idx: NodeIdx) -> &Node {
        &self.nodes[idx.0 as usize]
    }

    /// The nodes in the order of their names.
    pub fn nodes_by_name(&self) -> impl Iterator<Item = (NodeIdx, &Node)> {
        self.nodes_by_name.iter().map(|&i| (i, &self.nodes[i.0 as usize]))
    }

    pub fn nodes(&self) -> impl ExactSizeIterator<Item = (NodeIdx, &Node)> {
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (NodeIdx(i as u32), n))
    }

    pub(crate) fn intern_node(&mut self, name: &str, rack: Option<&str>) -> NodeIdx {
        let idx = match self.node_index.get(name) {
            Some(&idx) => idx,
            None => {
                let idx = NodeIdx(self.nodes.len() as u32);
                let node_name = NodeName::from(name);
                let nodes = &self.nodes;
                let at = self.nodes_by_name.partition_point(|n| nodes[n.0 as usize].name < node_name);
                self.nodes_by_name.insert(at, idx);
                self.nodes.push(Node { name: node_name, rack: None, lost: false });
                self.node_index.insert(name.to_owned(), idx);
                idx
            }
        };
        // An ApplicationMaster names the rack with every start: kept anew only when it changed.
        let known = &mut self.nodes[idx.0 as usize].rack;
        if let Some(rack) = rack.filter(|&r| known.as_deref() != Some(r)) {
            *known = Some(rack.to_owned());
        }
        idx
    }

    /// Takes `id` as the caller's name for the node `idx` (`Event::NodeNamed`); an id past
    /// [`crate::event::MAX_NODE_ID`] is not kept.
    pub(crate) fn name_node(&mut self, id: u32, idx: NodeIdx) {
        if id > crate::event::MAX_NODE_ID {
            return;
        }
        *slot(&mut self.node_ids, id as usize, None) = Some(idx);
    }

    /// The node the caller named `id`, if it named one.
    pub fn named_node(&self, id: u32) -> Option<NodeIdx> {
        self.node_ids.get(id as usize).copied().flatten()
    }

    pub(crate) fn mark_node_lost(&mut self, idx: NodeIdx) {
        self.nodes[idx.0 as usize].lost = true;
    }

    /// Records a new attempt, or fills in what a repeated start report adds (its node).
    pub(crate) fn start_attempt(&mut self, id: AttemptId, now: Millis, node: Option<NodeIdx>) -> Started {
        if let Some(a) = self.attempt_mut(id) {
            let seen = Started { new: false, placed_before: a.node.is_some(), is_copy: a.is_copy };
            if a.node.is_none() {
                a.node = node;
                if let (Some(n), AttemptState::Succeeded) = (node, a.state) {
                    self.count_succeeded_on(n, 1);
                }
                self.refresh_brief(id.task);
            }
            return seen;
        }
        let (lag, first, running, is_copy, brief) = self.with_task(id.task, |task, booked| {
            // Only attempts the engine asked for are copies; a retry after a failure is Hadoop's own.
            let is_copy = booked.copies_pending > 0;
            booked.copies_pending = booked.copies_pending.saturating_sub(1);
            let lag = task.waiting_since().map(|since| (now - since).max(0) as f64);
            task.waiting_since = Millis::MIN;
            let first = task.attempts.as_slice().is_empty();
            task.attempts.push(Attempt {
                id,
                node,
                start: now,
                state: AttemptState::Running,
                progress: 0.0,
                phase: Phase::Starting,
                reported_at: 0,
                finish: None,
                is_copy,
                reports: Reports::default(),
                sort_started: Mark::NONE,
                reduce_started: Mark::NONE,
                input_done_at: Mark::NONE,
                input_done_progress: 1.0,
                first_progress_at: Mark::NONE,
                smoothed_rate: f64::NAN,
            });
            booked.running += 1;
            // Its task's brief: the new attempt's when no other attempt of the task runs (what
            // `refresh_brief` would find, without looking for it again).
            let brief = if booked.running == 1 { task.attempts.as_slice().last().and_then(Brief::of) } else { None };
            (lag, first, booked.running, is_copy, brief)
        });
        let kind = id.task.kind as usize;
        let earliest = &mut self.index.earliest_start[kind];
        *earliest = Some(earliest.map_or(now, |at| at.min(now)));
        let latest = &mut self.index.latest_start[kind];
        *latest = Some(latest.map_or(now, |at| at.max(now)));
        if running == 1 {
            self.index.running_tasks[kind].insert(id.task.index);
        }
        if first {
            self.index.started_tasks[kind] += 1;
        }
        self.index.starts.get_mut().started(id.task.kind, now);
        if let Some(lag) = lag {
            self.sched_lag.add(lag);
        }
        self.briefs[kind][id.task.index as usize] = brief;
        self.index.running_attempts[kind] += 1;
        self.peak_running = self.peak_running.max(self.running());
        Started { new: true, placed_before: false, is_copy }
    }

    /// Records a progress report: the value, its history, phase changes and, once the input is
    /// read, when that happened. `lambda_ms` is the smoothing time constant of `smoothed_rate`,
    /// None when no estimator in use reads it: it is then not kept.
    #[inline]
    pub(crate) fn report(&mut self, id: AttemptId, now: Millis, progress: f64, phase: Phase, lambda_ms: Option<f64>) {
        let (k, i) = (id.task.kind as usize, id.task.index as usize);
        let Some(task) = self.task_if_mut(id.task) else { return };
        // A task with one attempt, running, has that one running: its brief is the attempt's,
        // found without reading the booking (a line from memory for a big job's report).
        let alone = matches!(task.attempts, Attempts::One(_));
        let Some(a) = task.attempts.iter_mut().find(|a| a.id == id) else { return };
        if !a.is_running() || !progress.is_finite() {
            return;
        }
        // Into [0, 1], a zero of either sign taken as +0: a rate over it is then never -0, which
        // LATE's notes keep for another meaning (`policy::late`).
        let progress = if progress > 0.0 { progress.min(1.0) } else { 0.0 };
        if let (Some((then, before)), Some(lambda_ms)) = (a.last_report(), lambda_ms) {
            let dt = (now - then) as f64;
            if dt > 0.0 {
                let instant = (progress - before).max(0.0) / (dt / 1000.0);
                let w = (-dt / lambda_ms).exp();
                a.smoothed_rate = match a.smoothed_rate() {
                    Some(r) => r * w + instant * (1.0 - w),
                    None => instant,
                };
            }
        }
        let first_progress = progress > 0.0 && a.first_progress_at.is_none();
        if first_progress {
            a.first_progress_at = a.mark(now);
        }
        a.progress = progress;
        a.phase = phase;
        a.reported_at = a.offset(now);
        a.reports.push(a.start, now, progress);
        match phase {
            Phase::Sort if a.sort_started.is_none() => a.sort_started = a.mark(now),
            Phase::Reduce if a.reduce_started.is_none() => a.reduce_started = a.mark(now),
            _ => {}
        }
        if a.input_done_at.is_none() && !phase.reads_input() {
            a.input_done_at = a.mark(now);
            a.input_done_progress = progress;
        }
        let brief = Brief::of(a);
        if first_progress {
            let startup = a.startup_ms().unwrap_or(0);
            let ms = u32::try_from(startup.max(0)).unwrap_or(u32::MAX);
            let start = a.start;
            self.index.startups.get_mut()[id.task.kind as usize].add(ms);
            self.index.starts.get_mut().shown(id.task.kind, start);
        }
        // The attempt runs: when it is its task's only running one, the brief is its own.
        debug_assert!(!alone || self.booked[k][i].running == 1, "{:?}: one attempt, running, booked {:?}", id, self.booked[k][i]);
        if alone || self.booked[k][i].running == 1 {
            self.briefs[k][i] = brief;
        }
    }

    /// Makes a task's brief that of its one running attempt, or none (a finish's usual case,
    /// told from the booking alone).
    ///
    /// Each way, the brief is written straight into its place: one made apart and copied over
    /// was put together a field at a time and read back in wider pieces, each of which waited
    /// for the stores it spanned to land (a finish's none, one byte so copied, was the hottest
    /// instruction of a finish in the profile).
    #[inline(always)]
    fn refresh_brief(&mut self, id: TaskId) {
        let (k, i) = (id.kind as usize, id.index as usize);
        let tasks = match id.kind {
            TaskKind::Map => &self.maps,
            TaskKind::Reduce => &self.reduces,
        };
        let place = &mut self.briefs[k][i];
        if self.booked[k][i].running == 1 {
            running_brief(&tasks[i], place);
        } else {
            *place = None;
        }
    }

    /// Moves an attempt to a terminal state; repeated reports are ignored. A succeeded attempt
    /// reported killed or failed later reopens its task: Hadoop re-runs a map whose output was
    /// lost (its node became unusable, or its reduces could not fetch it).
    pub(crate) fn finish_attempt(&mut self, id: AttemptId, now: Millis, state: AttemptState) {
        let Some(a) = self.attempt_mut(id) else { return };
        if a.state == AttemptState::Succeeded && state != AttemptState::Succeeded {
            a.state = state;
            let ran = a.elapsed(a.start);
            let node = a.node;
            let k = id.task.kind as usize;
            self.index.success_lost = true;
            self.index.succeeded_now[k] -= 1;
            self.index.succeeded_ms[k] -= ran;
            if let Some(n) = node {
                self.count_succeeded_on(n, -1);
            }
            let (was, is) = self.with_task(id.task, |task, _| {
                let was = task.succeeded;
                task.succeeded = task.attempts.iter().any(|o| o.state == AttemptState::Succeeded);
                if !task.succeeded {
                    task.set_output_bytes(None);
                }
                (was, task.succeeded)
            });
            if was && !is {
                self.index.succeeded_tasks[k] -= 1;
                self.index.succeeded_tasks_bits[k].remove(id.task.index);
            }
            return;
        }
        if !a.is_running() {
            return;
        }
        a.state = state;
        a.finish = Some((now - a.start).clamp(0, u32::MAX as Millis) as u32);
        let (node, start, silent) = (a.node, a.start, a.first_progress_at.is_none());
        if state == AttemptState::Succeeded {
            a.progress = 1.0;
            let ran = a.elapsed(a.start);
            self.index.succeeded_now[id.task.kind as usize] += 1;
            self.index.succeeded_ms[id.task.kind as usize] += ran;
            if let Some(n) = node {
                self.count_succeeded_on(n, 1);
            }
        }
        let (kind, idx) = (id.task.kind as usize, id.task.index);
        self.index.running_attempts[kind] -= 1;
        self.index.starts.get_mut().ended(id.task.kind, start, silent);
        let (first_success, still_running) = self.with_task(id.task, |task, booked| {
            booked.running -= 1;
            let first_success = state == AttemptState::Succeeded && !task.succeeded;
            if state == AttemptState::Succeeded {
                task.succeeded = true;
            }
            (first_success, booked.running > 0)
        });
        if !still_running {
            self.index.running_tasks[kind].remove(idx);
        }
        self.refresh_brief(id.task);
        if first_success {
            self.index.succeeded_tasks[kind] += 1;
            self.index.succeeded_tasks_bits[kind].insert(idx);
        }
        if state == AttemptState::Succeeded {
            let task = &self.tasks(id.task.kind)[idx as usize];
            let pos = task.attempts.iter().position(|a| a.id == id).unwrap_or(0) as u32;
            let attempt = &task.attempts.as_slice()[pos as usize];
            let (done, ran_ms) = Done::of(attempt, id.task.kind, (idx, pos), first_success);
            if ran_ms > 0 {
                // `Finished::add` lists it among the run times, where the sorted run times take
                // it from.
                self.index.runs_sorted.get_mut()[kind].runs.note_least(Millis::from(ran_ms));
                let listed = self.index.finished.run_ms[kind].len();
                self.index.duration_sums.get_mut()[kind].push(listed, done.secs);
            }
            let tasks = self.tasks(id.task.kind).len();
            self.index.finished.add(kind, done, ran_ms, tasks, self.huge_pages);
            // Kept sums are begun here, with the first run time; `push` takes the later ones.
            if self.index.duration_sums_kept && self.index.duration_sums.get_mut()[kind].len == 0 {
                self.index.duration_sums.get_mut()[kind].carry(&self.index.finished.run_ms[kind]);
            }
        }
    }

    /// Changes a task and its booking through `f`, keeping the job's totals over its tasks
    /// (copies pending, tasks being speculated) in step.
    fn with_task<R>(&mut self, id: TaskId, f: impl FnOnce(&mut Task, &mut Booking) -> R) -> R {
        self.ensure_task(id);
        let tasks = match id.kind {
            TaskKind::Map => &mut self.maps,
            TaskKind::Reduce => &mut self.reduces,
        };
        let t = &mut tasks[id.index as usize];
        let b = &mut self.booked[id.kind as usize][id.index as usize];
        let before = b.totals(t.succeeded);
        let r = f(t, b);
        let after = b.totals(t.succeeded);
        self.count_booking_change(before, after);
        r
    }

    /// Changes a task's booking through `f`, as `with_task` does, without touching the task: its
    /// success is read from the job's bitset.
    fn with_booking<R>(&mut self, id: TaskId, f: impl FnOnce(&mut Booking) -> R) -> R {
        self.ensure_task(id);
        let succeeded = self.task_succeeded(id);
        let b = &mut self.booked[id.kind as usize][id.index as usize];
        let before = b.totals(succeeded);
        let r = f(b);
        let after = b.totals(succeeded);
        self.count_booking_change(before, after);
        r
    }

    /// Keeps the job's totals in step with one task's change of what it counts in them.
    fn count_booking_change(&mut self, was: BookingTotals, now: BookingTotals) {
        self.index.copies_pending = self.index.copies_pending + now.copies_pending as u64 - was.copies_pending as u64;
        // Usually none: a decision books its copies before Hadoop asks for their containers.
        if was.wanted_beyond_copies != now.wanted_beyond_copies {
            self.index.containers_wanted_beyond_copies =
                self.index.containers_wanted_beyond_copies + now.wanted_beyond_copies as u64 - was.wanted_beyond_copies as u64;
        }
        match (was.speculated, now.speculated) {
            (false, true) => self.index.speculated_tasks += 1,
            (true, false) => self.index.speculated_tasks -= 1,
            _ => {}
        }
    }

    /// Adds `n` copies asked for to a task's pending ones.
    pub(crate) fn add_copies_pending(&mut self, id: TaskId, n: u32) {
        self.with_booking(id, |b| b.copies_pending += n);
    }

    /// Adds `n` copies asked for at `now` to a task the job has and that has not succeeded, as a
    /// decision's booking has checked: `with_booking` without asking again what the decision
    /// asked (a first scan books 100K copies; the two checks were a tenth of Dolly's decision).
    pub(crate) fn book_copies(&mut self, id: TaskId, n: u32, now: Millis) {
        debug_assert!(self.has_task(id) && !self.task_succeeded(id), "booked copies of a task closed or unknown");
        let b = &mut self.booked[id.kind as usize][id.index as usize];
        let before = b.totals(false);
        b.copies_pending += n;
        b.copies_requested += n;
        b.last_copy_at = now;
        let after = b.totals(false);
        self.count_booking_change(before, after);
    }

    /// Books a restart the engine asks for (`give_back`: one it asked for and the caller dropped).
    pub(crate) fn book_restart(&mut self, id: TaskId, give_back: bool) {
        self.with_booking(id, |b| {
            b.restarts = if give_back { b.restarts.saturating_sub(1) } else { b.restarts.saturating_add(1) };
        });
    }

    /// One copy of a task asked for will not start (dropped, or a veto not carried out).
    pub(crate) fn drop_copy_pending(&mut self, id: TaskId) {
        self.with_booking(id, |b| b.copies_pending = b.copies_pending.saturating_sub(1));
    }

    fn count_succeeded_on(&mut self, node: NodeIdx, delta: i32) {
        let counts = &mut self.index.succeeded_on_node;
        let i = node.0 as usize;
        if counts.len() <= i {
            counts.resize(i + 1, 0);
        }
        counts[i] = counts[i].wrapping_add_signed(delta);
    }

    /// Attempts now in the succeeded state on a node.
    pub fn succeeded_on_node(&self, node: NodeIdx) -> u32 {
        self.index.succeeded_on_node.get(node.0 as usize).copied().unwrap_or(0)
    }

    /// The median launch-to-first-progress of the job's attempts that have shown progress, in
    /// seconds, interpolated as `stats::percentile` does; None before any has.
    pub fn median_startup_s(&self) -> Option<f64> {
        let startups = settled(&self.index.startups, crate::stats::sort_u32);
        let [maps, reduces] = [&startups[0].sorted, &startups[1].sorted];
        let n = maps.len() + reduces.len();
        (n > 0).then(|| crate::stats::median_of_sorted(n, |k| kth_of_two(maps, reduces, k) as f64 / 1000.0))
    }

    /// Copies asked for and not started, over the job's tasks.
    pub fn copies_pending(&self) -> u64 {
        self.index.copies_pending
    }

    /// Tasks not succeeded with more than one live copy (running attempts and copies pending).
    pub fn speculated_task_count(&self) -> u32 {
        self.index.speculated_tasks
    }

    /// Tasks of a kind that have had an attempt.
    pub fn started_task_count(&self, kind: TaskKind) -> u32 {
        self.index.started_tasks[kind as usize]
    }

    /// Attempts running now, across the job.
    pub fn running(&self) -> u32 {
        self.index.running_attempts.iter().sum()
    }

    /// Containers the job's tasks are waiting for, less those of copies the engine asked for and
    /// not yet seen start: tasks that wait for a slot, as the policies mean it (LATE's "no task
    /// waiting", Mantri's "tasks wait for slots"). Hadoop's TASK_CONTAINER_NEED_UPDATE counts a
    /// speculative attempt's container request like any other; read raw, a copy's own request
    /// made the job look short of slots the moment it was asked for (under Mantri, a restart of
    /// the task it had just duplicated).
    pub fn containers_wanted_beyond_copies(&self) -> u64 {
        self.index.containers_wanted_beyond_copies
    }

    /// Slots the job may use: what the caller reported, else the job's observed peak footprint.
    pub fn slots(&self) -> u32 {
        self.reported_slots.unwrap_or(self.peak_running).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list of successes is given the kind's task count of room at its first growth, and
    /// never grows by less than twofold, past the task count (copies that succeed too) or where
    /// the count creeps up with every item (a job whose tasks are made as their events come):
    /// its copies stay few, not one per item.
    #[test]
    fn a_list_of_successes_grows_to_the_task_count_at_once_and_never_by_less_than_twofold() {
        let mut list: Vec<u32> = Vec::new();
        push_within(&mut list, 0, 5_000, false);
        assert_eq!(list.capacity(), 5_000);
        let growths = |tasks: &dyn Fn(usize) -> usize| {
            let (mut list, mut growths) = (Vec::new(), 0);
            for i in 0..10_000 {
                let room = list.capacity();
                push_within(&mut list, i, tasks(i), false);
                growths += usize::from(list.capacity() != room);
            }
            growths
        };
        assert_eq!(growths(&|_| 5_000), 2);
        assert!(growths(&|i| i + 1) <= 15);
    }

    /// The nodes in name order are every node the job has interned, once each, sorted by name,
    /// whatever order they came in and however often each was named.
    #[test]
    fn the_nodes_in_name_order_are_every_node_sorted_by_name() {
        let mut next = crate::test_below();
        for _ in 0..50 {
            let mut job = JobState::default();
            for _ in 0..next(300) {
                job.intern_node(&format!("host{}:{}", next(120), next(3)), None);
            }
            let by_name: Vec<&str> = job.nodes_by_name().map(|(i, n)| {
                assert_eq!(job.node(i).name, n.name);
                n.name.as_str()
            }).collect();
            let mut want: Vec<&str> = job.nodes().map(|(_, n)| n.name.as_str()).collect();
            want.sort_unstable();
            want.dedup();
            assert_eq!(by_name, want);
        }
    }

    /// A node keeps the rack it was last named with: unnamed, named again alike (as an
    /// ApplicationMaster names it at every start), or named another.
    #[test]
    fn a_node_keeps_the_rack_it_was_last_named_with() {
        let mut job = JobState::default();
        let a = job.intern_node("a:1", None);
        assert_eq!(job.node(a).rack, None);
        assert_eq!(job.intern_node("a:1", Some("/r1")), a);
        assert_eq!(job.intern_node("a:1", Some("/r1")), a);
        assert_eq!(job.intern_node("a:1", None), a);
        assert_eq!(job.node(a).rack.as_deref(), Some("/r1"));
        job.intern_node("a:1", Some("/r2"));
        assert_eq!(job.node(a).rack.as_deref(), Some("/r2"));
        let b = job.intern_node("b:1", Some("/r1"));
        assert_ne!(a, b);
        assert_eq!((job.node(a).rack.as_deref(), job.node(b).rack.as_deref()), (Some("/r2"), Some("/r1")));
    }

    /// The k-th of two sorted lists together is the k-th of their sorted union, for every k,
    /// with either list empty, ties across them, and one list far longer than the other.
    #[test]
    fn the_kth_of_two_sorted_lists_is_the_kth_of_their_union() {
        let mut next = crate::test_below();
        for _ in 0..500 {
            let (na, nb, spread) = (next(20) as usize, next(20) as usize * next(3) as usize, 1 + next(30));
            let mut a: Vec<u32> = (0..na).map(|_| next(spread) as u32).collect();
            let mut b: Vec<u32> = (0..nb).map(|_| next(spread) as u32).collect();
            a.sort_unstable();
            b.sort_unstable();
            let mut all: Vec<u32> = a.iter().chain(&b).copied().collect();
            all.sort_unstable();
            for (k, want) in all.iter().enumerate() {
                assert_eq!(kth_of_two(&a, &b, k), i64::from(*want), "{k}-th of {a:?} and {b:?}");
            }
        }
    }

    /// A bag holds what was added and not taken out, sorted, whether it is read after every change
    /// or after thousands (past its backlog it settles by itself): items in runs of increasing
    /// order as attempts start, repeats, items taken out in any order, some while still waiting.
    #[test]
    fn a_bag_holds_what_was_added_and_not_taken_out() {
        let mut next = crate::test_below();
        for round in 0..30 {
            let (mut bag, mut held) = (Bag::default(), Vec::<u32>::new());
            let spread = [4, 1_000, u32::MAX as u64][round % 3];
            let mut clock = next(spread) as u32;
            let read_every = [1, 50, 20_000][next(3) as usize];
            // Past the backlog, in runs read rarely; a few thousand read after every change.
            let steps = if read_every == 1 { 2_000 } else { 12_000 };
            for step in 0..steps {
                if held.is_empty() || next(5) < 3 {
                    clock = clock.wrapping_add(next(3) as u32);
                    let item = if next(4) == 0 { next(spread) as u32 } else { clock };
                    bag.add(item);
                    held.push(item);
                } else {
                    let item = held.swap_remove(next(held.len() as u64) as usize);
                    bag.remove(item);
                }
                if step % read_every == read_every - 1 {
                    bag.settle();
                    let mut want = held.clone();
                    want.sort_unstable();
                    assert_eq!(bag.sorted(), want.as_slice(), "round {round}, step {step}");
                }
                assert!(bag.added.len() + bag.removed.len() <= bag.sorted.len() + Bag::BACKLOG, "the backlog is bounded");
            }
        }
    }

    /// A record's times kept in whole ms read back as the seconds a division of the ms made, to
    /// the bit; one that ran backwards is 0, one of 49 days or more is kept just short of absent.
    #[test]
    fn a_records_times_in_ms_read_back_as_the_same_seconds() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (from, ms) = ((x >> 40) as Millis, (x >> 28) as Millis % 5_000_000_000);
            let secs = span_secs(span_ms(from, from + ms));
            if ms < Millis::from(NO_SPAN) {
                assert_eq!(secs.map(f64::to_bits), Some((ms as f64 / 1000.0).to_bits()), "{ms} ms");
            } else {
                assert_eq!(secs, Some(f64::from(NO_SPAN - 1) / 1000.0), "{ms} ms");
            }
        }
        assert_eq!(span_ms(5_000, 3_000), 0);
        assert_eq!(span_secs(NO_SPAN), None);
    }

    /// A success's figures that may be absent read back as they were taken: a reduce that went
    /// through its three phases has all three and its wrap-up; a map that never reported has none.
    #[test]
    fn a_success_keeps_its_phases_and_wrapup_or_their_absence() {
        let mut job = JobState::default();
        job.ensure_tasks(TaskKind::Map, 1);
        job.ensure_tasks(TaskKind::Reduce, 1);
        let (map, reduce) = (TaskId::map(0).attempt(0), TaskId { kind: TaskKind::Reduce, index: 0 }.attempt(0));
        job.start_attempt(map, 0, None);
        job.start_attempt(reduce, 0, None);
        for (at, progress, phase) in [(1_000, 0.2, Phase::Shuffle), (3_000, 0.4, Phase::Sort), (6_000, 0.7, Phase::Reduce)] {
            job.report(reduce, at, progress, phase, Some(10_000.0));
        }
        job.finish_attempt(map, 2_000, AttemptState::Succeeded);
        job.finish_attempt(reduce, 10_000, AttemptState::Succeeded);
        let m = job.succeeded_attempts(TaskKind::Map)[0];
        assert_eq!((m.secs, m.wrapup(), m.phases()), (2.0, None, [None; 3]));
        let r = job.succeeded_attempts(TaskKind::Reduce)[0];
        assert_eq!((r.secs, r.wrapup(), r.phases()), (10.0, Some((7.0, 0.4)), [Some(3.0), Some(3.0), Some(4.0)]));
    }

    /// Searched back from any end not before it, the place of a key is the first item not below
    /// it, duplicates included.
    #[test]
    fn galloping_finds_the_place_a_halving_search_finds() {
        let mut next = crate::test_below();
        for _ in 0..2_000 {
            let n = next(200) as usize;
            let spread = 1 + next(50);
            let mut list: Vec<u64> = (0..n).map(|_| next(spread)).collect();
            list.sort_unstable();
            let k = next(60);
            let want = list.partition_point(|x| *x < k);
            let end = want + next((n - want) as u64 + 1) as usize;
            assert_eq!(place_from_end(&list, end, &k, |x| *x), want, "{k} in {list:?} back from {end}");
        }
    }

    /// A growing list settled batch by batch is the sort of all it was given: its first batch
    /// taken whole into the empty list, the later ones merged in, batches of every size
    /// (none at all too), in any order.
    #[test]
    fn a_growing_list_is_the_sort_of_all_it_was_given() {
        let mut next = crate::test_below();
        let mut list: Growing<u32> = Growing::default();
        let mut all = Vec::new();
        for batch in [0usize, 500, 1, 0, 3_000, 7, 40] {
            for _ in 0..batch {
                let x = next(1_000) as u32;
                list.add(x);
                all.push(x);
            }
            list.settle(crate::stats::sort_u32);
            all.sort_unstable();
            assert!(!list.unsettled());
            assert_eq!(list.sorted, all, "after a batch of {batch}");
            assert_eq!(list.least(), all.first().copied());
        }
    }

    /// A merge gives what sorting the two lists together gives, in place (few new items) or in
    /// one pass (many): over lists of every size, with the new items anywhere among the old.
    #[test]
    fn a_merge_equals_a_sort() {
        let mut next = crate::test_below();
        for case in 0..400 {
            let (old_n, new_n, spread) = (next(300) as usize, 1 + next(40) as usize, 1 + next(1_000));
            let mut all: Vec<u64> = Vec::new();
            while all.len() < old_n + new_n {
                let v = next(spread * 1_000) + [0, 500_000, 0][case % 3];
                if !all.contains(&v) {
                    all.push(v);
                }
            }
            let (old, new) = all.split_at(old_n);
            let mut list: Vec<u64> = old.to_vec();
            list.sort();
            let mut new = new.to_vec();
            new.sort();
            merge_into(&mut list, &new, |v| *v);
            let mut sorted = all.to_vec();
            sorted.sort();
            assert_eq!(list, sorted, "case {case}");
        }
    }

    /// Where keys are equal a new item goes below the listed ones, in place and in one pass alike:
    /// items tagged new (0) or listed (1), merged by key alone, come out sorted by key and tag.
    #[test]
    fn a_merge_puts_new_items_below_listed_ones_of_an_equal_key() {
        let mut next = crate::test_below();
        for case in 0..400 {
            let (old_n, new_n, keys) = (next(300) as usize, 1 + next(60) as usize, 1 + next(20));
            let mut list: Vec<(u64, u8)> = (0..old_n).map(|_| (next(keys), 1)).collect();
            let mut new: Vec<(u64, u8)> = (0..new_n).map(|_| (next(keys), 0)).collect();
            list.sort();
            new.sort();
            let mut want: Vec<(u64, u8)> = list.iter().chain(&new).copied().collect();
            want.sort();
            merge_into(&mut list, &new, |&(key, _)| key);
            assert_eq!(list, want, "case {case}: {old_n} listed, {new_n} new");
        }
    }

    /// The earliest start is the least start of any attempt the kind has had, the latest start
    /// the greatest, started in any order, finished or not; none before the first.
    #[test]
    fn earliest_and_latest_start_are_the_least_and_greatest_start_of_any_attempt() {
        let mut job = JobState::default();
        job.ensure_tasks(TaskKind::Map, 4);
        assert_eq!(job.earliest_start(TaskKind::Map), None);
        assert_eq!(job.latest_start(TaskKind::Map), None);
        for (i, at) in [(2u32, 5_000), (0, 7_000), (3, 4_000), (1, 9_000)] {
            job.start_attempt(TaskId::map(i).attempt(0), at, None);
        }
        job.finish_attempt(TaskId::map(1).attempt(0), 10_000, AttemptState::Succeeded);
        job.finish_attempt(TaskId::map(3).attempt(0), 10_000, AttemptState::Succeeded);
        job.start_attempt(TaskId::map(3).attempt(1), 3_000, None);
        assert_eq!(job.earliest_start(TaskKind::Map), Some(3_000));
        assert_eq!(job.latest_start(TaskKind::Map), Some(9_000));
        assert_eq!(job.earliest_start(TaskKind::Reduce), None);
        assert_eq!(job.latest_start(TaskKind::Reduce), None);
    }

    /// Attempts finish in any order and the lists are read at any point in between: what is read
    /// is always every succeeded attempt so far in the order they finished, the run times of
    /// those that ran, the fit's sums as taken afresh (whether the job began them at their first
    /// read or at its first success), the tasks in the order they first succeeded (from any
    /// place of the list on), and each task's success of the lowest number as a walk over its
    /// attempts finds it.
    #[test]
    fn succeeded_attempts_are_read_in_the_order_they_finished() {
        // With the fit's sums begun at their first read, and from the first success.
        for keep_sums in [false, true] {
            let mut job = JobState::default();
            if keep_sums {
                job.keep_duration_sums();
            }
            let n = 500u32;
            job.ensure_tasks(TaskKind::Map, n);
            let mut next = crate::test_below();
            let mut order: Vec<AttemptId> = Vec::new();
            for i in 0..n {
                for a in 0..=(next(3) as u32) {
                    let id = TaskId::map(i).attempt(a);
                    job.start_attempt(id, i as Millis, None);
                    order.push(id);
                }
            }
            for i in (1..order.len()).rev() {
                order.swap(i, next(i as u64 + 1) as usize);
            }
            let mut succeeded: Vec<((u32, u32), f64)> = Vec::new();
            // Tasks in the order they first succeeded, and the place of each success among all.
            let mut firsts: Vec<(u32, usize)> = Vec::new();
            for (done, id) in order.iter().enumerate() {
                // Some attempts fail; some finish at their start (no run time, so no duration).
                let state = if next(5) == 0 { AttemptState::Failed } else { AttemptState::Succeeded };
                let at = if next(7) == 0 { id.task.index as Millis } else { 1_000 + done as Millis };
                job.finish_attempt(*id, at, state);
                if state == AttemptState::Succeeded {
                    if !succeeded.iter().any(|s| s.0 .0 == id.task.index) {
                        firsts.push((id.task.index, succeeded.len()));
                    }
                    succeeded.push(((id.task.index, id.n), (at - id.task.index as Millis) as f64 / 1000.0));
                }
                if next(10) == 0 || done + 1 == order.len() {
                    let listed: Vec<((u32, u32), f64)> = job.succeeded_attempts(TaskKind::Map).iter().map(|d| (d.key, d.secs)).collect();
                    assert_eq!(listed, succeeded, "after {} finished", done + 1);
                    assert_eq!(job.first_success_count(TaskKind::Map), firsts.len());
                    let from = next(succeeded.len() as u64 + 2) as usize;
                    let expected: Vec<u32> = firsts.iter().filter(|f| f.1 >= from).map(|f| f.0).collect();
                    assert_eq!(job.first_successes(TaskKind::Map, from).collect::<Vec<u32>>(), expected, "first successes from {from}");
                    let ran: Vec<f64> = succeeded.iter().map(|w| w.1).filter(|s| *s > 0.0).collect();
                    let run_ms = job.finished_run_ms(TaskKind::Map);
                    assert_eq!(job.finished_durations(TaskKind::Map), ran, "after {} finished", done + 1);
                    // The sums taken as attempts succeed and carried at the read: the sums afresh.
                    let (kept, mut afresh) = (job.finished_duration_sums(TaskKind::Map), crate::stats::FitSums::default());
                    afresh.carry(run_ms);
                    let bits = |s: crate::stats::FitSums| (s.len, s.mu.to_bits(), s.logs.to_bits(), s.sum.to_bits());
                    assert_eq!(bits(kept), bits(afresh), "fit sums after {} finished (kept: {keep_sums})", done + 1);
                    let mut in_order = ran.clone();
                    in_order.sort_by(f64::total_cmp);
                    let sorted: Vec<f64> = job.finished_run_ms_sorted(TaskKind::Map).iter().map(|&ms| ms as f64 / 1000.0).collect();
                    assert_eq!(sorted, in_order, "after {} finished", done + 1);
                    for task in job.tasks(TaskKind::Map) {
                        let first = task.attempts.iter().position(|a| a.state == AttemptState::Succeeded);
                        let found = job.first_success(task.id).map(|d| d.key);
                        assert_eq!(found, first.map(|pos| (task.id.index, pos as u32)), "first success of {:?}", task.id);
                    }
                }
            }
        }
    }

    #[test]
    fn a_node_name_id_is_the_same_for_equal_names_and_differs_for_others() {
        let (a, again, b) = (NodeName::from("id-a:1"), NodeName::from(String::from("id-a:1")), NodeName::from("id-b:1"));
        assert_eq!(a.id(), again.id());
        assert_ne!(a.id(), b.id());
    }

    /// The brief is the task's one running attempt's, whatever happened to its attempts, and
    /// none while it has two running or none.
    #[test]
    fn a_brief_follows_the_one_running_attempt() {
        let mut job = JobState::default();
        let t = TaskId::map(0);
        let check = |job: &JobState| {
            let task = job.task(t).unwrap();
            let running: Vec<&Attempt> = job.running_attempts_of(task).collect();
            match (job.brief(t), running.as_slice()) {
                (Some(b), [a]) => {
                    assert_eq!(b.attempt(t), a.id);
                    assert_eq!((b.start(), b.progress(), b.reported_at(), b.node()), (a.start, a.progress, a.reported_at(), a.node));
                    assert_eq!(b.shown_progress(), a.first_progress_at().is_some());
                    assert_eq!(b.first_progress_at(), a.first_progress_at());
                    assert_eq!(b.elapsed(70_000), a.elapsed(70_000));
                }
                (None, [a]) if a.id.n <= u16::MAX as u32 => panic!("no brief for a task with one running attempt"),
                (Some(b), _) => panic!("a brief {b:?} for {} running attempts", running.len()),
                (None, _) => {}
            }
        };
        job.ensure_tasks(TaskKind::Map, 1);
        check(&job);
        let n0 = job.intern_node("a:1", None);
        job.start_attempt(t.attempt(0), 1_000, None);
        check(&job);
        job.report(t.attempt(0), 4_000, 0.0, Phase::Starting, Some(10_000.0));
        check(&job);
        job.start_attempt(t.attempt(0), 5_000, Some(n0));
        check(&job);
        job.report(t.attempt(0), 9_000, 0.3, Phase::Map, Some(10_000.0));
        check(&job);
        job.start_attempt(t.attempt(1), 10_000, Some(n0));
        check(&job);
        job.report(t.attempt(1), 12_000, 0.1, Phase::Map, Some(10_000.0));
        check(&job);
        job.finish_attempt(t.attempt(0), 15_000, AttemptState::Killed);
        check(&job);
        job.report(t.attempt(1), 20_000, 0.6, Phase::Map, Some(10_000.0));
        check(&job);
        job.finish_attempt(t.attempt(1), 30_000, AttemptState::Succeeded);
        check(&job);
        job.finish_attempt(t.attempt(1), 40_000, AttemptState::Killed);
        check(&job);
        job.start_attempt(t.attempt(70_000), 50_000, Some(n0));
        assert!(job.brief(t).is_none(), "an attempt numbered beyond u16::MAX has no brief");
        check(&job);
    }
}
