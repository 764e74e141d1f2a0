//! Mantri §5.2, network-aware placement of reduces.
//!
//! Every reduce reads its share of every map's output, so a rack that runs too many reduces is
//! congested on its downlink, and a rack that holds much map output and runs few reduces on its
//! uplink. Mantri places a reduce phase's tasks so that the largest of the per-rack transfer
//! times — `c_2i−1 = d_u^i / b_u^i` (data out of rack i over its uplink) and `c_2i = d_v^i / b_d^i`
//! (data into it over its downlink) — is as small as it can be, from the map output each rack
//! holds (the input matrix I of §5.2; rein takes each reduce to read an equal share of every map's
//! output, as Hadoop's AM cannot see partition sizes before the shuffle). Bandwidths are taken to
//! be equal on every link, the paper's estimate for phases that move much data.
//!
//! A speculator cannot place a reduce: Hadoop asks YARN for reduce containers anywhere. What it
//! can do is what the veto loop does for copies: when a reduce starts on a rack that already runs
//! more reduces than the plan gives it while another rack runs fewer, kill it at once so that
//! Hadoop asks for a container again, at most `rein.mantri.reduce-moves-per-task` times per task.
//! Only the task's only attempt, only within Δ of its start (a move throws away at most Δ of
//! shuffle), and not while the job's headroom shows no free slot (the freed container, on the
//! crowded rack, would take the replacement).

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::action::{Action, Reason};
use crate::model::{AttemptId, JobState, Millis, TaskKind};

/// Hadoop's name for the rack of a node with no rack information.
pub const DEFAULT_RACK: &str = "/default-rack";

/// Reduces per rack that minimise the largest per-rack transfer, with each of `reduces` tasks
/// reading an equal share of the map output `bytes[i]` held in rack i and every link equally
/// fast (§5.2: arg min max_j c_j). Of several optimal placements, extra reduces go to the racks
/// holding the most map output (they read the least across racks), lower index first.
pub fn reduce_spread(reduces: u32, bytes: &[f64]) -> Vec<u32> {
    let r = bytes.len();
    let n = reduces as f64;
    let total: f64 = bytes.iter().sum();
    if r == 0 || reduces == 0 || total <= 0.0 {
        // Nothing to move: spread evenly.
        return (0..r).map(|i| reduces / r as u32 + u32::from((i as u32) < reduces % r.max(1) as u32)).collect();
    }
    // With k reduces on rack i: uplink carries D_i·(n−k)/n, downlink k·(D−D_i)/n. For a bound T on
    // both, the k allowed on rack i form the interval [lo_i, hi_i].
    let bounds = |t: f64| -> Option<Vec<(u32, u32)>> {
        let slack = 1e-9 * total;
        let mut sum_lo = 0u64;
        let mut sum_hi = 0u64;
        let mut out = Vec::with_capacity(r);
        for &d in bytes {
            let lo = if d > 0.0 { (n - (t + slack) * n / d).ceil().max(0.0) } else { 0.0 };
            let rest = total - d;
            let hi = if rest > 0.0 { ((t + slack) * n / rest).floor().min(n) } else { n };
            if lo > hi {
                return None;
            }
            sum_lo += lo as u64;
            sum_hi += hi as u64;
            out.push((lo as u32, hi as u32));
        }
        (sum_lo <= reduces as u64 && reduces as u64 <= sum_hi).then_some(out)
    };
    let (mut low, mut high) = (0.0, total);
    for _ in 0..100 {
        let mid = (low + high) / 2.0;
        if bounds(mid).is_some() {
            high = mid;
        } else {
            low = mid;
        }
    }
    let intervals = bounds(high).expect("the upper bound of the search is feasible");
    let mut spread: Vec<u32> = intervals.iter().map(|&(lo, _)| lo).collect();
    let mut left = reduces - spread.iter().sum::<u32>();
    let mut order: Vec<usize> = (0..r).collect();
    order.sort_by(|&a, &b| bytes[b].total_cmp(&bytes[a]).then(a.cmp(&b)));
    while left > 0 {
        for &i in &order {
            if left > 0 && spread[i] < intervals[i].1 {
                spread[i] += 1;
                left -= 1;
            }
        }
    }
    spread
}

/// The largest per-rack transfer, in bytes at equal bandwidths, with `spread[i]` reduces on rack i.
pub fn busiest_link_bytes(spread: &[u32], bytes: &[f64]) -> f64 {
    let n = spread.iter().sum::<u32>() as f64;
    let total: f64 = bytes.iter().sum();
    if n == 0.0 {
        return 0.0;
    }
    spread
        .iter()
        .zip(bytes)
        .map(|(&k, &d)| (d * (n - k as f64) / n).max(k as f64 * (total - d) / n))
        .fold(0.0, f64::max)
}

pub(crate) struct ReducePlacement {
    max_moves: u32,
    window_ms: Millis,
    /// Racks named by the configured topology, which count even before the job has used them.
    configured_racks: Vec<String>,
    moves: HashMap<u32, u32>,
    /// Attempts moved: killed, though the caller may not have reported it yet.
    moved: HashSet<AttemptId>,
    /// Reduce attempts whose node has just become known, for the next decision.
    due: Vec<AttemptId>,
}

impl ReducePlacement {
    pub(crate) fn new(max_moves: u32, window_ms: Millis, configured_racks: Vec<String>) -> ReducePlacement {
        ReducePlacement {
            max_moves,
            window_ms,
            configured_racks,
            moves: HashMap::new(),
            moved: HashSet::new(),
            due: Vec::new(),
        }
    }

    /// Notes a reduce attempt whose node has just become known.
    pub(crate) fn placed(&mut self, job: &JobState, id: AttemptId) {
        if id.task.kind == TaskKind::Reduce && job.attempt(id).is_some_and(|a| !a.is_copy && a.is_running()) {
            self.due.push(id);
        }
    }

    /// A move the caller did not carry out: it does not count against its task's moves, and the
    /// attempt, still running, counts on its rack again.
    pub(crate) fn undo(&mut self, id: AttemptId) {
        if self.moved.remove(&id) {
            if let Some(m) = self.moves.get_mut(&id.task.index) {
                *m = m.saturating_sub(1);
            }
        }
    }

    /// Moves the reduces just placed on a rack over its plan, while another rack is under it.
    pub(crate) fn decide(&mut self, now: Millis, job: &JobState) -> Vec<Action> {
        if self.due.is_empty() {
            return Vec::new();
        }
        let racks = self.racks(job);
        if racks.len() < 2 {
            self.due.clear();
            return Vec::new();
        }
        let index: BTreeMap<&str, usize> = racks.iter().enumerate().map(|(i, r)| (r.as_str(), i)).collect();
        let rack_of = |node| job.node(node).rack.as_deref().unwrap_or(DEFAULT_RACK);
        // Map output per rack: bytes when every finished map reported them, else finished maps.
        let mut bytes = vec![0.0; racks.len()];
        let mut counts = vec![0.0; racks.len()];
        let mut all_bytes = true;
        for t in job.tasks(TaskKind::Map).iter().filter(|t| t.succeeded) {
            let Some(node) = job.attempts_of(t).find(|a| a.state == crate::model::AttemptState::Succeeded).and_then(|a| a.node)
            else {
                continue;
            };
            let i = index[rack_of(node)];
            counts[i] += 1.0;
            match t.output_bytes() {
                Some(b) => bytes[i] += b as f64,
                None => all_bytes = false,
            }
        }
        let by_bytes = all_bytes && bytes.iter().sum::<f64>() > 0.0;
        let held = if by_bytes { bytes } else { counts };
        if held.iter().sum::<f64>() <= 0.0 {
            // No map has finished (or none is reported): nothing to plan from.
            self.due.clear();
            return Vec::new();
        }
        let unfinished = job.tasks(TaskKind::Reduce).iter().filter(|t| !t.succeeded).count() as u32;
        let plan = reduce_spread(unfinished, &held);
        let mut running = vec![0u32; racks.len()];
        for t in job.tasks(TaskKind::Reduce) {
            for a in job.running_attempts_of(t).filter(|a| !self.moved.contains(&a.id)) {
                if let Some(node) = a.node {
                    running[index[rack_of(node)]] += 1;
                }
            }
        }
        let full = job.free_slots == Some(0);
        let mut actions = Vec::new();
        let mut waiting = Vec::new();
        for id in std::mem::take(&mut self.due) {
            let (Some(t), Some(a)) = (job.task(id.task), job.attempt(id)) else { continue };
            let Some(node) = a.node else { continue };
            let moves = self.moves.get(&id.task.index).copied().unwrap_or(0);
            let alone = job.running_attempts_of(t).all(|o| o.id == id || self.moved.contains(&o.id));
            if t.succeeded || !a.is_running() || a.finishing() || !alone || moves >= self.max_moves || now - a.start > self.window_ms {
                continue;
            }
            let i = index[rack_of(node)];
            let under = (0..racks.len()).any(|j| running[j] < plan[j]);
            if running[i] <= plan[i] || !under {
                continue;
            }
            if full {
                waiting.push(id);
                continue;
            }
            running[i] -= 1;
            self.moves.insert(id.task.index, moves + 1);
            self.moved.insert(id);
            actions.push(Action::Move {
                attempt: id,
                reason: Reason::Placement {
                    rack: racks[i].as_str().into(),
                    running: running[i] + 1,
                    planned: plan[i],
                    plan: racks.iter().zip(&plan).map(|(r, k)| format!("{r}:{k}")).collect::<Vec<_>>().join(" ").into(),
                    busiest_link_mb: if by_bytes { busiest_link_bytes(&plan, &held) / 1e6 } else { 0.0 },
                    by_bytes,
                    moves: moves + 1,
                    max: self.max_moves,
                },
            });
        }
        self.due = waiting;
        actions
    }

    /// The racks in play, in name order: the configured ones and those of the job's live nodes.
    fn racks(&self, job: &JobState) -> Vec<String> {
        let mut racks: Vec<String> = self.configured_racks.clone();
        racks.extend(
            job.nodes().filter(|(_, n)| !n.lost).map(|(_, n)| n.rack.clone().unwrap_or_else(|| DEFAULT_RACK.to_owned())),
        );
        racks.sort();
        racks.dedup();
        racks
    }
}

#[cfg(test)]
mod tests {
    use super::{busiest_link_bytes, reduce_spread};
    use crate::action::{Action, Reason};
    use crate::event::{Event, Outcome};
    use crate::model::TaskId;
    use crate::Engine;
    use proptest::prelude::*;

    /// Every placement of `n` reduces over the racks, by brute force.
    fn all_spreads(n: u32, racks: usize) -> Vec<Vec<u32>> {
        if racks == 1 {
            return vec![vec![n]];
        }
        (0..=n)
            .flat_map(|k| {
                all_spreads(n - k, racks - 1).into_iter().map(move |mut rest| {
                    rest.insert(0, k);
                    rest
                })
            })
            .collect()
    }

    #[test]
    fn even_output_spreads_evenly_and_a_heavy_rack_keeps_more() {
        assert_eq!(reduce_spread(4, &[1.0, 1.0]), [2, 2]);
        assert_eq!(reduce_spread(6, &[1.0, 1.0, 1.0]), [2, 2, 2]);
        // A quarter of the output on rack 0: one reduce there, three on rack 1 (each link 3/16).
        assert_eq!(reduce_spread(4, &[1.0, 3.0]), [1, 3]);
        assert!((busiest_link_bytes(&[1, 3], &[1.0, 3.0]) - 0.75).abs() < 1e-12);
        // All the output on one rack: every reduce there, nothing crosses a rack.
        assert_eq!(reduce_spread(5, &[0.0, 7.0, 0.0]), [0, 5, 0]);
        assert_eq!(busiest_link_bytes(&[0, 5, 0], &[0.0, 7.0, 0.0]), 0.0);
        // No output known: even.
        assert_eq!(reduce_spread(5, &[0.0, 0.0]), [3, 2]);
    }

    proptest! {
        /// The plan is optimal: no other placement has a less busy link (Mantri §5.2's arg min max).
        #[test]
        fn the_plan_minimises_the_busiest_link(n in 1u32..9, bytes in prop::collection::vec(0u32..100, 2..4)) {
            let bytes: Vec<f64> = bytes.into_iter().map(f64::from).collect();
            let plan = reduce_spread(n, &bytes);
            prop_assert_eq!(plan.iter().sum::<u32>(), n);
            let best = all_spreads(n, bytes.len()).iter().map(|s| busiest_link_bytes(s, &bytes)).fold(f64::INFINITY, f64::min);
            prop_assert!(busiest_link_bytes(&plan, &bytes) <= best + 1e-9, "{:?} vs best {}", plan, best);
        }
    }

    fn mantri(extra: &[(&str, &str)]) -> Engine {
        let mut pairs = vec![("rein.policy", "mantri"), ("rein.topology.racks", "n1:1=/a n2:1=/a n3:1=/b n4:1=/b")];
        pairs.extend_from_slice(extra);
        Engine::from_pairs(pairs).unwrap().0
    }

    /// Two maps' output on each rack, four reduces: the plan is two per rack.
    fn maps_done(e: &mut Engine) {
        e.ingest(0, Event::JobCreated { maps: 4, reduces: 4 });
        for (i, node) in ["n1:1", "n2:1", "n3:1", "n4:1"].into_iter().enumerate() {
            let a = TaskId::map(i as u32).attempt(0);
            e.ingest(0, Event::AttemptStarted { attempt: a, node: Some(node.into()), rack: None });
            e.ingest(5_000, Event::TaskOutput { task: a.task, bytes: 1_000_000 });
            e.ingest(5_000, Event::AttemptFinished { attempt: a, outcome: Outcome::Succeeded });
        }
    }

    fn start_reduce(e: &mut Engine, now: i64, index: u32, n: u32, node: &str) {
        let a = TaskId::reduce(index).attempt(n);
        e.ingest(now, Event::AttemptStarted { attempt: a, node: Some(node.into()), rack: Some("/default-rack".into()) });
    }

    fn moves(actions: &[Action]) -> Vec<String> {
        actions.iter().filter_map(|a| matches!(a, Action::Move { .. }).then(|| format!("{}", a.task()))).collect()
    }

    #[test]
    fn reduces_move_with_map_speculation_off_and_stay_with_reduce_speculation_off() {
        for (switch, expected) in [("mapreduce.map.speculative", 1), ("mapreduce.reduce.speculative", 0)] {
            let mut e = mantri(&[(switch, "false")]);
            maps_done(&mut e);
            start_reduce(&mut e, 6_000, 0, 0, "n1:1");
            start_reduce(&mut e, 6_000, 1, 0, "n2:1");
            assert!(moves(&e.decide(6_100)).is_empty());
            start_reduce(&mut e, 7_000, 2, 0, "n1:1");
            assert_eq!(moves(&e.decide(7_100)).len(), expected, "{switch}=false");
        }
    }

    #[test]
    fn a_move_the_caller_drops_is_not_counted() {
        let mut e = mantri(&[("rein.mantri.reduce-moves-per-task", "1")]);
        maps_done(&mut e);
        start_reduce(&mut e, 6_000, 0, 0, "n1:1");
        start_reduce(&mut e, 6_000, 1, 0, "n2:1");
        assert!(moves(&e.decide(6_100)).is_empty());
        start_reduce(&mut e, 7_000, 2, 0, "n1:1");
        assert_eq!(moves(&e.decide(7_100)), ["r000002"]);
        e.ingest(7_150, Event::KillDropped { attempt: TaskId::reduce(2).attempt(0) });
        // Hadoop later replaces the attempt (killed for another reason) on rack /a again: the one
        // move allowed was never carried out, so this one moves.
        e.ingest(7_200, Event::AttemptFinished { attempt: TaskId::reduce(2).attempt(0), outcome: Outcome::Killed });
        start_reduce(&mut e, 8_000, 2, 1, "n2:1");
        assert_eq!(moves(&e.decide(8_100)), ["r000002"]);
    }

    #[test]
    fn the_third_reduce_on_a_rack_planned_for_two_moves() {
        let mut e = mantri(&[]);
        maps_done(&mut e);
        start_reduce(&mut e, 6_000, 0, 0, "n1:1");
        start_reduce(&mut e, 6_000, 1, 0, "n2:1");
        assert!(moves(&e.decide(6_100)).is_empty());
        start_reduce(&mut e, 7_000, 2, 0, "n1:1");
        start_reduce(&mut e, 7_000, 3, 0, "n3:1");
        let actions = e.decide(7_100);
        assert_eq!(moves(&actions), ["r000002"]);
        let Reason::Placement { rack, running, planned, plan, .. } = actions[0].reason() else { panic!() };
        assert_eq!((&**rack, *running, *planned, &**plan), ("/a", 3, 2, "/a:2 /b:2"));
        assert!(actions[0].reason().to_string().contains("Mantri §5.2"), "{}", actions[0].reason());
        // Hadoop's replacement lands on rack /a again: moved again, then the bound (2) holds.
        e.ingest(7_200, Event::AttemptFinished { attempt: TaskId::reduce(2).attempt(0), outcome: Outcome::Killed });
        start_reduce(&mut e, 8_000, 2, 1, "n2:1");
        assert_eq!(moves(&e.decide(8_100)), ["r000002"]);
        e.ingest(8_200, Event::AttemptFinished { attempt: TaskId::reduce(2).attempt(1), outcome: Outcome::Killed });
        start_reduce(&mut e, 9_000, 2, 2, "n1:1");
        assert!(moves(&e.decide(9_100)).is_empty());
    }

    #[test]
    fn no_move_late_on_a_full_cluster_for_a_copy_or_without_racks() {
        // Past Δ (10 s) after its start: kept.
        let mut e = mantri(&[]);
        maps_done(&mut e);
        for (i, node) in ["n1:1", "n2:1", "n1:1"].into_iter().enumerate() {
            start_reduce(&mut e, 6_000, i as u32, 0, node);
        }
        assert!(moves(&e.decide(16_001)).is_empty());

        // No free slot: the move waits, and happens once a slot frees within Δ.
        let mut e = mantri(&[]);
        maps_done(&mut e);
        e.ingest(5_500, Event::Capacity { total_slots: 8, free_slots: Some(0) });
        for (i, node) in ["n1:1", "n2:1", "n1:1"].into_iter().enumerate() {
            start_reduce(&mut e, 6_000, i as u32, 0, node);
        }
        assert!(moves(&e.decide(6_100)).is_empty());
        e.ingest(7_000, Event::Capacity { total_slots: 8, free_slots: Some(3) });
        assert_eq!(moves(&e.decide(7_100)).len(), 1);

        // Turned off, or one rack only: nothing.
        for extra in [vec![("rein.mantri.reduce-moves-per-task", "0")], vec![("rein.topology.racks", "")]] {
            let mut e = mantri(&extra);
            maps_done(&mut e);
            for (i, node) in ["n1:1", "n2:1", "n1:1", "n2:1"].into_iter().enumerate() {
                start_reduce(&mut e, 6_000, i as u32, 0, node);
            }
            assert!(moves(&e.decide(6_100)).is_empty(), "{extra:?}");
        }

        // No finished map to plan from: nothing moves.
        let mut e = mantri(&[]);
        e.ingest(0, Event::JobCreated { maps: 4, reduces: 4 });
        for (i, node) in ["n1:1", "n2:1", "n1:1", "n2:1"].into_iter().enumerate() {
            start_reduce(&mut e, 6_000, i as u32, 0, node);
        }
        assert!(moves(&e.decide(6_100)).is_empty());

        // Other policies do not move reduces.
        let mut e = Engine::from_pairs([("rein.policy", "late"), ("rein.topology.racks", "n1:1=/a n3:1=/b")]).unwrap().0;
        maps_done(&mut e);
        for (i, node) in ["n1:1", "n1:1", "n1:1", "n1:1"].into_iter().enumerate() {
            start_reduce(&mut e, 6_000, i as u32, 0, node);
        }
        assert!(moves(&e.decide(6_100)).is_empty());
    }

    #[test]
    fn output_bytes_decide_the_plan() {
        // Rack /a holds 3 MB of the 4 MB of map output: three reduces there, one on /b.
        let mut e = mantri(&[]);
        e.ingest(0, Event::JobCreated { maps: 2, reduces: 4 });
        for (i, (node, mb)) in [("n1:1", 3), ("n3:1", 1)].into_iter().enumerate() {
            let a = TaskId::map(i as u32).attempt(0);
            e.ingest(0, Event::AttemptStarted { attempt: a, node: Some(node.into()), rack: None });
            e.ingest(5_000, Event::TaskOutput { task: a.task, bytes: mb * 1_000_000 });
            e.ingest(5_000, Event::AttemptFinished { attempt: a, outcome: Outcome::Succeeded });
        }
        for (i, node) in ["n3:1", "n4:1", "n1:1"].into_iter().enumerate() {
            start_reduce(&mut e, 6_000, i as u32, 0, node);
        }
        // r0 is judged first: /b runs two against a plan of one.
        let actions = e.decide(6_100);
        assert_eq!(moves(&actions), ["r000000"]);
        let Reason::Placement { plan, by_bytes, .. } = actions[0].reason() else { panic!() };
        assert_eq!((&**plan, *by_bytes), ("/a:3 /b:1", true));
    }
}
