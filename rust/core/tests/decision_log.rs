//! The decision log: one record per action with its numbers, its outcome once the job shows it,
//! and the return on investment (issue 17).

use rein_core::{Action, Engine, Event, Outcome, Phase, TaskId};

/// Four maps under the hadoop model; m1..m3 take 10 s, m0 crawls (10% after 30 s): at 30 s the
/// model asks for a copy of m0 whose estimated end is 300 s and a fresh copy's 10 s.
fn crawling_map(extra: &[(&'static str, &'static str)]) -> (Engine, Vec<Action>) {
    let mut pairs = vec![("rein.policy", "hadoop"), ("rein.decision-log", "auto")];
    pairs.extend_from_slice(extra);
    let mut e = Engine::from_pairs(pairs).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: 4, reduces: 0 });
    for i in 0..4 {
        e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{i}:1")), rack: None });
    }
    for i in 1..4 {
        e.ingest(10_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
    }
    for at in [10_000, 20_000, 30_000] {
        e.ingest(at, Event::AttemptStatus { attempt: TaskId::map(0).attempt(0), progress: at as f64 / 300_000.0, phase: Phase::Map });
    }
    let actions = e.decide(30_000);
    (e, actions)
}

fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let at = line.find(&format!("\"{key}\":")).unwrap_or_else(|| panic!("no {key} in {line}"));
    let rest = &line[at + key.len() + 3..];
    let end = if rest.starts_with('{') { rest.find('}').unwrap() + 1 } else { rest.find([',', '}']).unwrap() };
    &rest[..end]
}

fn num(line: &str, key: &str) -> f64 {
    field(line, key).parse().unwrap_or_else(|_| panic!("{key} in {line}"))
}

#[test]
fn a_copy_that_wins_is_logged_with_its_reason_and_its_time_saved() {
    let (mut e, actions) = crawling_map(&[]);
    assert_eq!(actions.len(), 1, "{actions:?}");
    let records = e.take_records();
    assert_eq!(records.len(), 1);
    let d = &records[0];
    assert_eq!(field(d, "record"), "\"decision\"");
    assert_eq!(field(d, "action"), "\"copy\"");
    assert_eq!(field(d, "task"), "\"m_000000\"");
    assert_eq!(field(d, "attempt"), "0");
    assert_eq!(field(d, "node"), "\"n0:1\"");
    assert_eq!(field(d, "policy"), "\"hadoop\"");
    assert_eq!(field(d, "shadow"), "false");
    assert_eq!(num(d, "original_est_end_ms"), 300_000.0);
    assert_eq!(num(d, "copy_est_s"), 10.0);
    assert!(field(d, "reason").starts_with("{\"kind\":\"hadoop\",\"estimated_end_s\":270"), "{d}");
    assert!(field(d, "text").contains("DefaultSpeculator model"));
    // What the decision was taken from: the original attempt's start, phase, score and reports.
    let evidence = &d[d.find("\"evidence\":").expect("evidence")..];
    assert!(evidence.starts_with("\"evidence\":{\"start_ms\":0,\"phase\":\"map\",\"progress\":0.1,"), "{d}");
    assert!(evidence.contains("\"reports\":[[") && evidence.contains("[30000,0.1]]"), "{d}");

    let copy = TaskId::map(0).attempt(1);
    e.ingest(31_000, Event::AttemptStarted { attempt: copy, node: Some("n9:1".into()), rack: None });
    e.ingest(41_000, Event::AttemptFinished { attempt: copy, outcome: Outcome::Succeeded });
    e.ingest(41_500, Event::AttemptFinished { attempt: TaskId::map(0).attempt(0), outcome: Outcome::Killed });
    let records = e.take_records();
    assert_eq!(records.len(), 1, "{records:?}");
    let o = &records[0];
    assert_eq!(field(o, "record"), "\"outcome\"");
    assert_eq!(field(o, "decision"), "1");
    assert_eq!(field(o, "result"), "\"won\"");
    assert_eq!(field(o, "attempt"), "1");
    assert_eq!(field(o, "node"), "\"n9:1\"");
    assert_eq!(num(o, "container_s"), 10.0);
    assert_eq!(num(o, "task_end_ms"), 41_000.0);
    // The original, at 10% after 30 s, would have ended at 300 s.
    assert_eq!(num(o, "original_est_end_ms"), 300_000.0);
    assert_eq!(field(o, "original_est"), "\"extrapolated\"");
    assert_eq!(num(o, "saved_s"), 259.0);

    let roi = e.roi();
    assert_eq!((roi.copies_asked, roi.copies_launched, roi.copies_won, roi.copy_container_ms, roi.saved_ms), (1, 1, 1, 10_000, 259_000));
    let s = e.summary_record(42_000);
    assert_eq!(field(&s, "record"), "\"summary\"");
    assert_eq!(field(&s, "actions"), "{\"copy\":1,\"clone\":0,\"restart\":0,\"veto\":0,\"move\":0}");
    assert_eq!(num(&s, "copies_won"), 1.0);
    assert_eq!(num(&s, "copy_container_s"), 10.0);
    assert_eq!(num(&s, "estimated_job_s_saved"), 259.0);
    assert_eq!(num(&s, "saved_per_container_s"), 25.9);
}

/// An original that never reported progress has no rate to extrapolate: the copy that beat it is
/// scored against a lower bound — the task's whole work still ahead of the original, done no
/// faster than the copy did it from its first report.
#[test]
fn a_copy_that_beats_a_silent_original_is_scored_against_a_lower_bound() {
    let mut e = Engine::from_pairs([
        ("rein.policy", "auto"),
        ("rein.decision-log", "auto"),
        ("rein.cluster.slots", "8"),
        ("rein.mantri.delta-ms", "1000"),
    ])
    .unwrap()
    .0;
    e.ingest(0, Event::JobCreated { maps: 4, reduces: 0 });
    for i in 0..4 {
        e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{i}:1")), rack: None });
    }
    for at in (2_000..=8_000).step_by(2_000) {
        for i in 1..4 {
            e.ingest(at, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress: at as f64 / 10_000.0, phase: Phase::Map });
        }
    }
    for i in 1..4 {
        e.ingest(10_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
    }
    e.ingest(10_000, Event::Capacity { total_slots: 8, free_slots: Some(4) });
    let actions = e.decide(13_000);
    assert_eq!(actions.iter().map(Action::task).collect::<Vec<_>>(), vec![TaskId::map(0)], "{actions:?}");
    let records = e.take_records();
    assert_eq!(field(&records[0], "original_est_end_ms"), "null", "{records:?}");

    let copy = TaskId::map(0).attempt(1);
    e.ingest(14_000, Event::AttemptStarted { attempt: copy, node: Some("n1:1".into()), rack: None });
    e.ingest(16_000, Event::AttemptStatus { attempt: copy, progress: 0.2, phase: Phase::Map });
    e.ingest(24_000, Event::AttemptFinished { attempt: copy, outcome: Outcome::Succeeded });
    let records = e.take_records();
    let o = records.iter().find(|r| r.contains("\"record\":\"outcome\"")).unwrap_or_else(|| panic!("{records:?}"));
    assert_eq!(field(o, "result"), "\"won\"");
    assert_eq!(field(o, "original_est"), "\"lower-bound\"");
    // First report at 16 s, end at 24 s: at least 8 s of work were still ahead of the original.
    assert_eq!(num(o, "original_est_end_ms"), 32_000.0);
    assert_eq!(num(o, "saved_s"), 8.0);
}

#[test]
fn a_copy_that_loses_costs_its_container_time_and_saves_nothing() {
    let (mut e, _) = crawling_map(&[]);
    e.take_records();
    let copy = TaskId::map(0).attempt(1);
    e.ingest(31_000, Event::AttemptStarted { attempt: copy, node: Some("n9:1".into()), rack: None });
    e.ingest(35_000, Event::AttemptFinished { attempt: TaskId::map(0).attempt(0), outcome: Outcome::Succeeded });
    e.ingest(35_200, Event::AttemptFinished { attempt: copy, outcome: Outcome::Killed });
    let records = e.take_records();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(field(&records[0], "result"), "\"lost\"");
    assert_eq!(num(&records[0], "container_s"), 4.2);
    assert_eq!(num(&records[0], "saved_s"), 0.0);
    let roi = e.roi();
    assert_eq!((roi.copies_won, roi.copy_container_ms, roi.saved_ms), (0, 4_200, 0));
    assert_eq!(roi.ratio(), Some(0.0));
}

#[test]
fn a_copy_whose_task_ends_before_it_starts_is_logged_as_not_launched() {
    let (mut e, _) = crawling_map(&[]);
    e.take_records();
    // No container came free before the original finished: the AM drops the pending copy.
    e.ingest(35_000, Event::AttemptFinished { attempt: TaskId::map(0).attempt(0), outcome: Outcome::Succeeded });
    let records = e.take_records();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(field(&records[0], "record"), "\"outcome\"");
    assert_eq!(field(&records[0], "decision"), "1");
    assert_eq!(field(&records[0], "result"), "\"not-launched\"");
    assert_eq!(num(&records[0], "container_s"), 0.0);
    let roi = e.roi();
    assert_eq!((roi.copies_asked, roi.copies_launched, roi.copies_won, roi.copy_container_ms), (1, 0, 0, 0));
}

#[test]
fn a_copy_the_caller_drops_is_logged_as_dropped() {
    let (mut e, _) = crawling_map(&[]);
    e.take_records();
    e.ingest(30_000, Event::CopyDropped { task: TaskId::map(0) });
    let records = e.take_records();
    assert_eq!(records.len(), 1);
    assert_eq!(field(&records[0], "result"), "\"dropped\"");
    assert_eq!(field(&records[0], "decision"), "1");
}

#[test]
fn in_shadow_mode_a_copy_is_scored_against_the_tasks_actual_end() {
    let (mut e, actions) = crawling_map(&[("rein.mode", "shadow")]);
    assert_eq!(actions.len(), 1, "the engine decides as ever; the caller does not act");
    let d = &e.take_records()[0];
    assert_eq!(field(d, "shadow"), "true");
    // Hadoop's own copy starts and loses; the original ends at 100 s.
    e.ingest(45_000, Event::AttemptStarted { attempt: TaskId::map(0).attempt(1), node: Some("n1:1".into()), rack: None });
    e.ingest(100_000, Event::AttemptFinished { attempt: TaskId::map(0).attempt(0), outcome: Outcome::Succeeded });
    let records = e.take_records();
    assert_eq!(records.len(), 1, "{records:?}");
    let o = &records[0];
    assert_eq!(field(o, "result"), "\"not-acted\"");
    assert_eq!(field(o, "shadow"), "true");
    assert_eq!(num(o, "task_end_ms"), 100_000.0);
    // A copy started at 30 s taking the mean 10 s would have ended at 40 s.
    assert_eq!(num(o, "copy_est_end_ms"), 40_000.0);
    assert_eq!(num(o, "would_save_s"), 60.0);
    let roi = e.roi();
    assert_eq!((roi.copies_asked, roi.copies_launched, roi.saved_ms), (1, 0, 60_000));
    let s = e.summary_record(100_000);
    assert_eq!(num(&s, "estimated_job_s_rein_would_save"), 60.0);
    assert_eq!(field(&s, "saved_per_container_s"), "null");
}

#[test]
fn a_restart_is_scored_when_its_task_ends() {
    // Mantri §5.1's restart: m0 crawls at a quarter pace while m3..m6 wait (see shim_truth.rs).
    let t = 60_000;
    let mut e = Engine::from_pairs([("rein.policy", "mantri"), ("rein.decision-log", "auto")]).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: 7, reduces: 0 });
    for i in 0..3 {
        e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{i}:1")), rack: None });
    }
    e.ingest(t, Event::AttemptFinished { attempt: TaskId::map(1).attempt(0), outcome: Outcome::Succeeded });
    e.ingest(3 * t, Event::AttemptFinished { attempt: TaskId::map(2).attempt(0), outcome: Outcome::Succeeded });
    for i in 3..7 {
        e.ingest(0, Event::ContainerNeed { task: TaskId::map(i), delta: 1 });
    }
    let mut at = 10_000;
    while at <= 3 * t {
        e.ingest(at, Event::AttemptStatus { attempt: TaskId::map(0).attempt(0), progress: at as f64 / (6.0 * t as f64), phase: Phase::Map });
        at += 10_000;
    }
    let actions = e.decide(3 * t);
    assert!(matches!(actions.as_slice(), [Action::Restart { .. }]), "{actions:?}");
    let d = &e.take_records()[0];
    assert_eq!(field(d, "action"), "\"restart\"");
    assert_eq!(field(d, "reason").split(',').nth(1), Some("\"rule\":\"restart\""));
    e.ingest(3 * t + 100, Event::AttemptFinished { attempt: TaskId::map(0).attempt(0), outcome: Outcome::Killed });
    e.ingest(3 * t + 200, Event::AttemptStarted { attempt: TaskId::map(0).attempt(1), node: Some("n1:1".into()), rack: None });
    e.ingest(4 * t, Event::AttemptFinished { attempt: TaskId::map(0).attempt(1), outcome: Outcome::Succeeded });
    let records = e.take_records();
    assert_eq!(records.len(), 1, "{records:?}");
    let o = &records[0];
    assert_eq!(field(o, "result"), "\"won\"");
    assert_eq!(field(o, "winner"), "1");
    assert_eq!(num(o, "container_s"), 180.1);
    assert!(num(o, "saved_s") > 0.0, "{o}");
}

#[test]
fn the_log_is_off_unless_asked_for() {
    let mut e = Engine::from_pairs([("rein.policy", "hadoop")]).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: 1, reduces: 0 });
    e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(0).attempt(0), node: None, rack: None });
    e.decide(1000);
    e.ingest(2000, Event::AttemptFinished { attempt: TaskId::map(0).attempt(0), outcome: Outcome::Succeeded });
    assert!(e.take_records().is_empty());
}

/// `rein.decision-log.max-bytes` bounds what the engine hands out, less what it leaves to the
/// caller's own lines: the first record that does not fit is replaced by one `truncated`
/// record, no record follows it, and every decision is still counted. 2,000 running maps, all
/// late against their finished siblings, so that Mantri copies every one in one decision (with
/// `rein.max-copies-per-scan` off).
#[test]
fn records_stop_at_the_bound_with_one_truncated_record_and_every_copy_still_counted() {
    let decide = |max: &str| {
        let pairs = [("rein.policy", "mantri"), ("rein.decision-log", "auto"), ("rein.decision-log.max-bytes", max), ("rein.cluster.slots", "100000"), ("rein.max-copies-per-scan", "0")];
        let mut e = Engine::from_pairs(pairs).unwrap().0;
        let (running, done) = (2_000u32, 200u32);
        e.ingest(0, Event::JobCreated { maps: running + done, reduces: 0 });
        for i in 0..running + done {
            e.ingest(0, Event::TaskInput { task: TaskId::map(i), bytes: 1 << 20 });
            e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{}:1", i % 50)), rack: None });
        }
        for i in running..running + done {
            e.ingest(20_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
        }
        for (at, p) in [(10_000, 0.01), (30_000, 0.02)] {
            for i in 0..running {
                e.ingest(at, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress: p, phase: Phase::Map });
            }
        }
        let actions = e.decide(40_000);
        (e.take_records(), actions.len(), e)
    };
    let (all, copies, _) = decide("1073741824");
    assert_eq!((all.len(), copies), (2_000, 2_000), "every copy logged under the largest bound");
    let max = 65_536u64;
    let (some, copies, mut e) = decide(&max.to_string());
    assert_eq!(copies, 2_000);
    let (last, kept) = some.split_last().expect("records");
    assert_eq!(last, &format!("{{\"record\":\"truncated\",\"max_bytes\":{max}}}"));
    assert_eq!(kept, &all[..kept.len()], "the records before the bound are the same");
    let bytes: u64 = kept.iter().map(|r| r.len() as u64 + 1).sum();
    let reserved = rein_core::ledger::RESERVED_BYTES;
    assert!(bytes <= max - reserved, "{bytes} bytes of records against {} allowed", max - reserved);
    assert!(bytes + all[kept.len()].len() as u64 + 1 > max - reserved, "the first record left out would not have fit");
    assert_eq!(e.roi().copies_asked, 2_000, "every copy counted");
    assert!(e.summary_record(40_000).contains("\"copy\":2000"), "{}", e.summary_record(40_000));
    // Nothing after the bound, outcomes included.
    e.ingest(41_000, Event::AttemptStarted { attempt: TaskId::map(0).attempt(1), node: Some("n7:1".into()), rack: None });
    e.ingest(42_000, Event::AttemptFinished { attempt: TaskId::map(0).attempt(1), outcome: Outcome::Succeeded });
    assert!(e.take_records().is_empty());
    assert_eq!(e.roi().copies_won, 1, "outcomes still counted");
}

#[test]
fn a_bound_out_of_range_is_refused_with_its_key_and_range() {
    let err = Engine::from_pairs([("rein.decision-log.max-bytes", "100")]).err().expect("refused");
    assert_eq!((err.key.as_str(), err.value.as_str(), err.allowed.as_str()), ("rein.decision-log.max-bytes", "100", "[4096, 1073741824]"));
}

/// Past the bound a decision is followed from the compact records of the job, not from its tasks'
/// (`Ledger::decided`): the return on investment and the summary must not tell the two apart.
/// Mantri's copies carry their original's time left; Dolly's clones do not, so theirs is
/// extrapolated from the original's progress. The job then runs to its end: some copies win,
/// some lose to their original, some are dropped, some never start.
#[test]
fn the_return_on_investment_is_the_same_past_the_bound() {
    for policy in ["mantri", "dolly"] {
        let run = |max: &str| {
            let pairs = [("rein.policy", policy), ("rein.decision-log", "auto"), ("rein.decision-log.max-bytes", max), ("rein.cluster.slots", "100000"), ("rein.max-copies-per-scan", "0")];
            let mut e = Engine::from_pairs(pairs).unwrap().0;
            let (running, done) = (400u32, 40u32);
            e.ingest(0, Event::JobCreated { maps: running + done, reduces: 0 });
            for i in 0..running + done {
                e.ingest(0, Event::AttemptStarted { attempt: TaskId::map(i).attempt(0), node: Some(format!("n{}:1", i % 50)), rack: None });
            }
            for i in running..running + done {
                e.ingest(20_000, Event::AttemptFinished { attempt: TaskId::map(i).attempt(0), outcome: Outcome::Succeeded });
            }
            for (at, step) in [(10_000, 1.0), (30_000, 2.0)] {
                for i in 0..running {
                    let progress = step * (0.01 + i as f64 * 1e-4);
                    e.ingest(at, Event::AttemptStatus { attempt: TaskId::map(i).attempt(0), progress, phase: Phase::Map });
                }
            }
            let copies: u32 = e.decide(40_000).iter().map(Action::new_copies).sum();
            for i in 0..running {
                let (task, at) = (TaskId::map(i), 50_000 + i as i64 * 10);
                match i % 4 {
                    0 => {
                        e.ingest(at, Event::AttemptStarted { attempt: task.attempt(1), node: Some("n99:1".into()), rack: None });
                        e.ingest(at + 5_000, Event::AttemptFinished { attempt: task.attempt(1), outcome: Outcome::Succeeded });
                        e.ingest(at + 5_100, Event::AttemptFinished { attempt: task.attempt(0), outcome: Outcome::Killed });
                    }
                    1 => {
                        e.ingest(at, Event::AttemptStarted { attempt: task.attempt(1), node: Some("n98:1".into()), rack: None });
                        e.ingest(at + 9_000, Event::AttemptFinished { attempt: task.attempt(0), outcome: Outcome::Succeeded });
                        e.ingest(at + 9_100, Event::AttemptFinished { attempt: task.attempt(1), outcome: Outcome::Killed });
                    }
                    2 => {
                        e.ingest(at, Event::CopyDropped { task });
                        e.ingest(at + 7_000, Event::AttemptFinished { attempt: task.attempt(0), outcome: Outcome::Succeeded });
                    }
                    _ => e.ingest(at + 3_000, Event::AttemptFinished { attempt: task.attempt(0), outcome: Outcome::Succeeded }),
                }
            }
            (copies, e.roi(), e.summary_record(200_000))
        };
        let (copies, roi, summary) = run("1073741824");
        assert!(copies >= 400, "{policy} copies every running task: {copies}");
        assert!(roi.copies_won > 0 && roi.saved_ms > 0, "{policy}: {roi:?}");
        assert_eq!(run("4096"), (copies, roi, summary), "{policy}: the same past the bound");
    }
}
