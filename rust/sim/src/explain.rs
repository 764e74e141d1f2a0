//! `rein-sim explain`: a job's decision log read beside its history. Prints a timeline of the
//! job's attempts and rein's decisions with their outcomes, the return on investment, and, for a
//! shadow-mode log, what rein would have changed; draws the attempts per node as a Gantt chart.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::jhist::{self, AttemptOutcome, JobHistory};

/// One record of the decision log (`job`, `decision`, `outcome`, `truncated` or `summary`).
pub type Record = serde_json::Map<String, Value>;

pub fn read_log(path: &Path) -> Result<Vec<Record>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_log(&text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn parse_log(text: &str) -> Result<Vec<Record>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| match serde_json::from_str::<Value>(l) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err(format!("line {}: not a JSON object", i + 1)),
            Err(e) => Err(format!("line {}: {e}", i + 1)),
        })
        .collect()
}

fn s<'a>(r: &'a Record, k: &str) -> &'a str {
    r.get(k).and_then(Value::as_str).unwrap_or("")
}

fn n(r: &Record, k: &str) -> Option<f64> {
    r.get(k).and_then(Value::as_f64)
}

/// `m_000003` of a log against `task_…_m_000003` of a history.
fn task_of<'a>(h: &'a JobHistory, log_task: &str) -> Option<&'a jhist::TaskRecord> {
    h.tasks.iter().find(|t| t.id.ends_with(log_task))
}

/// The task's actual end: its successful attempt's finish.
fn task_end(h: &JobHistory, log_task: &str) -> Option<i64> {
    task_of(h, log_task)?.successful().filter_map(|a| a.finish_ms).min()
}

/// The text report: timeline, then summary.
pub fn text(log: &[Record], h: &JobHistory) -> String {
    let t0 = h.submit_ms;
    let secs = |ms: f64| (ms - t0 as f64) / 1000.0;
    let shadow = log.iter().any(|r| s(r, "record") == "job" && s(r, "mode") == "shadow");
    let mut out = String::new();
    let _ = writeln!(out, "job {} ({}), {} tasks{}", h.job_id, h.name, h.tasks.len(), if shadow { ", rein in shadow mode" } else { "" });
    // (time, order, line): history events and log records in one timeline.
    let mut lines: Vec<(f64, u8, String)> = Vec::new();
    for t in &h.tasks {
        for a in &t.attempts {
            let node = a.node.as_deref().unwrap_or("?");
            if let Some(st) = a.start_ms {
                lines.push((secs(st as f64), 0, format!("start    {} on {node}", a.id)));
            }
            // A killed attempt that never ran has no meaningful end (the history writes 0).
            if let Some(f) = a.finish_ms.filter(|f| *f >= h.submit_ms && a.start_ms.is_some()) {
                let how = match a.outcome {
                    AttemptOutcome::Succeeded => "succeeded",
                    AttemptOutcome::Failed => "failed",
                    AttemptOutcome::Killed => "killed",
                    AttemptOutcome::Unfinished => "unfinished",
                };
                lines.push((secs(f as f64), 1, format!("end      {} {how} after {:.1} s", a.id, a.duration_ms().unwrap_or(0) as f64 / 1000.0)));
            }
        }
    }
    let mut would_save = Vec::new();
    for r in log {
        let at = n(r, "at_ms").unwrap_or(t0 as f64);
        match s(r, "record") {
            "decision" => {
                let mut l = format!(
                    "rein #{} {}{} {} attempt {} on {}: {}",
                    r.get("id").map(|v| v.to_string()).unwrap_or_default(),
                    s(r, "action"),
                    if r.get("shadow") == Some(&Value::Bool(true)) { " (shadow)" } else { "" },
                    s(r, "task"),
                    r.get("attempt").map(|v| v.to_string()).unwrap_or_default(),
                    s(r, "node"),
                    s(r, "text"),
                );
                if shadow {
                    // What a copy started now would have changed, by the history's actual end.
                    if let (Some(end), Some(copy_s)) = (task_end(h, s(r, "task")), n(r, "copy_est_s")) {
                        let saved = (end as f64 - (at + copy_s * 1000.0)) / 1000.0;
                        would_save.push((s(r, "task").to_owned(), saved));
                        let _ = write!(l, " | task ended at {:.1} s; a copy started now ends ~{:.1} s: {}",
                            secs(end as f64), secs(at + copy_s * 1000.0),
                            if saved > 0.0 { format!("would save {saved:.1} s") } else { format!("would not help ({saved:.1} s)") });
                    }
                }
                lines.push((secs(at), 2, l));
            }
            "outcome" => {
                let mut l = format!("  -> #{} {} {}: {}", r.get("decision").map(|v| v.to_string()).unwrap_or_default(), s(r, "action"), s(r, "task"), s(r, "result"));
                if let Some(c) = n(r, "container_s") {
                    let _ = write!(l, ", {c:.1} container-s");
                }
                if let Some(x) = n(r, "saved_s") {
                    let _ = write!(l, ", {} {:.1} s", if x >= 0.0 { "saved" } else { "lost" }, x.abs());
                }
                lines.push((secs(at), 3, l));
            }
            "truncated" => lines.push((secs(at), 4, "(the log reached its size bound here)".into())),
            _ => {}
        }
    }
    lines.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (t, _, l) in &lines {
        let _ = writeln!(out, "{t:>8.1} s  {l}");
    }
    out.push('\n');
    out.push_str(&summary(log, h, &would_save));
    out
}

fn summary(log: &[Record], h: &JobHistory, would_save: &[(String, f64)]) -> String {
    let mut out = String::new();
    let job_s = h.finish_ms.map(|f| (f - h.submit_ms) as f64 / 1000.0);
    let _ = writeln!(out, "job time {}", job_s.map_or("unknown".into(), |s| format!("{s:.1} s")));
    match log.iter().rev().find(|r| s(r, "record") == "summary") {
        Some(r) => {
            let get = |k: &str| n(r, k).map_or("-".into(), |x| format!("{x}"));
            let _ = writeln!(out, "actions {}", r.get("actions").map(|v| v.to_string()).unwrap_or_default());
            let _ = writeln!(out, "copies asked {}, launched {}, won {}", get("copies_asked"), get("copies_launched"), get("copies_won"));
            let _ = writeln!(out, "container-seconds on copies and kills {}", get("copy_container_s"));
            if r.get("shadow") == Some(&Value::Bool(true)) {
                let _ = writeln!(out, "estimated job seconds rein would have saved (engine) {}", get("estimated_job_s_rein_would_save"));
            } else {
                let _ = writeln!(out, "estimated job seconds saved {}", get("estimated_job_s_saved"));
                let _ = writeln!(out, "return: job seconds saved per container-second {}", get("saved_per_container_s"));
            }
        }
        None => {
            let _ = writeln!(out, "(no summary record: the AM stopped before writing it)");
        }
    }
    if !would_save.is_empty() {
        // With the history: the job's end had each helped task ended at its copy's estimated end.
        let job_end = h.tasks.iter().flat_map(|t| t.successful()).filter_map(|a| a.finish_ms).max();
        let mut ends: BTreeMap<&str, i64> = BTreeMap::new();
        for t in &h.tasks {
            if let Some(e) = t.successful().filter_map(|a| a.finish_ms).min() {
                ends.insert(&t.id, e);
            }
        }
        for (task, saved) in would_save.iter().filter(|(_, x)| *x > 0.0) {
            if let Some(t) = task_of(h, task) {
                if let Some(e) = ends.get_mut(t.id.as_str()) {
                    *e -= (*saved * 1000.0) as i64;
                }
            }
        }
        let with_rein = ends.values().copied().max();
        if let (Some(actual), Some(with)) = (job_end, with_rein) {
            let _ = writeln!(out, "with the history: rein would have ended the job {:.1} s sooner ({} shadow copies, {} would have helped)",
                (actual - with).max(0) as f64 / 1000.0, would_save.len(), would_save.iter().filter(|(_, x)| *x > 0.0).count());
        }
    }
    out
}

/// The Gantt chart: one row per node, attempts as bars, rein's copies outlined, decisions marked.
pub fn svg(log: &[Record], h: &JobHistory) -> String {
    let nodes = jhist::nodes(std::slice::from_ref(h));
    let mut bars = Vec::new();
    for t in &h.tasks {
        for a in &t.attempts {
            let (Some(st), Some(node)) = (a.start_ms, a.node.as_deref()) else { continue };
            let end = a.finish_ms.or(h.finish_ms).unwrap_or(st);
            let log_task = t.id.rsplit('_').take(2).collect::<Vec<_>>();
            let short = format!("{}_{}", log_task.get(1).copied().unwrap_or(""), log_task.first().copied().unwrap_or(""));
            let n: u32 = a.id.rsplit('_').next().and_then(|x| x.parse().ok()).unwrap_or(0);
            let copy = log.iter().any(|r| s(r, "record") == "outcome" && s(r, "task") == short && r.get("attempt").and_then(Value::as_u64) == Some(n as u64) && s(r, "action") != "veto");
            bars.push(crate::report::GanttBar {
                row: node.to_owned(),
                start_s: (st - h.submit_ms) as f64 / 1000.0,
                end_s: (end - h.submit_ms) as f64 / 1000.0,
                label: a.id.clone(),
                outcome: match a.outcome {
                    AttemptOutcome::Succeeded => 0,
                    AttemptOutcome::Killed => 1,
                    AttemptOutcome::Failed => 2,
                    AttemptOutcome::Unfinished => 3,
                },
                copy,
            });
        }
    }
    let marks: Vec<(f64, String)> = log
        .iter()
        .filter(|r| s(r, "record") == "decision")
        .map(|r| ((n(r, "at_ms").unwrap_or(0.0) - h.submit_ms as f64) / 1000.0, format!("{} {}", s(r, "action"), s(r, "task"))))
        .collect();
    let rows: Vec<(String, f64)> = nodes.iter().map(|p| (p.name.clone(), p.slowdown)).collect();
    crate::report::gantt_svg(&format!("{} ({})", h.job_id, h.name), &rows, &bars, &marks)
}
