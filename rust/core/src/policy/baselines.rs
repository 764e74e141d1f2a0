//! The end-of-phase duplication rules Mantri §6 compares against (Mantri §7's summary of them):
//! - `mapreduce`: once a threshold share of a phase's tasks has finished, duplicate every task
//!   that remains (Dean & Ghemawat's backup tasks);
//! - `dryad`: duplicate a task that has run longer than a percentile of the phase's task durations.
//!
//! The Mantri text lost both numbers; rein's defaults (90% finished, 95th percentile) are its own
//! and configurable.

use crate::action::{Action, AvoidNodes, Reason};
use crate::config::Config;
use crate::model::{JobState, Millis, TaskKind};
use crate::policy::{copy_room, Policy};
use crate::stats::percentile;

#[derive(Clone, Copy)]
enum Rule {
    /// Duplicate what remains once this share of the phase has finished.
    BackupAtEnd(f64),
    /// Duplicate what has run longer than this percentile of finished durations.
    Percentile(f64),
}

pub struct Baseline {
    rule: Rule,
}

impl Baseline {
    pub fn mapreduce(config: &Config) -> Baseline {
        Baseline { rule: Rule::BackupAtEnd(config.baselines.mapreduce_finished_fraction) }
    }

    pub fn dryad(config: &Config) -> Baseline {
        Baseline { rule: Rule::Percentile(config.baselines.dryad_percentile) }
    }
}

impl Policy for Baseline {
    fn name(&self) -> &'static str {
        match self.rule {
            Rule::BackupAtEnd(_) => "mapreduce",
            Rule::Percentile(_) => "dryad",
        }
    }

    fn decide(&mut self, now: Millis, job: &JobState) -> Vec<Action> {
        let mut budget = copy_room(job).max(1);
        let mut actions = Vec::new();
        for kind in TaskKind::ALL {
            let tasks = job.tasks(kind);
            let finished = tasks.iter().filter(|t| t.succeeded).count();
            let mut durations = job.finished_durations(kind);
            let bar_s = match self.rule {
                Rule::BackupAtEnd(share) => {
                    if tasks.is_empty() || (finished as f64) < share * tasks.len() as f64 {
                        continue;
                    }
                    0.0
                }
                Rule::Percentile(q) => match percentile(&mut durations, q) {
                    Some(p) => p,
                    None => continue,
                },
            };
            for task in tasks.iter().filter(|t| !t.succeeded && job.booking(t.id).copies_pending() == 0) {
                let mut running = job.running_attempts_of(task);
                let (Some(a), None) = (running.next(), running.next()) else { continue };
                let elapsed_s = a.elapsed(now) as f64 / 1000.0;
                if elapsed_s <= bar_s || budget == 0 {
                    continue;
                }
                budget -= 1;
                let avoid = AvoidNodes::own_only(a.node.map(|n| job.node(n).name));
                actions.push(Action::Speculate {
                    task: task.id,
                    avoid_nodes: avoid,
                    prefer_rack: None,
                    reason: Reason::Baseline {
                        policy: self.name(),
                        elapsed_s,
                        bar_s,
                        finished: finished as u32,
                        tasks: tasks.len() as u32,
                    },
                });
            }
        }
        actions
    }
}

#[cfg(test)]
mod tests {
    use crate::event::{Event, Outcome};
    use crate::model::TaskId;
    use crate::Engine;

    fn job(policy: &str) -> Engine {
        let mut e = Engine::from_pairs([("rein.policy", policy)]).unwrap().0;
        e.ingest(0, Event::JobCreated { maps: 20, reduces: 0 });
        for i in 0..20 {
            e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: None, rack: None });
        }
        // Seventeen finish at 10..26 s; three still run.
        for i in 0..17 {
            e.ingest(10_000 + i as i64 * 1000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
        }
        e
    }

    #[test]
    fn mapreduce_backs_up_all_that_remains_only_near_the_end() {
        let mut e = job("mapreduce");
        assert!(e.decide(30_000).is_empty(), "17 of 20 finished is under 90%");
        e.ingest(31_000, Event::AttemptFinished { attempt: TaskId::map(17).attempt(0), outcome: Outcome::Succeeded });
        let copies: Vec<_> = e.decide(31_000).iter().map(|a| a.task()).collect();
        assert_eq!(copies, vec![TaskId::map(18), TaskId::map(19)]);
    }

    #[test]
    fn dryad_backs_up_what_outlasts_the_95th_percentile() {
        let mut e = job("dryad");
        // Finished durations 10..26 s: the 95th percentile is 25.2 s.
        assert!(e.decide(25_000).is_empty());
        assert_eq!(e.decide(26_000).len(), 3);
    }
}
