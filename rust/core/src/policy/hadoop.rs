//! `hadoop` — a model of Hadoop's own `DefaultSpeculator` with its Legacy estimator (3.x), the
//! baseline the simulator compares against. Inside an AM use Hadoop's real speculator instead.
//!
//! Per task type, per scan: nothing while a task of that type waits for a container, nor before
//! at least 1 task and 5% of the type's tasks have finished. A task with one running attempt is
//! worth `estimated end − (now + mean run time of finished attempts)`, its estimated end being
//! start + (last report time − start) / progress; a task whose estimated end has passed, or that
//! a fresh attempt would not beat, is worth nothing. The most valuable task gets one copy, if
//! fewer than max(minimum-allowed, cap-total × tasks, cap-running × running tasks) tasks run two
//! attempts. After a copy the speculator waits `retry-after-speculate` before the next scan.
//! An attempt whose progress and estimate a scan finds unchanged for more than 9 s since the
//! scan that last saw them change gets a synthetic heartbeat (DefaultSpeculator's
//! `MAX_WAITTING_TIME_FOR_HEARTBEAT`): from the next scan on, its estimate is taken as if it had
//! reported its unchanged progress then, so a stalled attempt's estimated end keeps moving.
//! Like the stock speculator, the model does not veto copies that land on a bad node.


use crate::action::{Action, AvoidNodes, Reason};
use crate::config::{Config, HadoopConfig};
use crate::model::{AttemptId, JobState, Millis, TaskId, TaskKind};
use crate::policy::Policy;

/// DefaultSpeculator's `MAX_WAITTING_TIME_FOR_HEARTBEAT`.
const MAX_WAIT_FOR_HEARTBEAT_MS: Millis = 9_000;

pub struct Hadoop {
    cfg: HadoopConfig,
    next_scan: Millis,
    /// DefaultSpeculator's `runningTaskAttemptStatistics`: per attempt it has estimated, what a
    /// scan last saw and when it last changed, and the time of the last synthetic heartbeat.
    ///
    /// Kept per task (by kind and index) for the attempt last estimated: only a task's sole
    /// running attempt is ever estimated, and an attempt never runs again once it has stopped, so
    /// an entry for another attempt of the task is one DefaultSpeculator would have dropped.
    seen: [Vec<Option<(u32, Seen)>>; 2],
}

/// What the estimate reads of a task's one running attempt.
#[derive(Clone, Copy)]
struct Sole {
    id: AttemptId,
    start: Millis,
    progress: f64,
    reported_at: Millis,
}

struct Seen {
    progress: f64,
    report: Millis,
    changed_at: Millis,
    synthetic: Option<Millis>,
}

impl Hadoop {
    pub fn new(config: &Config) -> Hadoop {
        Hadoop { cfg: config.hadoop.clone(), next_scan: Millis::MIN, seen: Default::default() }
    }

    /// The report time the Legacy estimator holds for a running attempt: its last report, or a
    /// later synthetic heartbeat. Also does the scan's bookkeeping: an attempt left unchanged for
    /// more than 9 s gets a heartbeat now, which the estimate takes from the next scan on (as in
    /// DefaultSpeculator, which computes this scan's estimate before it simulates the heartbeat).
    /// `best` has made room for every task of the kind.
    fn report_time(&mut self, now: Millis, a: Sole) -> Millis {
        let slots = &mut self.seen[a.id.task.kind as usize];
        let i = a.id.task.index as usize;
        let s = match &mut slots[i] {
            Some((n, s)) if *n == a.id.n => s,
            slot => {
                *slot = Some((a.id.n, Seen { progress: a.progress, report: a.reported_at, changed_at: now, synthetic: None }));
                return a.reported_at;
            }
        };
        let report = s.synthetic.map_or(a.reported_at, |t| t.max(a.reported_at));
        if s.progress != a.progress || s.report != report {
            s.progress = a.progress;
            s.report = report;
            s.changed_at = now;
        } else if now - s.changed_at > MAX_WAIT_FOR_HEARTBEAT_MS {
            s.changed_at = now;
            s.synthetic = Some(now);
        }
        report
    }

    fn best(&mut self, now: Millis, job: &JobState, kind: TaskKind) -> Option<Action> {
        let tasks = job.tasks(kind);
        if job.waiting_task_count(kind) > 0 {
            return None;
        }
        // One entry per task of the kind, made once rather than grown a task at a time.
        let seen = &mut self.seen[kind as usize];
        if seen.len() < tasks.len() {
            crate::memory::reserve_exact(seen, tasks.len() - seen.len(), job.huge_pages);
            seen.resize_with(tasks.len(), || None);
        }
        // The finished attempts' run times and the count of finished tasks, kept by the job as
        // attempts end (the run times are whole milliseconds, so their sum is exact).
        let completed = job.succeeded_task_count(kind) as usize;
        let (runtimes, runtime_ms) = job.succeeded_runtime_ms(kind);
        let runtime_sum = runtime_ms as f64;
        if completed < 1 || (completed as f64) < 0.05 * tasks.len() as f64 || runtimes == 0 {
            return None;
        }
        let mean_ms = runtime_sum / runtimes as f64;
        let mut running_tasks = 0;
        let mut already = 0;
        let mut best: Option<(f64, TaskId, f64)> = None;
        // Tasks without a running attempt are skipped below: walk only those with one, and read
        // a task's one running attempt from its brief, not from the task's record.
        for index in job.running_unsucceeded(kind) {
            let id = TaskId { kind, index };
            let booked = job.booking(id);
            running_tasks += 1;
            if booked.running() > 1 || booked.copies_pending() > 0 {
                already += 1;
                continue;
            }
            let a = match job.brief(id) {
                Some(b) => Sole { id: b.attempt(id), start: b.start(), progress: b.progress(), reported_at: b.reported_at() },
                None => {
                    let Some(a) = job.running_attempts_of(&tasks[index as usize]).next() else { continue };
                    Sole { id: a.id, start: a.start, progress: a.progress, reported_at: a.reported_at() }
                }
            };
            let reported_at = self.report_time(now, a);
            let estimated_runtime = (reported_at - a.start).max(0) as f64 / a.progress.max(0.0001);
            let estimated_end = a.start as f64 + estimated_runtime;
            let replacement_end = now as f64 + mean_ms;
            if estimated_end < now as f64 || replacement_end >= estimated_end {
                continue;
            }
            let value = estimated_end - replacement_end;
            if best.is_none_or(|b| value > b.0) {
                best = Some((value, id, estimated_end));
            }
        }
        let allowed = (self.cfg.minimum_allowed_tasks as f64)
            .max(self.cfg.cap_total_tasks * tasks.len() as f64)
            .max(self.cfg.cap_running_tasks * running_tasks as f64);
        let (value, task, estimated_end) = best?;
        if allowed <= already as f64 {
            return None;
        }
        Some(Action::Speculate {
            task,
            avoid_nodes: AvoidNodes::default(),
            prefer_rack: None,
            reason: Reason::Hadoop {
                estimated_end_s: (estimated_end - now as f64) / 1000.0,
                replacement_s: mean_ms / 1000.0,
                value_s: value / 1000.0,
                speculating: already,
                allowed: allowed as u32,
            },
        })
    }
}

impl Policy for Hadoop {
    fn name(&self) -> &'static str {
        "hadoop"
    }

    /// DefaultSpeculator neither names nodes to avoid nor kills a badly placed copy: the model of
    /// the stock baseline keeps its copies wherever they land.
    fn vetoes_copies(&self) -> bool {
        false
    }

    fn decide(&mut self, now: Millis, job: &JobState) -> Vec<Action> {
        if now < self.next_scan {
            return Vec::new();
        }
        let actions: Vec<Action> = TaskKind::ALL.iter().filter_map(|k| self.best(now, job, *k)).collect();
        if !actions.is_empty() {
            self.next_scan = now + self.cfg.retry_after_speculate_ms;
        }
        actions
    }
}

#[cfg(test)]
mod tests {
    use crate::event::{Event, Outcome};
    use crate::model::{Phase, TaskId};
    use crate::{Action, Engine};

    /// Twenty maps of 10 s; map 19 reports 10% after 10 s (estimated end 100 s) while a fresh
    /// attempt would end at 10 + 10 s: it is copied, once, and the next scan waits 15 s.
    #[test]
    fn copies_the_most_valuable_task_then_waits() {
        let mut e = Engine::from_pairs([("rein.policy", "hadoop")]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 20, reduces: 0 });
        for i in 0..20 {
            e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: None, rack: None });
        }
        for i in 0..18 {
            e.ingest(10_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
        }
        e.ingest(10_000, Event::AttemptStatus { attempt: TaskId::map(18).attempt(0), progress: 0.9, phase: Phase::Map });
        e.ingest(10_000, Event::AttemptStatus { attempt: TaskId::map(19).attempt(0), progress: 0.1, phase: Phase::Map });
        let actions = e.decide(10_000);
        assert_eq!(actions.len(), 1);
        assert!(matches!(&actions[0], Action::Speculate { task, .. } if *task == TaskId::map(19)));
        assert!(e.decide(11_000).is_empty(), "retry-after-speculate");
    }

    /// Five maps that report 80% at 1 s; the first four finish at `done_at`.
    fn five_maps_at_80_percent_four_done_at(done_at: i64) -> Engine {
        let mut e = Engine::from_pairs([("rein.policy", "hadoop")]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 5, reduces: 0 });
        for i in 0..5 {
            e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: None, rack: None });
            e.ingest(1_000, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress: 0.8, phase: Phase::Map });
        }
        for i in 0..4 {
            e.ingest(done_at, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
        }
        e
    }

    /// Hadoop's TestSpeculativeExecutionWithMRApp#testSpeculateSuccessfulWithoutUpdateEvents:
    /// five maps report 80% after 1 s, four finish, and the fifth never reports again. Its
    /// estimated end (1.25 s) passes at once; the stock speculator gives it a synthetic
    /// heartbeat once a scan has seen it unchanged for more than 9 s, and the estimate it then
    /// makes (end at 13 s / 0.8) is worth a copy at the following scan.
    #[test]
    fn a_silent_attempt_gets_a_synthetic_heartbeat() {
        let mut e = five_maps_at_80_percent_four_done_at(1_250);
        // First seen at 3 s; unchanged past 12 s; the heartbeat is taken at 13 s.
        for now in (3_000..=13_000).step_by(1_000) {
            assert!(e.decide(now).is_empty(), "no copy at {now} ms");
        }
        let actions = e.decide(14_000);
        assert_eq!(actions.len(), 1, "{actions:?}");
        assert!(matches!(&actions[0], Action::Speculate { task, .. } if *task == TaskId::map(4)));
    }

    /// A report restarts the wait: the same job with maps of 3 s, the fifth reporting its 80%
    /// again at 8 s (estimated end 10 s, not worth a copy that would end at 11 s) and then
    /// falling silent. Its heartbeat comes at 18 s, the first scan more than 9 s after the one
    /// that saw the report, and its copy at 19 s (estimated end 22.5 s, a copy's 22 s).
    #[test]
    fn a_report_restarts_the_wait_for_a_heartbeat() {
        let mut e = five_maps_at_80_percent_four_done_at(3_000);
        for now in (3_000..=18_000).step_by(1_000) {
            if now == 8_000 {
                e.ingest(now, Event::AttemptStatus { attempt: TaskId::map(4).attempt(0), progress: 0.8, phase: Phase::Map });
            }
            assert!(e.decide(now).is_empty(), "no copy at {now} ms");
        }
        let actions = e.decide(19_000);
        assert_eq!(actions.len(), 1, "{actions:?}");
        assert!(matches!(&actions[0], Action::Speculate { task, .. } if *task == TaskId::map(4)));
    }
}
