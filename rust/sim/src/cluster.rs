//! The machines: slots, racks, speed, and the processes that make them straggle.
//!
//! Three outlier processes, each from the papers' observations:
//! - persistent slowness: a node's `speed` below 1 for the whole run (LATE §5.4's slowed nodes,
//!   LATE §5.2's VMs sharing a host);
//! - transient contention: windows during which the node runs `factor` times slower (LATE §5.2.2's
//!   background load, Mantri §2's contention for local resources);
//! - a per-machine outlier probability that changes from epoch to epoch (Dolly §3.2): an attempt that
//!   starts on the node is an outlier with the node's probability at that moment.
//!
//! The policies never see any of this; they see only node names and progress reports.

use rein_core::Millis;

use crate::rng::Rng;

/// A window `[start, end)` during which the node runs `factor` times slower.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub start: Millis,
    pub end: Millis,
    pub factor: f64,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub rack: u32,
    pub slots: u32,
    /// Work per unit time relative to a nominal node (1.0); 0.1 is ten times slower.
    pub speed: f64,
    /// Contention windows, sorted by start, not overlapping.
    pub windows: Vec<Window>,
    /// Outlier probability per epoch of `ClusterSpec::epoch_ms` (the last value holds afterwards).
    pub outlier_p: Vec<f64>,
    /// When the node dies and loses its disks (Mantri §5.3's recomputation), if it does.
    pub lost_at: Option<Millis>,
}

#[derive(Clone, Debug)]
pub struct Cluster {
    pub nodes: Vec<Node>,
    pub racks: u32,
    /// Length of one epoch of the per-machine outlier probability.
    pub epoch_ms: Millis,
}

/// How an attempt's work unfolds in time: `(time, fraction of work done)` breakpoints, the first at
/// the start with 0, the last at the end with 1; linear in between.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub points: Vec<(Millis, f64)>,
}

impl Plan {
    pub fn start(&self) -> Millis {
        self.points[0].0
    }

    pub fn end(&self) -> Millis {
        self.points[self.points.len() - 1].0
    }

    /// Fraction of the attempt's work done at `t`.
    pub fn progress(&self, t: Millis) -> f64 {
        let p = &self.points;
        if t <= p[0].0 {
            return 0.0;
        }
        for w in p.windows(2) {
            let ((t0, f0), (t1, f1)) = (w[0], w[1]);
            if t < t1 {
                return f0 + (f1 - f0) * (t - t0) as f64 / (t1 - t0).max(1) as f64;
            }
        }
        1.0
    }
}

impl Cluster {
    /// `n` nominal nodes of `slots` slots each, spread over racks of `per_rack` nodes.
    pub fn uniform(n: usize, slots: u32, per_rack: usize) -> Cluster {
        let per_rack = per_rack.max(1);
        let nodes = (0..n)
            .map(|i| Node {
                rack: (i / per_rack) as u32,
                slots,
                speed: 1.0,
                windows: Vec::new(),
                outlier_p: Vec::new(),
                lost_at: None,
            })
            .collect();
        Cluster { nodes, racks: n.div_ceil(per_rack) as u32, epoch_ms: 3_600_000 }
    }

    pub fn total_slots(&self) -> u32 {
        self.nodes.iter().map(|n| n.slots).sum()
    }

    /// Gives every node a fresh outlier probability each epoch, drawn from `draw`, for `epochs`.
    pub fn vary_outlier_probability(&mut self, epochs: usize, epoch_ms: Millis, rng: &mut Rng, draw: impl Fn(&mut Rng) -> f64) {
        self.epoch_ms = epoch_ms;
        for n in &mut self.nodes {
            n.outlier_p = (0..epochs).map(|_| draw(rng).clamp(0.0, 1.0)).collect();
        }
    }

    /// The node's outlier probability at `t`.
    pub fn outlier_p(&self, node: usize, t: Millis) -> f64 {
        let p = &self.nodes[node].outlier_p;
        if p.is_empty() {
            return 0.0;
        }
        let epoch = (t.max(0) / self.epoch_ms.max(1)) as usize;
        p[epoch.min(p.len() - 1)]
    }

    /// The plan of an attempt that starts on `node` at `start` with `work` ms of nominal work,
    /// integrating the node's speed through its contention windows.
    pub fn plan(&self, node: usize, start: Millis, work: f64) -> Plan {
        let n = &self.nodes[node];
        let work = work.max(1.0);
        let mut points = vec![(start, 0.0)];
        let mut t = start as f64;
        let mut done = 0.0;
        for w in &n.windows {
            if w.end as f64 <= t {
                continue;
            }
            // Nominal speed until the window opens, then slowed until it closes.
            for (until, rate) in [(w.start as f64, n.speed), (w.end as f64, n.speed / w.factor)] {
                if until <= t {
                    continue;
                }
                let can = (until - t) * rate;
                if done + can >= work {
                    let end = t + (work - done) / rate;
                    points.push((end.ceil() as Millis, 1.0));
                    return Plan { points };
                }
                done += can;
                t = until;
                points.push((t as Millis, done / work));
            }
        }
        let end = t + (work - done) / n.speed;
        points.push(((end.ceil() as Millis).max(start + 1), 1.0));
        Plan { points }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_without_windows_is_linear() {
        let c = Cluster::uniform(1, 1, 1);
        let p = c.plan(0, 1000, 10_000.0);
        assert_eq!(p.end(), 11_000);
        assert!((p.progress(6000) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn a_contention_window_stretches_the_attempt() {
        let mut c = Cluster::uniform(1, 1, 1);
        c.nodes[0].windows.push(Window { start: 5000, end: 15_000, factor: 2.0 });
        // 5 s of work before, 5 s of work in 10 s of window, then done at 15 s.
        let p = c.plan(0, 0, 10_000.0);
        assert_eq!(p.end(), 15_000);
        assert!((p.progress(5000) - 0.5).abs() < 1e-9);
        assert!((p.progress(10_000) - 0.75).abs() < 1e-9);
    }
}
