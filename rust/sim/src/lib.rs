//! rein-sim: a trace-driven discrete-event simulator over rein-core.
//!
//! Every simulated job gets its own [`rein_core::Engine`], the same code that runs in the
//! ApplicationMaster, and sees only what an AM would see. Built-in scenarios mirror the papers'
//! experiments (EVALUATION.md); SWIM job traces and Hadoop job histories (`.jhist`) can be
//! replayed; results are written as JSON, markdown and SVG.

pub mod cluster;
pub mod explain;
pub mod jhist;
pub mod metrics;
pub mod report;
pub mod reproduce;
pub mod rng;
pub mod scenario;
pub mod scenarios;
pub mod sim;
pub mod swim;
pub mod workload;

use std::collections::BTreeMap;

pub use rein_core::Engine;

use crate::metrics::Summary;
use crate::report::Results;
use crate::scenario::{PolicySpec, Scenario};
use crate::sim::simulate;

/// One policy's run as it finishes: label, summary, and the wall time it took.
pub struct Finished<'a> {
    pub label: &'a str,
    pub summary: &'a Summary,
    pub wall: std::time::Duration,
}

/// Runs every policy of `sc` (or those in `only`, by label or policy name) and collects the results.
/// `progress(label, done, total)` is called as jobs finish; `finished` after each policy.
pub fn run_scenario(
    sc: &Scenario,
    only: Option<&[String]>,
    seed: u64,
    progress: &mut dyn FnMut(&str, usize, usize),
    finished: &mut dyn FnMut(Finished<'_>),
) -> (Results, BTreeMap<String, Vec<f64>>) {
    let chosen: Vec<PolicySpec> = match only {
        None => sc.policies.clone(),
        Some(names) => names
            .iter()
            .map(|n| sc.policies.iter().find(|p| &p.label == n).cloned().unwrap_or_else(|| PolicySpec::named(n)))
            .collect(),
    };
    let mut policies = BTreeMap::new();
    let mut job_seconds = BTreeMap::new();
    for p in &chosen {
        let started = std::time::Instant::now();
        let run = simulate(sc, p, seed, &mut |done, total| progress(&p.label, done, total));
        let summary = Summary::of(&run);
        finished(Finished { label: &p.label, summary: &summary, wall: started.elapsed() });
        job_seconds.insert(p.label.clone(), run.jobs.iter().map(|j| j.seconds()).collect());
        policies.insert(p.label.clone(), summary);
    }
    let results = Results {
        scenario: sc.name.clone(),
        seed,
        description: sc.description.clone(),
        paper: sc.paper.clone(),
        order: chosen.iter().map(|p| p.label.clone()).collect(),
        policies,
    };
    (results, job_seconds)
}
