//! Decoding and encoding shared by the JNI exports and the C ABI: flat fields in; actions out as
//! typed records (JNI) or text lines (C ABI). Nothing here decides anything; it only translates.

use std::any::Any;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Once;

use rein_core::idmap::IdMap;
use rein_core::{Action, AttemptId, Engine, Event, NodeName, Outcome, Phase, TaskId, TaskKind, MAX_NODE_ID};

/// Bumped whenever a native signature, an event code or the action format changes.
/// 4: the decision log's natives (`records`, `summary`, `roi`).
/// 5: `decide` over JNI returns typed records ([`TypedActions`]) instead of text lines.
/// 6: a copy's reason may be absent (-1): only the first `rein.log.copies-per-scan` copies of a
///    decision carry one (kills always do).
/// 7: `describe` gives the engine's `rein.max-copies-per-scan` on its second line.
/// 8: `EV_NODE_NAMED` names a node once under an id; a start may name its node by that id.
/// 9: `events` takes a batch of events without strings in one call ([`ingest_batch`]).
pub const ABI_VERSION: u32 = 9;

/// Action verbs in a typed record.
pub const VERB_SPECULATE: i32 = 0;
pub const VERB_RESTART: i32 = 1;
pub const VERB_CLONE: i32 = 2;
pub const VERB_VETO: i32 = 3;
pub const VERB_MOVE: i32 = 4;

/// Ints in a typed action record: verb, task kind (0 map, 1 reduce), task index, attempt (-1 when
/// the verb names none), copies, reason (string; -1 for a copy past the decision's first
/// `rein.log.copies-per-scan`), prefer-rack (string or -1), the task's own
/// node to avoid (string or -1; for a veto, the node to keep the job's containers off,
/// `rein.veto.block-node`), and the shared avoid list as offset (into the ints, or -1) and
/// length.
pub const ACTION_STRIDE: usize = 10;
/// Ints before the first record: the ABI version, the record count and [`ACTION_STRIDE`].
pub const ACTION_HEADER: usize = 3;

// Event kinds, and what each reads of an event's fields besides its kind (`RawEvent::decode`).
// "The task" is `task_kind` (0 map, 1 reduce) and `task_index`; "the attempt" is the task and
// `attempt`.
/// `value` maps, `value2` reduces.
pub const EV_JOB_CREATED: i32 = 1;
/// The task; `value` its input bytes.
pub const EV_TASK_INPUT: i32 = 2;
/// The task; `value` the change in the containers it waits for (Hadoop's TASK_CONTAINER_NEED_UPDATE).
pub const EV_CONTAINER_NEED: i32 = 3;
/// The attempt; its node as `node` (`host:port`) and `rack`, or by id: `value` the id given by
/// [`EV_NODE_NAMED`] plus one, `node` null. Neither: a node not known yet.
pub const EV_ATTEMPT_STARTED: i32 = 4;
/// The attempt; `progress` in [0, 1], `value` its phase (`phase`).
pub const EV_ATTEMPT_STATUS: i32 = 5;
/// The attempt; `value` 0 succeeded, 1 failed, 2 killed.
pub const EV_ATTEMPT_FINISHED: i32 = 6;
/// `value` the job's total slots, `value2` its free slots (negative: not known).
pub const EV_CAPACITY: i32 = 7;
/// `node`, the node lost.
pub const EV_NODE_LOST: i32 = 8;
/// The task: a copy asked for and not carried out.
pub const EV_COPY_DROPPED: i32 = 9;
/// The task; `value` its output bytes.
pub const EV_TASK_OUTPUT: i32 = 10;
/// The attempt: a kill asked for and not carried out.
pub const EV_KILL_DROPPED: i32 = 11;
/// A node's name (`node`) and rack (`rack`, or none) for the caller's id of it (`value`, 0 up to
/// [`MAX_NODE_ID`]), told once and again only if they change (ABI 8; `Event::NodeNamed`). A start
/// then names its node by that id plus one in `value`, its `node` and `rack` left null: no
/// strings cross for it. Across JNI, two strings made a start cost about 1.4 µs more than one
/// without.
pub const EV_NODE_NAMED: i32 = 12;

/// An event as flat fields, the shape both the JNI and the C callers send.
pub struct RawEvent<'a> {
    pub kind: i32,
    pub task_kind: i32,
    pub task_index: i32,
    pub attempt: i32,
    pub progress: f64,
    pub value: i64,
    pub value2: i64,
    /// Owned when the caller had to make the string anyway (JNI), borrowed when it did not (C):
    /// `decode` moves an owned one into the event rather than copying it, a start's node and rack
    /// each one allocation and one free fewer.
    pub node: Option<Cow<'a, str>>,
    pub rack: Option<Cow<'a, str>>,
}

impl RawEvent<'_> {
    fn task(&self) -> Result<TaskId, String> {
        let kind = match self.task_kind {
            0 => TaskKind::Map,
            1 => TaskKind::Reduce,
            k => return Err(format!("task kind {k} is neither 0 (map) nor 1 (reduce)")),
        };
        let index = u32::try_from(self.task_index).map_err(|_| format!("task index {} < 0", self.task_index))?;
        Ok(TaskId { kind, index })
    }

    fn attempt(&self) -> Result<AttemptId, String> {
        let n = u32::try_from(self.attempt).map_err(|_| format!("attempt number {} < 0", self.attempt))?;
        Ok(self.task()?.attempt(n))
    }

    fn count(v: i64, what: &str) -> Result<u32, String> {
        u32::try_from(v).map_err(|_| format!("{what} {v} is out of range"))
    }

    /// A node id as `EV_NODE_NAMED` gives it and a start names it (less one).
    fn node_id(id: i64) -> Result<u32, String> {
        u32::try_from(id).ok().filter(|&id| id <= MAX_NODE_ID).ok_or_else(|| format!("node id {id} is out of range [0, {MAX_NODE_ID}]"))
    }

    pub fn decode(self) -> Result<Event, String> {
        Ok(match self.kind {
            EV_JOB_CREATED => Event::JobCreated {
                maps: Self::count(self.value, "map count")?,
                reduces: Self::count(self.value2, "reduce count")?,
            },
            EV_TASK_INPUT => Event::TaskInput {
                task: self.task()?,
                bytes: u64::try_from(self.value).map_err(|_| format!("input bytes {} < 0", self.value))?,
            },
            EV_CONTAINER_NEED => Event::ContainerNeed {
                task: self.task()?,
                delta: i32::try_from(self.value).map_err(|_| format!("container delta {}", self.value))?,
            },
            EV_ATTEMPT_STARTED if self.node.is_none() && self.value > 0 => {
                Event::AttemptStartedOn { attempt: self.attempt()?, node: Self::node_id(self.value - 1)? }
            }
            EV_ATTEMPT_STARTED => Event::AttemptStarted {
                attempt: self.attempt()?,
                node: self.node.map(Cow::into_owned),
                rack: self.rack.map(Cow::into_owned),
            },
            EV_NODE_NAMED => Event::NodeNamed {
                id: Self::node_id(self.value)?,
                node: self.node.ok_or("a node named without a name")?.into_owned(),
                rack: self.rack.map(Cow::into_owned),
            },
            EV_ATTEMPT_STATUS => Event::AttemptStatus {
                attempt: self.attempt()?,
                progress: self.progress,
                phase: phase(self.value),
            },
            EV_ATTEMPT_FINISHED => Event::AttemptFinished {
                attempt: self.attempt()?,
                outcome: match self.value {
                    0 => Outcome::Succeeded,
                    1 => Outcome::Failed,
                    2 => Outcome::Killed,
                    v => return Err(format!("outcome {v} is not 0, 1 or 2")),
                },
            },
            EV_CAPACITY => Event::Capacity {
                total_slots: Self::count(self.value, "total slots")?,
                free_slots: if self.value2 < 0 { None } else { Some(Self::count(self.value2, "free slots")?) },
            },
            EV_NODE_LOST => Event::NodeLost {
                node: self.node.ok_or("node lost without a node name")?.into_owned(),
            },
            EV_COPY_DROPPED => Event::CopyDropped { task: self.task()? },
            EV_KILL_DROPPED => Event::KillDropped { attempt: self.attempt()? },
            EV_TASK_OUTPUT => Event::TaskOutput {
                task: self.task()?,
                bytes: u64::try_from(self.value).map_err(|_| format!("output bytes {} < 0", self.value))?,
            },
            k => return Err(format!("unknown event kind {k}")),
        })
    }
}

/// Hands a decoded event to the engine, refusing a start that names its node by an id the caller
/// never named: a caller's mistake, which the engine would take as a node not known yet.
pub fn ingest(engine: &mut Engine, now: i64, event: Event) -> Result<(), String> {
    engine.ingest(now, checked(engine, event)?);
    Ok(())
}

/// The event, unless it is a start naming its node by an id never named.
fn checked(engine: &Engine, event: Event) -> Result<Event, String> {
    match event {
        Event::AttemptStartedOn { node, .. } if engine.job().named_node(node).is_none() => {
            Err(format!("node id {node} was never named (event {EV_NODE_NAMED})"))
        }
        event => Ok(event),
    }
}

/// Ints per event in a batch ([`ingest_batch`]): kind, task kind, task index, attempt.
pub const BATCH_INTS: usize = 4;
/// Longs per event in a batch: its time, `value`, `value2`.
pub const BATCH_LONGS: usize = 3;

/// Hands the engine a batch of events that carry no strings, in order, as the JNI `events` call
/// passes them (ABI 9): per event [`BATCH_INTS`] ints, [`BATCH_LONGS`] longs and its progress.
/// One crossing for many events: an ApplicationMaster's dispatcher queues a big job's progress
/// reports (33K a second at 100K running tasks) and the call's own cost was most of each one's.
/// An event that names a node or a rack by string (a lost node, a node named, a start by name)
/// is sent alone. At the first event that cannot be read the batch stops, with an error naming
/// the event; those before it were taken. The events are read first, then handed to the engine
/// together (`Engine::ingest_all`, which asks for each one's task records ahead of its turn); no
/// event in a batch names a node, so each start's node id is checked against the same names
/// either way.
pub fn ingest_batch(engine: &mut Engine, ints: &[i32], longs: &[i64], progress: &[f64]) -> Result<(), String> {
    let n = progress.len();
    if ints.len() != n * BATCH_INTS || longs.len() != n * BATCH_LONGS {
        return Err(format!(
            "a batch of {n} events needs {} ints and {} longs, not {} and {}",
            n * BATCH_INTS,
            n * BATCH_LONGS,
            ints.len(),
            longs.len()
        ));
    }
    let events = ints.chunks_exact(BATCH_INTS).zip(longs.chunks_exact(BATCH_LONGS)).zip(progress);
    let (mut read_ok, mut refused) = (Vec::with_capacity(n), None);
    for (i, ((h, l), &progress)) in events.enumerate() {
        let raw = RawEvent {
            kind: h[0],
            task_kind: h[1],
            task_index: h[2],
            attempt: h[3],
            progress,
            value: l[1],
            value2: l[2],
            node: None,
            rack: None,
        };
        let read = match raw.kind {
            EV_NODE_LOST | EV_NODE_NAMED => Err(format!("event kind {} names a node by string: send it alone", raw.kind)),
            _ => raw.decode(),
        };
        match read.and_then(|event| checked(engine, event)) {
            Ok(event) => read_ok.push((l[0], event)),
            Err(e) => {
                refused = Some(format!("event {} of a batch of {n}: {e}", i + 1));
                break;
            }
        }
    }
    engine.ingest_all(&mut read_ok);
    refused.map_or(Ok(()), Err)
}

/// Phase codes follow the order of Hadoop's `Phase` enum. A code this library does not know (a
/// newer Hadoop's phase) reads as STARTING, the phase that claims least about an attempt,
/// rather than failing the engine.
fn phase(code: i64) -> Phase {
    match code {
        1 => Phase::Map,
        2 => Phase::Shuffle,
        3 => Phase::Sort,
        4 => Phase::Reduce,
        5 => Phase::Cleanup,
        _ => Phase::Starting,
    }
}

/// Splits `key=value` lines (the C ABI's config form); blank lines and `#` comments are skipped.
pub fn config_lines(text: &str) -> Result<Vec<(&str, &str)>, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_once('=').map(|(k, v)| (k.trim(), v)).ok_or_else(|| format!("config line '{l}' has no '='")))
        .collect()
}

/// One action a line, fields separated by tabs:
/// `VERB  kind  index  attempt  copies  avoid-nodes(comma-separated)  prefer-rack  reason`; a
/// veto's avoid field names the node to block for the job, if any (`rein.veto.block-node`).
pub fn encode_actions(actions: &[Action]) -> String {
    let mut out = String::new();
    for action in actions {
        let task = action.task();
        let (verb, attempt, copies, avoid, rack) = match action {
            Action::Speculate { avoid_nodes, prefer_rack, .. } => {
                let avoid: Vec<&str> = avoid_nodes.iter().map(|n| &**n).collect();
                ("SPECULATE", -1, 1, avoid.join(","), prefer_rack.as_deref().unwrap_or_default().to_owned())
            }
            Action::Restart { attempt, .. } => ("RESTART", attempt.n as i64, 0, String::new(), String::new()),
            Action::Clone { copies, .. } => ("CLONE", -1, *copies, String::new(), String::new()),
            Action::Veto { attempt, .. } => ("VETO", attempt.n as i64, 0, blocked_node(action).map_or_else(String::new, |n| n.to_string()), String::new()),
            Action::Move { attempt, .. } => ("MOVE", attempt.n as i64, 0, String::new(), String::new()),
        };
        let reason = action.reason().to_string().replace(['\t', '\n', '\r'], " ");
        let _ = writeln!(
            out,
            "{verb}\t{}\t{}\t{attempt}\t{copies}\t{avoid}\t{rack}\t{reason}",
            task.kind.letter(),
            task.index
        );
    }
    out
}

/// Actions as flat typed records, the form `decide` takes across JNI: no text to split or
/// parse. `ints` holds a header ([`ACTION_HEADER`] ints), one record of [`ACTION_STRIDE`] ints per
/// action, then the shared avoid lists (string indices); `strings` holds each distinct string
/// once (node names, racks, reasons). A shared avoid list (LATE's slow nodes, the lost nodes)
/// is written once per decision however many actions name it.
#[derive(Debug, Default, PartialEq)]
pub struct TypedActions {
    pub ints: Vec<i32>,
    pub strings: Vec<String>,
}

/// The node a veto asks to keep the job's containers off (`rein.veto.block-node`), if any.
fn blocked_node(action: &Action) -> Option<&NodeName> {
    match action {
        Action::Veto { reason: rein_core::Reason::Veto { node, block: true, .. }, .. } => Some(node),
        _ => None,
    }
}

/// The decision's actions as [`TypedActions`].
///
/// Only kills and the first `copy_reasons` copies (speculate, clone) carry a reason text: the
/// ApplicationMaster logs those one by one and counts the rest. A decision of 100K copies would
/// otherwise format 100K reasons (most of this function's cost) and make as many Java strings,
/// for log lines nobody reads; the decision log keeps each action's reason and numbers, up to
/// its bound (`rein.decision-log.max-bytes`).
pub fn encode_typed(actions: &[Action], copy_reasons: u32) -> TypedActions {
    let n = actions.len();
    let mut ints = Vec::with_capacity(ACTION_HEADER + n * ACTION_STRIDE);
    ints.extend([ABI_VERSION as i32, n as i32, ACTION_STRIDE as i32]);
    let mut strings: Vec<String> = Vec::new();
    // Each node name's string, by the name's id: a decision maps up to one name per action,
    // and hashing each name's text took most of the encoding's time.
    let mut nodes: IdMap<usize, i32> = IdMap::default();
    let mut node_string = |name: &NodeName, strings: &mut Vec<String>| -> i32 {
        *nodes.entry(name.id()).or_insert_with(|| string_of(name, strings))
    };
    // Shared lists by address: every copy of one decision holds the same list, so the last one
    // found is asked first. The lists follow the records, whose count is known: each list's
    // place in the ints is known when it is first met.
    let area_start = ACTION_HEADER + n * ACTION_STRIDE;
    let mut lists: HashMap<*const NodeName, i32> = HashMap::new();
    let mut last_list: Option<(*const NodeName, i32)> = None;
    let mut list_area: Vec<i32> = Vec::new();
    let mut copy_reasons_left = copy_reasons;
    for action in actions {
        let task = action.task();
        let (verb, attempt, copies) = match action {
            Action::Speculate { .. } => (VERB_SPECULATE, -1, 1),
            Action::Restart { attempt, .. } => (VERB_RESTART, attempt.n as i32, 0),
            Action::Clone { copies, .. } => (VERB_CLONE, -1, *copies as i32),
            Action::Veto { attempt, .. } => (VERB_VETO, attempt.n as i32, 0),
            Action::Move { attempt, .. } => (VERB_MOVE, attempt.n as i32, 0),
        };
        let is_copy = matches!(action, Action::Speculate { .. } | Action::Clone { .. });
        let reason = if !is_copy || copy_reasons_left > 0 {
            copy_reasons_left -= u32::from(is_copy);
            string_of(&action.reason().to_string(), &mut strings)
        } else {
            -1
        };
        let (mut rack, mut own, mut shared_at, mut shared_len) = (-1, -1, -1, 0);
        if let Some(node) = blocked_node(action) {
            own = node_string(node, &mut strings);
        }
        if let Action::Speculate { avoid_nodes, prefer_rack, .. } = action {
            if let Some(r) = prefer_rack {
                rack = node_string(r, &mut strings);
            }
            if let Some(node) = avoid_nodes.own() {
                own = node_string(node, &mut strings);
            }
            let shared = avoid_nodes.shared();
            if !shared.is_empty() {
                let key = shared.as_ptr();
                shared_at = match last_list {
                    Some((last, at)) if last == key => at,
                    _ => {
                        let at = *lists.entry(key).or_insert_with(|| {
                            let at = (area_start + list_area.len()) as i32;
                            for name in shared {
                                list_area.push(node_string(name, &mut strings));
                            }
                            at
                        });
                        last_list = Some((key, at));
                        at
                    }
                };
                shared_len = shared.len() as i32;
            }
        }
        let kind = match task.kind {
            TaskKind::Map => 0,
            TaskKind::Reduce => 1,
        };
        ints.extend_from_slice(&[verb, kind, task.index as i32, attempt, copies, reason, rack, own, shared_at, shared_len]);
    }
    ints.extend_from_slice(&list_area);
    TypedActions { ints, strings }
}

/// Adds a string to the decision's strings; its index.
fn string_of(s: &str, strings: &mut Vec<String>) -> i32 {
    strings.push(s.to_owned());
    strings.len() as i32 - 1
}

/// The decision log's records since the last call, one JSON object a line.
pub fn encode_records(records: &[String]) -> String {
    let mut out = String::new();
    for r in records {
        out.push_str(r);
        out.push('\n');
    }
    out
}

/// Return on investment as one tab-separated line: copies asked, launched, won, container
/// milliseconds of copies and killed attempts, estimated job milliseconds saved.
pub fn encode_roi(roi: &rein_core::Roi) -> String {
    format!("{}\t{}\t{}\t{}\t{}", roi.copies_asked, roi.copies_launched, roi.copies_won, roi.copy_container_ms, roi.saved_ms)
}

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Records where a panic happened (message and location) instead of printing it, so the guard
/// that catches it can hand the whole story to the caller.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
        }));
    });
}

/// The message of a caught panic, with its location when the hook saw it.
pub fn panic_message(payload: Box<dyn Any + Send>) -> String {
    if let Some(recorded) = LAST_PANIC.with(|p| p.borrow_mut().take()) {
        return format!("rein engine panicked: {recorded}");
    }
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    format!("rein engine panicked: {msg}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rein_core::{Reason, VetoCause};

    fn raw(kind: i32) -> RawEvent<'static> {
        RawEvent { kind, task_kind: 0, task_index: 3, attempt: 1, progress: 0.5, value: 1, value2: -1, node: None, rack: None }
    }

    #[test]
    fn decodes_each_event_kind() {
        assert_eq!(raw(EV_ATTEMPT_STATUS).decode().unwrap(), Event::AttemptStatus {
            attempt: TaskId::map(3).attempt(1),
            progress: 0.5,
            phase: Phase::Map,
        });
        assert_eq!(raw(EV_CAPACITY).decode().unwrap(), Event::Capacity { total_slots: 1, free_slots: None });
        assert_eq!(raw(EV_TASK_OUTPUT).decode().unwrap(), Event::TaskOutput { task: TaskId::map(3), bytes: 1 });
        let mut negative = raw(EV_TASK_OUTPUT);
        negative.value = -5;
        assert!(negative.decode().unwrap_err().contains("output bytes -5"));
        assert!(raw(EV_NODE_LOST).decode().is_err());
        assert_eq!(raw(EV_KILL_DROPPED).decode().unwrap(), Event::KillDropped { attempt: TaskId::map(3).attempt(1) });
        let mut unknown_phase = raw(EV_ATTEMPT_STATUS);
        unknown_phase.value = 9;
        assert_eq!(unknown_phase.decode().unwrap(), Event::AttemptStatus {
            attempt: TaskId::map(3).attempt(1),
            progress: 0.5,
            phase: Phase::Starting,
        });
        assert!(raw(42).decode().unwrap_err().contains("unknown event kind 42"));
        let mut bad = raw(EV_ATTEMPT_FINISHED);
        bad.task_kind = 7;
        assert!(bad.decode().unwrap_err().contains("task kind 7"));
        // Names come owned from JNI and borrowed from C; the event holds them either way.
        let mut start = raw(EV_ATTEMPT_STARTED);
        (start.node, start.rack) = (Some(Cow::Owned("h1:8041".to_owned())), Some(Cow::Borrowed("/r1")));
        assert_eq!(start.decode().unwrap(), Event::AttemptStarted {
            attempt: TaskId::map(3).attempt(1),
            node: Some("h1:8041".to_owned()),
            rack: Some("/r1".to_owned()),
        });
        let mut lost = raw(EV_NODE_LOST);
        lost.node = Some(Cow::Borrowed("h2:8041"));
        assert_eq!(lost.decode().unwrap(), Event::NodeLost { node: "h2:8041".to_owned() });
    }

    /// A start names its node by the id the caller gave it, with the name and rack last told for
    /// that id; an id never named, out of range or named without a name is refused with a message.
    #[test]
    fn a_start_names_its_node_by_an_id_told_before() {
        let mut engine = Engine::from_pairs([("rein.policy", "none")]).unwrap().0;
        engine.ingest(0, Event::JobCreated { maps: 8, reduces: 0 });
        let named = |id: i64, node: Option<&'static str>, rack: Option<&'static str>| {
            let mut e = raw(EV_NODE_NAMED);
            (e.value, e.node, e.rack) = (id, node.map(Cow::Borrowed), rack.map(Cow::Borrowed));
            e
        };
        let start = |index: i32, value: i64| {
            let mut e = raw(EV_ATTEMPT_STARTED);
            (e.task_index, e.value) = (index, value);
            e
        };
        // Where the engine placed task `index`'s attempt, and that node's rack.
        let placed = |engine: &Engine, index: u32| {
            let a = engine.job().attempt(TaskId::map(index).attempt(1)).expect("started");
            a.node.map(|n| {
                let node = engine.job().node(n);
                (node.name.as_str().to_owned(), node.rack.clone())
            })
        };
        let mut feed = |e: RawEvent<'static>| ingest(&mut engine, 0, e.decode()?);
        assert_eq!(named(0, Some("h0:1"), Some("/r0")).decode().unwrap(), Event::NodeNamed {
            id: 0,
            node: "h0:1".to_owned(),
            rack: Some("/r0".to_owned()),
        });
        assert_eq!(start(0, 1).decode().unwrap(), Event::AttemptStartedOn { attempt: TaskId::map(0).attempt(1), node: 0 });
        feed(named(0, Some("h0:1"), Some("/r0"))).unwrap();
        feed(named(5, Some("h5:1"), None)).unwrap();
        feed(start(0, 1)).unwrap();
        feed(start(1, 6)).unwrap();
        // Named again: its rack changed.
        feed(named(0, Some("h0:1"), Some("/r9"))).unwrap();
        feed(start(2, 1)).unwrap();
        // No id and no name: a start whose node is not known yet, as before.
        feed(start(3, 0)).unwrap();
        let e1 = feed(start(4, 3)).unwrap_err();
        let e2 = feed(start(4, 99)).unwrap_err();
        let e3 = feed(named(-1, Some("h:1"), None)).unwrap_err();
        let e4 = feed(named(1 << 20, Some("h:1"), None)).unwrap_err();
        let e5 = feed(named(1, None, None)).unwrap_err();
        assert!(e1.contains("node id 2 was never named"), "{e1}");
        assert!(e2.contains("node id 98 was never named"), "{e2}");
        assert!(e3.contains("node id -1 is out of range [0, 1048575]"), "{e3}");
        assert!(e4.contains("out of range"), "{e4}");
        assert!(e5.contains("without a name"), "{e5}");
        assert_eq!(placed(&engine, 0), Some(("h0:1".to_owned(), Some("/r9".to_owned()))), "one node, its rack the last told");
        assert_eq!(placed(&engine, 1), Some(("h5:1".to_owned(), None)));
        assert_eq!(placed(&engine, 2), placed(&engine, 0));
        assert_eq!(placed(&engine, 3), None);
        assert!(engine.job().attempt(TaskId::map(4).attempt(1)).is_none(), "a refused start is not taken");
    }

    /// A batch leaves the engine as the same events sent one by one do; a batch whose arrays
    /// disagree, or with an event it cannot carry, is refused with a message naming the event,
    /// the events before it taken.
    #[test]
    fn a_batch_is_the_same_events_in_one_call() {
        // (time, kind, task, attempt, progress, value, value2)
        let mut events: Vec<(i64, i32, i32, i32, f64, i64, i64)> =
            vec![(0, EV_JOB_CREATED, 0, 0, 0.0, 6, 0), (0, EV_CAPACITY, 0, 0, 0.0, 12, 4)];
        for t in 0..6 {
            events.push((1_000, EV_CONTAINER_NEED, t, 0, 0.0, 1, 0));
            events.push((2_000 + t as i64, EV_ATTEMPT_STARTED, t, 0, 0.0, 0, 0));
            events.push((2_500, EV_CONTAINER_NEED, t, 0, 0.0, -1, 0));
        }
        for (k, at) in [70_000, 80_000, 90_000].into_iter().enumerate() {
            for t in 0..6 {
                // Task 5 is slow.
                let p = (k as f64 + 1.0) * if t == 5 { 0.03 } else { 0.3 };
                events.push((at + t as i64, EV_ATTEMPT_STATUS, t, 0, p, 1, 0));
            }
        }
        for t in 0..3 {
            events.push((95_000, EV_ATTEMPT_FINISHED, t, 0, 0.0, 0, 0));
        }
        let engine = || Engine::from_pairs([("rein.policy", "late")]).unwrap().0;
        let raw_of = |&(_, kind, task_index, attempt, progress, value, value2): &(i64, i32, i32, i32, f64, i64, i64)| {
            RawEvent { kind, task_kind: 0, task_index, attempt, progress, value, value2, node: None, rack: None }
        };
        let mut one_by_one = engine();
        for e in &events {
            ingest(&mut one_by_one, e.0, raw_of(e).decode().unwrap()).unwrap();
        }
        let pack = |events: &[(i64, i32, i32, i32, f64, i64, i64)]| {
            let ints: Vec<i32> = events.iter().flat_map(|e| [e.1, 0, e.2, e.3]).collect();
            let longs: Vec<i64> = events.iter().flat_map(|e| [e.0, e.5, e.6]).collect();
            let progress: Vec<f64> = events.iter().map(|e| e.4).collect();
            (ints, longs, progress)
        };
        let mut batched = engine();
        let (ints, longs, progress) = pack(&events);
        ingest_batch(&mut batched, &ints, &longs, &progress).unwrap();
        for t in 0..6 {
            let a = TaskId::map(t).attempt(0);
            let (x, y) = (one_by_one.job().attempt(a), batched.job().attempt(a));
            assert_eq!(format!("{x:?}"), format!("{y:?}"), "task {t}'s attempt");
            assert!(y.is_some());
        }
        let (x, y) = (one_by_one.decide(100_000), batched.decide(100_000));
        assert!(!y.is_empty(), "the slow task is copied");
        assert_eq!(format!("{x:?}"), format!("{y:?}"), "the same decision (a NaN in it: compared as text)");

        // Refused: arrays that disagree; an event naming a node by string; a bad event, after
        // which nothing more is taken.
        let mut e = engine();
        let err = ingest_batch(&mut e, &ints[..7], &longs, &progress).unwrap_err();
        assert!(err.contains("needs") && err.contains("not 7"), "{err}");
        let lost = pack(&[(0, EV_NODE_LOST, 0, 0, 0.0, 0, 0)]);
        let err = ingest_batch(&mut e, &lost.0, &lost.1, &lost.2).unwrap_err();
        assert!(err.contains("event 1 of a batch of 1: event kind 8 names a node by string"), "{err}");
        let bad = pack(&[
            (0, EV_JOB_CREATED, 0, 0, 0.0, 2, 0),
            (5, EV_ATTEMPT_STARTED, 0, 0, 0.0, 0, 0),
            (6, EV_ATTEMPT_STATUS, 0, -1, 0.2, 1, 0),
            (7, EV_ATTEMPT_STARTED, 1, 0, 0.0, 0, 0),
        ]);
        let err = ingest_batch(&mut e, &bad.0, &bad.1, &bad.2).unwrap_err();
        assert!(err.contains("event 3 of a batch of 4: attempt number -1 < 0"), "{err}");
        assert!(e.job().attempt(TaskId::map(0).attempt(0)).is_some(), "the events before the bad one are taken");
        assert!(e.job().attempt(TaskId::map(1).attempt(0)).is_none(), "those after it are not");
        // A start naming a node by an id never named stops a batch as it is refused alone.
        let mut e = engine();
        let unnamed = pack(&[
            (0, EV_JOB_CREATED, 0, 0, 0.0, 2, 0),
            (5, EV_ATTEMPT_STARTED, 0, 0, 0.0, 8, 0),
            (6, EV_ATTEMPT_STARTED, 1, 0, 0.0, 0, 0),
        ]);
        let err = ingest_batch(&mut e, &unnamed.0, &unnamed.1, &unnamed.2).unwrap_err();
        assert!(err.contains("event 2 of a batch of 3: node id 7 was never named"), "{err}");
        assert_eq!(e.job().tasks(rein_core::TaskKind::Map).len(), 2, "the event before it is taken");
        assert!(e.job().attempt(TaskId::map(0).attempt(0)).is_none(), "the refused start is not");
        assert!(e.job().attempt(TaskId::map(1).attempt(0)).is_none(), "nor the event after it");
    }

    #[test]
    fn roi_is_one_line_of_five_numbers() {
        let roi = rein_core::Roi { copies_asked: 3, copies_launched: 2, copies_won: 1, copy_container_ms: 4500, saved_ms: 9000 };
        assert_eq!(encode_roi(&roi), "3\t2\t1\t4500\t9000");
        assert_eq!(encode_records(&["{}".into(), "{\"a\":1}".into()]), "{}\n{\"a\":1}\n");
    }

    #[test]
    fn config_lines_need_equals() {
        assert_eq!(config_lines("# c\nrein.policy = late\n\n").unwrap(), vec![("rein.policy", " late")]);
        assert!(config_lines("rein.policy").is_err());
    }

    #[test]
    fn action_lines_have_eight_tab_separated_fields() {
        let reason = Reason::Late {
            progress: 0.1,
            rate: 0.01,
            slow_task_rate: 0.02,
            time_left_s: 90.0,
            rank: 1,
            candidates: 1,
            speculative_running: 0,
            cap: 1,
            slots: 4,
        };
        let line = encode_actions(&[Action::Speculate {
            task: TaskId::reduce(2),
            avoid_nodes: ["a:1", "b:2"].into_iter().map(Into::into).collect(),
            prefer_rack: None,
            reason,
        }]);
        let fields: Vec<&str> = line.trim_end().split('\t').collect();
        assert_eq!(fields.len(), 8);
        assert_eq!(&fields[..7], &["SPECULATE", "r", "2", "-1", "1", "a:1,b:2", ""]);
        assert!(fields[7].starts_with("LATE §4"));
    }

    #[test]
    fn typed_records_carry_each_field_and_share_avoid_lists() {
        let reason = || Reason::Veto { node: "n:1".into(), cause: VetoCause::Avoided, veto: 1, max: 2, block: false };
        let shared: rein_core::SharedNodes = std::sync::Arc::new(vec!["a:1".into(), "b:2".into()]);
        let spec = |i, own: &str| Action::Speculate {
            task: TaskId::map(i),
            avoid_nodes: rein_core::AvoidNodes::new(&shared, Some(own.into())),
            prefer_rack: Some("/r1".into()),
            reason: reason(),
        };
        let t = encode_typed(&[
            spec(4, "c:3"),
            spec(5, "a:1"),
            Action::Restart { attempt: TaskId::reduce(2).attempt(1), reason: reason() },
            Action::Clone { task: TaskId::map(7), copies: 2, reason: reason() },
            Action::Veto {
                attempt: TaskId::map(4).attempt(1),
                reason: Reason::Veto { node: "c:3".into(), cause: VetoCause::Avoided, veto: 1, max: 2, block: true },
            },
        ], 100);
        assert_eq!(&t.ints[..ACTION_HEADER], &[ABI_VERSION as i32, 5, ACTION_STRIDE as i32]);
        let rec = |i: usize| &t.ints[ACTION_HEADER + i * ACTION_STRIDE..ACTION_HEADER + (i + 1) * ACTION_STRIDE];
        let s = |i: i32| t.strings[i as usize].as_str();
        let (a, b) = (rec(0), rec(1));
        assert_eq!(&a[..5], &[VERB_SPECULATE, 0, 4, -1, 1]);
        assert!(s(a[5]).contains("avoided node n:1"));
        assert_eq!((s(a[6]), s(a[7])), ("/r1", "c:3"));
        assert_eq!(a[8], b[8], "one list for both copies");
        let list: Vec<&str> = t.ints[a[8] as usize..(a[8] + a[9]) as usize].iter().map(|&i| s(i)).collect();
        assert_eq!(list, ["a:1", "b:2"]);
        assert_eq!(s(b[7]), "a:1");
        assert_eq!(t.strings.iter().filter(|x| x.as_str() == "a:1").count(), 1, "node names once");
        assert_eq!(&rec(2)[..5], &[VERB_RESTART, 1, 2, 1, 0]);
        assert_eq!((rec(2)[6], rec(2)[7], rec(2)[8]), (-1, -1, -1));
        assert_eq!(&rec(3)[..5], &[VERB_CLONE, 0, 7, -1, 2]);
        assert_eq!(&rec(4)[..5], &[VERB_VETO, 0, 4, 1, 0]);
        assert_eq!(s(rec(4)[7]), "c:3", "the node a veto blocks, in the own-node slot");
        assert_eq!(t.ints.len(), ACTION_HEADER + 5 * ACTION_STRIDE + 2);
        assert_eq!(encode_typed(&[], 100).ints, vec![ABI_VERSION as i32, 0, ACTION_STRIDE as i32]);
    }

    #[test]
    fn lists_that_alternate_are_each_written_once_and_each_copy_points_at_its_own() {
        let a: rein_core::SharedNodes = std::sync::Arc::new(vec!["a:1".into(), "b:2".into()]);
        let b: rein_core::SharedNodes = std::sync::Arc::new(vec!["b:2".into(), "c:3".into(), "d:4".into()]);
        let reason = || Reason::Veto { node: "n:1".into(), cause: VetoCause::Avoided, veto: 1, max: 2, block: false };
        let lists = [&a, &b, &b, &a, &b];
        let actions: Vec<Action> = lists
            .iter()
            .enumerate()
            .map(|(i, list)| Action::Speculate {
                task: TaskId::map(i as u32),
                avoid_nodes: rein_core::AvoidNodes::new(list, Some(format!("own{}:1", i % 2).into())),
                prefer_rack: None,
                reason: reason(),
            })
            .collect();
        let t = encode_typed(&actions, 0);
        let rec = |i: usize| &t.ints[ACTION_HEADER + i * ACTION_STRIDE..ACTION_HEADER + (i + 1) * ACTION_STRIDE];
        let names = |i: usize| -> Vec<&str> {
            let (at, len) = (rec(i)[8] as usize, rec(i)[9] as usize);
            t.ints[at..at + len].iter().map(|&s| t.strings[s as usize].as_str()).collect()
        };
        for (i, list) in lists.iter().enumerate() {
            assert_eq!(names(i), list.iter().map(|n| n.as_str()).collect::<Vec<_>>(), "copy {i}'s list");
            assert_eq!(t.strings[rec(i)[7] as usize], format!("own{}:1", i % 2), "copy {i}'s own node");
        }
        assert_eq!((rec(0)[8], rec(1)[8]), (rec(3)[8], rec(2)[8]), "one place per list");
        assert_eq!(t.ints.len(), ACTION_HEADER + 5 * ACTION_STRIDE + 5, "each list once");
        assert_eq!(t.strings.len(), 6, "each name once: a, b, c, d and the two own nodes");
    }

    #[test]
    fn only_kills_and_the_first_copies_carry_a_reason() {
        let reason = |i: u32| Reason::Veto { node: format!("n:{i}").into(), cause: VetoCause::Avoided, veto: 1, max: 2, block: false };
        let copy = |i: u32| Action::Speculate {
            task: TaskId::map(i),
            avoid_nodes: rein_core::AvoidNodes::own_only(None),
            prefer_rack: Some("/r1".into()),
            reason: reason(i),
        };
        let actions = [
            copy(0),
            Action::Restart { attempt: TaskId::map(9).attempt(0), reason: reason(9) },
            Action::Clone { task: TaskId::map(1), copies: 2, reason: reason(1) },
            copy(2),
            Action::Veto { attempt: TaskId::map(8).attempt(1), reason: reason(8) },
            copy(3),
        ];
        let reasons = |limit| {
            let t = encode_typed(&actions, limit);
            assert_eq!(t.strings.iter().filter(|s| s.as_str() == "/r1").count(), 1, "a rack's name is sent once");
            (0..actions.len())
                .map(|i| t.ints[ACTION_HEADER + i * ACTION_STRIDE + 5])
                .map(|r| (r >= 0).then(|| t.strings[r as usize].clone()))
                .collect::<Vec<_>>()
        };
        let has = |limit| reasons(limit).iter().map(Option::is_some).collect::<Vec<_>>();
        assert_eq!(has(0), [false, true, false, false, true, false], "kills always");
        assert_eq!(has(2), [true, true, true, false, true, false], "the first two copies, in order");
        assert_eq!(has(u32::MAX), [true; 6]);
        assert!(reasons(1)[0].as_deref().is_some_and(|r| r.contains("n:0")));
        assert!(reasons(1)[1].as_deref().is_some_and(|r| r.contains("n:9")));
    }

    #[test]
    fn a_veto_line_names_the_attempt_and_carries_its_reason() {
        let reason = |block| Reason::Veto { node: "slow:1".into(), cause: VetoCause::Avoided, veto: 1, max: 2, block };
        let line = encode_actions(&[Action::Veto { attempt: TaskId::map(3).attempt(1), reason: reason(false) }]);
        let fields: Vec<&str> = line.trim_end().split('\t').collect();
        assert_eq!(&fields[..7], &["VETO", "m", "3", "1", "0", "", ""]);
        assert_eq!(fields[7], "the copy landed on avoided node slow:1 (veto 1 of 2 for this task); Hadoop places a replacement");
        let line = encode_actions(&[Action::Veto { attempt: TaskId::map(3).attempt(1), reason: reason(true) }]);
        let fields: Vec<&str> = line.trim_end().split('\t').collect();
        assert_eq!(&fields[..7], &["VETO", "m", "3", "1", "0", "slow:1", ""]);
        assert!(fields[7].ends_with("the job's later containers are kept off slow:1 (rein.veto.block-node)"), "{}", fields[7]);
    }

    #[test]
    fn a_move_line_names_the_reduce_attempt() {
        let reason = Reason::Placement {
            rack: "/a".into(),
            running: 3,
            planned: 2,
            plan: "/a:2 /b:2".into(),
            busiest_link_mb: 1.5,
            by_bytes: true,
            moves: 1,
            max: 2,
        };
        let line = encode_actions(&[Action::Move { attempt: TaskId::reduce(1).attempt(0), reason }]);
        let fields: Vec<&str> = line.trim_end().split('\t').collect();
        assert_eq!(&fields[..7], &["MOVE", "r", "1", "0", "0", "", ""]);
        assert!(fields[7].starts_with("Mantri §5.2 network-aware placement: the reduce started on rack /a"), "{}", fields[7]);
    }
}
