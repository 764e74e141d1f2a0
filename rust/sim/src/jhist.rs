//! Hadoop MapReduce job-history files (`.jhist`, written by the ApplicationMaster) and a replay
//! workload derived from them.
//!
//! The file is the line `Avro-Binary`, the Avro schema of `org.apache.hadoop.mapreduce.jobhistory.Event`
//! as one JSON line, then bare Avro binary datums of that schema back to back (no container, no sync
//! markers), each a record `{type: EventType, event: union of event records}`.
//!
//! The replay workload ([`scenario`]) keeps what the history shows and models nothing else:
//! - one job per file, arriving at its `submitTime` (relative to the earliest file); AM start-up
//!   is not modelled, so replayed job times start at the first map's request;
//! - the cluster is the NodeManagers seen (`host:port`), each with its rack, as many slots as it
//!   ran attempts at once in the histories, and a slowdown: the median, over its successful
//!   attempts, of the attempt's duration over the median successful duration of its job's tasks of
//!   the same type (groups of fewer than 3 are skipped: a ratio to one's own median says nothing),
//!   divided by the median node's value and floored at 1; a node with no such attempt uses its
//!   killed or failed attempts' ratios (lower bounds) and else counts as nominal;
//! - a reduce attempt's duration counts only from the last map's end (the simulator has the
//!   barrier without slow-start, so earlier time was mostly spent waiting for maps);
//! - each task's nominal work is its fastest successful attempt's duration divided by the
//!   slowdown of the node that ran it (so a straggler is not replayed twice: once in its work,
//!   once in its node), or the longest other attempt's when none succeeded; its input bytes are
//!   the successful attempt's `BYTES_READ` (maps) or `REDUCE_SHUFFLE_BYTES` (reduces);
//! - attempts draw no noise: slowness comes only from the node an attempt lands on, as in the
//!   observed run, so the seed only changes placement;
//! - the simulator's usual map/reduce barrier (no slow-start) and FIFO across jobs.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::Path;

use apache_avro::types::Value;
use apache_avro::Schema;
use rein_core::Millis;

use crate::cluster::Cluster;
use crate::scenario::{PolicySpec, Scenario, Scheduler};
use crate::workload::{AttemptModel, JobSpec, TaskSpec};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskType {
    Map,
    Reduce,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptOutcome {
    Succeeded,
    Failed,
    Killed,
    /// Started, but the history ends before the attempt does.
    Unfinished,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AttemptRecord {
    pub id: String,
    /// `host:port` of the NodeManager (the port tells apart NodeManagers sharing a host).
    pub node: Option<String>,
    pub rack: Option<String>,
    pub start_ms: Option<i64>,
    pub finish_ms: Option<i64>,
    pub outcome: AttemptOutcome,
}

impl AttemptRecord {
    pub fn duration_ms(&self) -> Option<i64> {
        Some(self.finish_ms? - self.start_ms?).filter(|d| *d >= 0)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TaskRecord {
    pub id: String,
    pub kind: TaskType,
    pub start_ms: Option<i64>,
    /// Bytes read: a map's input split, a reduce's shuffle (from the successful attempt's counters).
    pub input_bytes: Option<u64>,
    pub attempts: Vec<AttemptRecord>,
}

impl TaskRecord {
    pub fn successful(&self) -> impl Iterator<Item = &AttemptRecord> {
        self.attempts.iter().filter(|a| a.outcome == AttemptOutcome::Succeeded)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct JobHistory {
    pub job_id: String,
    pub name: String,
    pub submit_ms: i64,
    pub finish_ms: Option<i64>,
    /// SUCCEEDED, FAILED or KILLED; None if the history ends before the job does.
    pub status: Option<String>,
    /// Maps first, then reduces, each in task-id order.
    pub tasks: Vec<TaskRecord>,
}

impl JobHistory {
    pub fn maps(&self) -> impl Iterator<Item = &TaskRecord> {
        self.tasks.iter().filter(|t| t.kind == TaskType::Map)
    }

    pub fn reduces(&self) -> impl Iterator<Item = &TaskRecord> {
        self.tasks.iter().filter(|t| t.kind == TaskType::Reduce)
    }

    /// When the last map succeeded.
    pub fn maps_done_ms(&self) -> Option<i64> {
        self.maps().flat_map(|t| t.successful()).filter_map(|a| a.finish_ms).max()
    }

    /// The part of an attempt the replay runs: all of a map; a reduce only from the last map's
    /// end, since with slow-start a reduce's earlier life is mostly waiting for maps, and the
    /// simulator starts reduces at the barrier.
    pub fn busy_ms(&self, kind: TaskType, a: &AttemptRecord) -> Option<i64> {
        let start = match (kind, self.maps_done_ms()) {
            (TaskType::Reduce, Some(done)) => a.start_ms?.max(done),
            _ => a.start_ms?,
        };
        Some(a.finish_ms? - start).filter(|d| *d >= 0)
    }
}

pub fn read(path: &Path) -> Result<JobHistory, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The next line of `bytes` from `*pos`, without its newline.
fn line<'b>(bytes: &'b [u8], pos: &mut usize) -> Option<&'b [u8]> {
    let rest = &bytes[*pos..];
    let end = rest.iter().position(|&b| b == b'\n')?;
    *pos += end + 1;
    Some(&rest[..end])
}

fn field<'v>(fields: &'v [(String, Value)], name: &str) -> Option<&'v Value> {
    let v = &fields.iter().find(|(n, _)| n == name)?.1;
    Some(match v {
        Value::Union(_, inner) => inner,
        v => v,
    })
}

fn string(fields: &[(String, Value)], name: &str) -> Option<String> {
    match field(fields, name)? {
        Value::String(s) => Some(s.clone()),
        Value::Enum(_, s) => Some(s.clone()),
        _ => None,
    }
}

fn long(fields: &[(String, Value)], name: &str) -> Option<i64> {
    match field(fields, name)? {
        Value::Long(x) => Some(*x),
        Value::Int(x) => Some(*x as i64),
        _ => None,
    }
}

/// A counter's value from a `JhCounters` record, by counter name within the named group.
fn counter(fields: &[(String, Value)], group: &str, name: &str) -> Option<u64> {
    let Some(Value::Record(c)) = field(fields, "counters") else { return None };
    let Some(Value::Array(groups)) = field(c, "groups") else { return None };
    groups.iter().find_map(|g| {
        let Value::Record(g) = g else { return None };
        if string(g, "name")? != group {
            return None;
        }
        let Some(Value::Array(counts)) = field(g, "counts") else { return None };
        counts.iter().find_map(|c| match c {
            Value::Record(c) if string(c, "name").as_deref() == Some(name) => long(c, "value").map(|v| v.max(0) as u64),
            _ => None,
        })
    })
}

const TASK_COUNTERS: &str = "org.apache.hadoop.mapreduce.TaskCounter";
const INPUT_COUNTERS: &str = "org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter";
const FS_COUNTERS: &str = "org.apache.hadoop.mapreduce.FileSystemCounter";

#[derive(Default)]
struct Builder {
    job_id: String,
    name: String,
    submit_ms: Option<i64>,
    finish_ms: Option<i64>,
    status: Option<String>,
    tasks: BTreeMap<String, TaskRecord>,
}

impl Builder {
    fn task(&mut self, id: &str, kind: Option<TaskType>) -> Option<&mut TaskRecord> {
        if !self.tasks.contains_key(id) {
            let kind = kind?;
            let t = TaskRecord { id: id.to_owned(), kind, start_ms: None, input_bytes: None, attempts: Vec::new() };
            self.tasks.insert(id.to_owned(), t);
        }
        self.tasks.get_mut(id)
    }

    fn attempt(&mut self, f: &[(String, Value)], kind: TaskType) -> Option<&mut AttemptRecord> {
        let attempt = string(f, "attemptId")?;
        // The attempt id is `attempt_<job>_<m|r>_<task>_<n>`; the task id is `task_<job>_<m|r>_<task>`.
        let task = string(f, "taskid").or_else(|| {
            let rest = attempt.strip_prefix("attempt_")?;
            Some(format!("task_{}", &rest[..rest.rfind('_')?]))
        })?;
        let t = self.task(&task, Some(kind))?;
        let i = match t.attempts.iter().position(|a| a.id == attempt) {
            Some(i) => i,
            None => {
                t.attempts.push(AttemptRecord {
                    id: attempt,
                    node: None,
                    rack: None,
                    start_ms: None,
                    finish_ms: None,
                    outcome: AttemptOutcome::Unfinished,
                });
                t.attempts.len() - 1
            }
        };
        Some(&mut t.attempts[i])
    }

    /// Where an attempt ended: `hostname:port` and the rack, when the event has them.
    fn place(a: &mut AttemptRecord, f: &[(String, Value)]) {
        let port = long(f, "port").filter(|p| *p > 0);
        if let (Some(host), Some(port)) = (string(f, "hostname").filter(|h| !h.is_empty()), port) {
            a.node = Some(format!("{host}:{port}"));
        }
        if let Some(rack) = string(f, "rackname").filter(|r| !r.is_empty()) {
            a.rack = Some(rack);
        }
    }

    fn event(&mut self, kind: &str, f: &[(String, Value)]) {
        let task_type = if kind.starts_with("MAP_") {
            Some(TaskType::Map)
        } else if kind.starts_with("REDUCE_") {
            Some(TaskType::Reduce)
        } else {
            None
        };
        match kind {
            "JOB_SUBMITTED" => {
                self.job_id = string(f, "jobid").unwrap_or_default();
                self.name = string(f, "jobName").unwrap_or_default();
                self.submit_ms = long(f, "submitTime");
            }
            "JOB_FINISHED" => {
                self.finish_ms = long(f, "finishTime");
                self.status = Some("SUCCEEDED".into());
            }
            "JOB_FAILED" | "JOB_KILLED" => {
                self.finish_ms = long(f, "finishTime");
                self.status = string(f, "jobStatus").or_else(|| Some(kind.trim_start_matches("JOB_").into()));
            }
            "TASK_STARTED" => {
                let tt = match string(f, "taskType").as_deref() {
                    Some("MAP") => Some(TaskType::Map),
                    Some("REDUCE") => Some(TaskType::Reduce),
                    _ => None, // setup and cleanup tasks are not part of the workload
                };
                if let (Some(id), Some(tt)) = (string(f, "taskid"), tt) {
                    if let Some(t) = self.task(&id, Some(tt)) {
                        t.start_ms = long(f, "startTime");
                    }
                }
            }
            "MAP_ATTEMPT_STARTED" | "REDUCE_ATTEMPT_STARTED" => {
                if let Some(a) = self.attempt(f, task_type.unwrap()) {
                    // `trackerName` is the bare host, which NodeManagers on one machine share;
                    // the node is taken from the end event's `hostname:port` instead.
                    a.start_ms = long(f, "startTime");
                }
            }
            "MAP_ATTEMPT_FINISHED" | "REDUCE_ATTEMPT_FINISHED" => {
                let tt = task_type.unwrap();
                let bytes = match tt {
                    TaskType::Map => counter(f, INPUT_COUNTERS, "BYTES_READ").or_else(|| counter(f, FS_COUNTERS, "HDFS_BYTES_READ")),
                    TaskType::Reduce => counter(f, TASK_COUNTERS, "REDUCE_SHUFFLE_BYTES"),
                };
                if let Some(a) = self.attempt(f, tt) {
                    a.finish_ms = long(f, "finishTime");
                    a.outcome = AttemptOutcome::Succeeded;
                    Self::place(a, f);
                }
                if let (Some(b), Some(id)) = (bytes, string(f, "taskid")) {
                    if let Some(t) = self.task(&id, None) {
                        t.input_bytes = Some(b);
                    }
                }
            }
            "MAP_ATTEMPT_FAILED" | "MAP_ATTEMPT_KILLED" | "REDUCE_ATTEMPT_FAILED" | "REDUCE_ATTEMPT_KILLED" => {
                if let Some(a) = self.attempt(f, task_type.unwrap()) {
                    a.finish_ms = long(f, "finishTime");
                    a.outcome = match string(f, "status").as_deref() {
                        Some("FAILED") => AttemptOutcome::Failed,
                        Some("KILLED") => AttemptOutcome::Killed,
                        _ if kind.ends_with("FAILED") => AttemptOutcome::Failed,
                        _ => AttemptOutcome::Killed,
                    };
                    Self::place(a, f);
                }
            }
            _ => {}
        }
    }
}

/// Parses a whole `.jhist` file.
pub fn parse(bytes: &[u8]) -> Result<JobHistory, String> {
    let mut pos = 0;
    let magic = line(bytes, &mut pos).ok_or("not a job history: no header line")?;
    if magic.trim_ascii() != b"Avro-Binary" {
        let head: String = String::from_utf8_lossy(magic).chars().take(40).collect();
        return Err(format!("not an Avro-Binary job history (first line '{head}')"));
    }
    let schema = line(bytes, &mut pos).ok_or("no schema line")?;
    let schema = std::str::from_utf8(schema).map_err(|e| format!("schema line: {e}"))?;
    let schema = Schema::parse_str(schema).map_err(|e| format!("schema: {e}"))?;
    let mut reader = Cursor::new(&bytes[pos..]);
    let mut b = Builder::default();
    let mut events = 0usize;
    while (reader.position() as usize) < bytes.len() - pos {
        let at = pos + reader.position() as usize;
        let datum = apache_avro::from_avro_datum(&schema, &mut reader, None)
            .map_err(|e| format!("event {} at byte {at}: {e}", events + 1))?;
        events += 1;
        let Value::Record(fields) = datum else { return Err(format!("event {events}: not a record")) };
        let (Some(kind), Some(Value::Record(f))) = (string(&fields, "type"), field(&fields, "event")) else {
            return Err(format!("event {events}: no type or event"));
        };
        b.event(&kind, f);
    }
    let submit_ms = b.submit_ms.ok_or("no JOB_SUBMITTED event")?;
    let mut tasks: Vec<TaskRecord> = b.tasks.into_values().collect();
    // Stable: task ids sort by index within a type already.
    tasks.sort_by_key(|t| t.kind == TaskType::Reduce);
    Ok(JobHistory { job_id: b.job_id, name: b.name, submit_ms, finish_ms: b.finish_ms, status: b.status, tasks })
}

/// A NodeManager as the histories show it.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeProfile {
    /// `host:port`.
    pub name: String,
    pub rack: String,
    /// Most attempts it ran at once.
    pub slots: u32,
    /// How many times slower than the median node it ran its attempts (≥ 1).
    pub slowdown: f64,
}

fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// Every node the histories name, sorted by name, with its slots and slowdown.
pub fn nodes(histories: &[JobHistory]) -> Vec<NodeProfile> {
    // (successful ratios, unsuccessful ratios, rack, intervals)
    type Seen = (Vec<f64>, Vec<f64>, Option<String>, Vec<(i64, i64)>);
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    for h in histories {
        for kind in [TaskType::Map, TaskType::Reduce] {
            let tasks = || h.tasks.iter().filter(move |t| t.kind == kind);
            let busy = |a: &AttemptRecord| h.busy_ms(kind, a).map(|d| d as f64);
            let mut ok: Vec<f64> = tasks().flat_map(|t| t.successful()).filter_map(busy).collect();
            let usable = ok.len() >= 3;
            let typical = median(&mut ok).filter(|m| *m > 0.0);
            for a in tasks().flat_map(|t| &t.attempts) {
                let Some(node) = &a.node else { continue };
                let e = seen.entry(node.clone()).or_default();
                if e.2.is_none() {
                    e.2 = a.rack.clone();
                }
                if let (Some(s), Some(f)) = (a.start_ms, a.finish_ms) {
                    e.3.push((s, f));
                }
                if let (Some(d), Some(m), true) = (busy(a), typical, usable) {
                    match a.outcome {
                        AttemptOutcome::Succeeded => e.0.push(d / m),
                        AttemptOutcome::Failed | AttemptOutcome::Killed => e.1.push(d / m),
                        AttemptOutcome::Unfinished => {}
                    }
                }
            }
        }
    }
    let mut raw: Vec<(String, Seen, Option<f64>)> = seen
        .into_iter()
        .map(|(name, mut s)| {
            let r = median(&mut s.0).or_else(|| median(&mut s.1));
            (name, s, r)
        })
        .collect();
    let mut known: Vec<f64> = raw.iter().filter_map(|r| r.2).collect();
    let reference = median(&mut known).filter(|m| *m > 0.0).unwrap_or(1.0);
    raw.iter_mut()
        .map(|(name, s, r)| {
            // Most attempts running at once: sweep the starts (+1) and ends (−1), ends first.
            let mut edges: Vec<(i64, i32)> = s.3.iter().flat_map(|&(a, b)| [(a, 1), (b, -1)]).collect();
            edges.sort();
            let (mut now, mut most) = (0, 0);
            for (_, d) in edges {
                now += d;
                most = most.max(now);
            }
            NodeProfile {
                name: std::mem::take(name),
                rack: s.2.take().unwrap_or_else(|| "/default-rack".into()),
                slots: most.max(1) as u32,
                slowdown: r.map_or(1.0, |r| (r / reference).max(1.0)),
            }
        })
        .collect()
}

/// The job as the simulator replays it, given the nodes' slowdowns.
pub fn job_spec(h: &JobHistory, nodes: &[NodeProfile], epoch_ms: i64) -> JobSpec {
    let slowdown = |a: &AttemptRecord| {
        a.node.as_ref().and_then(|n| nodes.iter().find(|p| &p.name == n)).map_or(1.0, |p| p.slowdown)
    };
    let work = |t: &TaskRecord| -> Option<f64> {
        let norm = |a: &AttemptRecord| h.busy_ms(t.kind, a).map(|d| d as f64 / slowdown(a));
        let fastest = t.successful().filter_map(norm).min_by(f64::total_cmp);
        fastest.or_else(|| t.attempts.iter().filter_map(norm).max_by(f64::total_cmp))
    };
    let specs = |kind: TaskType| -> Vec<TaskSpec> {
        let tasks: Vec<&TaskRecord> = h.tasks.iter().filter(|t| t.kind == kind).collect();
        let mut known: Vec<f64> = tasks.iter().filter_map(|t| work(t)).collect();
        // A task with no timed attempt at all (a truncated history) works like its siblings.
        let fallback = median(&mut known).unwrap_or(10_000.0);
        tasks
            .iter()
            .map(|t| TaskSpec { work_ms: work(t).unwrap_or(fallback).max(1.0), input_bytes: t.input_bytes.unwrap_or(0) })
            .collect()
    };
    JobSpec { submit_ms: (h.submit_ms - epoch_ms) as Millis, maps: specs(TaskType::Map), reduces: specs(TaskType::Reduce) }
}

/// A replay scenario of the histories. With `machines`, the cluster has that many nodes, node `i`
/// a copy of observed node `i mod n` (so a larger cluster keeps the observed share of slow nodes).
pub fn scenario(name: &str, histories: &[JobHistory], machines: Option<usize>, policies: Vec<PolicySpec>) -> Scenario {
    let observed = nodes(histories);
    let count = machines.unwrap_or(observed.len()).max(1);
    let profile = |i: usize| {
        observed.get(i % observed.len().max(1)).cloned().unwrap_or(NodeProfile {
            name: String::new(),
            rack: "/default-rack".into(),
            slots: 2,
            slowdown: 1.0,
        })
    };
    let mut racks: Vec<String> = (0..count).map(|i| profile(i).rack).collect();
    racks.sort();
    racks.dedup();
    let mut cluster = Cluster::uniform(count, 1, 1);
    cluster.racks = racks.len() as u32;
    for (i, n) in cluster.nodes.iter_mut().enumerate() {
        let p = profile(i);
        n.rack = racks.binary_search(&p.rack).unwrap_or(0) as u32;
        n.slots = p.slots;
        n.speed = 1.0 / p.slowdown;
    }
    let epoch = histories.iter().map(|h| h.submit_ms).min().unwrap_or(0);
    let jobs: Vec<JobSpec> = histories.iter().map(|h| job_spec(h, &observed, epoch)).collect();
    let slow: Vec<String> =
        observed.iter().filter(|p| p.slowdown >= 1.5).map(|p| format!("{} {:.1}×", p.name, p.slowdown)).collect();
    let seen: Vec<String> = histories
        .iter()
        .map(|h| match h.finish_ms {
            Some(f) => format!("{} {:.1} s", h.job_id, (f - h.submit_ms) as f64 / 1000.0),
            None => format!("{} unfinished", h.job_id),
        })
        .collect();
    Scenario {
        name: name.to_owned(),
        description: format!(
            "Replay of {} job histor{} ({}) on {count} node(s), {} slots; slow nodes: {} (workload model in jhist.rs)",
            histories.len(),
            if histories.len() == 1 { "y" } else { "ies" },
            seen.join(", "),
            cluster.total_slots(),
            if slow.is_empty() { "none".to_owned() } else { slow.join(", ") },
        ),
        paper: String::new(),
        cluster,
        jobs,
        model: AttemptModel::default(),
        policies,
        report_ms: 10_000,
        net: None,
        copy_phase: 1.0 / 3.0,
        scheduler: Scheduler::Fifo,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(node: &str, start: i64, dur: i64, outcome: AttemptOutcome) -> AttemptRecord {
        AttemptRecord {
            id: String::new(),
            node: Some(node.into()),
            rack: Some("/r".into()),
            start_ms: Some(start),
            finish_ms: Some(start + dur),
            outcome,
        }
    }

    fn map(attempts: Vec<AttemptRecord>) -> TaskRecord {
        TaskRecord { id: String::new(), kind: TaskType::Map, start_ms: None, input_bytes: Some(10), attempts }
    }

    /// Three nodes run 10 s maps; `c` runs them 4× slower. Its slowdown is 4, and its task's work
    /// is its duration divided by 4 unless a copy elsewhere was faster.
    #[test]
    fn a_slow_node_is_found_and_not_counted_twice() {
        use AttemptOutcome::*;
        let h = JobHistory {
            job_id: "j".into(),
            name: String::new(),
            submit_ms: 1000,
            finish_ms: Some(60_000),
            status: Some("SUCCEEDED".into()),
            tasks: vec![
                map(vec![attempt("a:1", 0, 10_000, Succeeded), attempt("a:1", 0, 10_000, Killed)]),
                map(vec![attempt("b:1", 0, 10_000, Succeeded)]),
                map(vec![attempt("c:1", 0, 40_000, Succeeded)]),
                map(vec![attempt("c:1", 0, 30_000, Killed), attempt("a:1", 20_000, 8_000, Succeeded)]),
            ],
        };
        let n = nodes(std::slice::from_ref(&h));
        assert_eq!(n.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["a:1", "b:1", "c:1"]);
        assert_eq!(n.iter().map(|p| p.slots).collect::<Vec<_>>(), [2, 1, 2]);
        let median_ms = 10_000.0; // of 8, 10, 10, 40 s
        assert_eq!(n[0].slowdown, 1.0);
        assert!((n[2].slowdown - 40_000.0 / median_ms).abs() < 1e-9, "{n:?}");
        let j = job_spec(&h, &n, 1000);
        assert_eq!(j.submit_ms, 0);
        assert_eq!(j.maps.iter().map(|t| t.work_ms).collect::<Vec<_>>(), [10_000.0, 10_000.0, 10_000.0, 8_000.0]);
        let sc = scenario("t", &[h], Some(6), vec![]);
        assert_eq!(sc.cluster.nodes.len(), 6);
        assert_eq!(sc.cluster.nodes[5].speed, 0.25);
    }

    #[test]
    fn rejects_what_is_not_a_history() {
        assert!(parse(b"Avro-Json\n{}\n").unwrap_err().contains("Avro-Binary"));
        assert!(parse(b"Avro-Binary\n{\"type\": \"nope\"}\n").unwrap_err().contains("schema"));
    }
}
