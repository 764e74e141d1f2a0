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

fn chosen(sc: &Scenario, only: Option<&[String]>) -> Vec<PolicySpec> {
    match only {
        None => sc.policies.clone(),
        Some(names) => names
            .iter()
            .map(|n| sc.policies.iter().find(|p| &p.label == n).cloned().unwrap_or_else(|| PolicySpec::named(n)))
            .collect(),
    }
}

fn results(sc: &Scenario, seed: u64, chosen: &[PolicySpec], runs: Vec<(Summary, Vec<f64>)>) -> (Results, BTreeMap<String, Vec<f64>>) {
    let mut policies = BTreeMap::new();
    let mut job_seconds = BTreeMap::new();
    for (p, (summary, seconds)) in chosen.iter().zip(runs) {
        job_seconds.insert(p.label.clone(), seconds);
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

/// Runs every policy of `sc` (or those in `only`, by label or policy name) and collects the results.
/// `progress(label, done, total)` is called as jobs finish; `finished` after each policy.
pub fn run_scenario(
    sc: &Scenario,
    only: Option<&[String]>,
    seed: u64,
    progress: &mut dyn FnMut(&str, usize, usize),
    finished: &mut dyn FnMut(Finished<'_>),
) -> (Results, BTreeMap<String, Vec<f64>>) {
    let chosen = chosen(sc, only);
    let mut runs = Vec::new();
    for p in &chosen {
        let started = std::time::Instant::now();
        let run = simulate(sc, p, seed, &mut |done, total| progress(&p.label, done, total));
        let summary = Summary::of(&run);
        finished(Finished { label: &p.label, summary: &summary, wall: started.elapsed() });
        runs.push((summary, run.jobs.iter().map(|j| j.seconds()).collect()));
    }
    results(sc, seed, &chosen, runs)
}

/// [`run_scenario`] with the policies run side by side on up to `threads` threads. The runs are
/// independent (each has its own engines and random streams; the caches shared by engines hold
/// exact values), so the results are the same as run one after another.
pub fn run_scenario_parallel(
    sc: &Scenario,
    only: Option<&[String]>,
    seed: u64,
    threads: usize,
    progress: &(dyn Fn(&str, usize, usize) + Sync),
    finished: &(dyn Fn(Finished<'_>) + Sync),
) -> (Results, BTreeMap<String, Vec<f64>>) {
    let chosen = chosen(sc, only);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let runs: Vec<std::sync::Mutex<Option<(Summary, Vec<f64>)>>> = chosen.iter().map(|_| Default::default()).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, chosen.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(p) = chosen.get(i) else { break };
                let started = std::time::Instant::now();
                let run = simulate(sc, p, seed, &mut |done, total| progress(&p.label, done, total));
                let summary = Summary::of(&run);
                finished(Finished { label: &p.label, summary: &summary, wall: started.elapsed() });
                let seconds = run.jobs.iter().map(|j| j.seconds()).collect();
                *runs[i].lock().unwrap_or_else(|e| e.into_inner()) = Some((summary, seconds));
            });
        }
    });
    let runs = runs.into_iter().map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every policy ran")).collect();
    results(sc, seed, &chosen, runs)
}
