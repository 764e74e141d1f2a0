//! Per-policy summaries, with the metric names of EVALUATION.md.

use serde::Serialize;

use crate::sim::RunResult;

/// Jobs with fewer tasks than this are "small" (EVALUATION.md: the small-job (<10 tasks) bucket).
pub const SMALL_JOB_TASKS: u32 = 10;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub jobs: usize,
    pub mean_job_seconds: f64,
    pub p50_job_seconds: f64,
    pub p75_job_seconds: f64,
    pub p99_job_seconds: f64,
    /// Mean job time of jobs with fewer than 10 tasks; null when there are none.
    pub small_jobs_mean_seconds: Option<f64>,
    pub small_jobs: usize,
    /// Median reduce-phase time, from the phase becoming runnable to the job's end (Mantri §6.3);
    /// null when no job has reduces.
    pub p50_reduce_phase_seconds: Option<f64>,
    pub container_seconds: f64,
    pub wasted_container_seconds: f64,
    pub speculative_launched: u64,
    pub speculative_won: u64,
    pub restarts: u64,
    pub clones: u64,
    pub clones_won: u64,
    pub vetoes: u64,
    pub moves: u64,
    pub copies_dropped: u64,
    pub attempts: u64,
    pub nodes_lost: u64,
    pub maps_recomputed: u64,
    /// Map outputs Mantri §5.3 replicated.
    pub outputs_replicated: u64,
    /// Clones killed when utilisation passed Dolly's τ.
    pub clones_yielded: u64,
    /// Copies Mantri's Pseudocode 1 line 3 killed.
    pub copies_pruned: u64,
    pub simulated_seconds: f64,
    pub sim_events: u64,
    pub engine_events: u64,
    pub decisions: u64,
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Three decimals: enough for seconds, and stable text in results.json.
fn r3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (mut s, mut n) = (0.0, 0usize);
    for x in xs {
        s += x;
        n += 1;
    }
    if n == 0 { 0.0 } else { s / n as f64 }
}

impl Summary {
    pub fn of(run: &RunResult) -> Summary {
        let mut secs: Vec<f64> = run.jobs.iter().map(|j| j.seconds()).collect();
        secs.sort_by(f64::total_cmp);
        let small: Vec<f64> = run.jobs.iter().filter(|j| j.tasks < SMALL_JOB_TASKS).map(|j| j.seconds()).collect();
        let c = &run.counters;
        let mut phases: Vec<f64> = run.jobs.iter().filter_map(|j| j.reduce_phase_seconds()).collect();
        phases.sort_by(f64::total_cmp);
        Summary {
            jobs: run.jobs.len(),
            mean_job_seconds: r3(mean(secs.iter().copied())),
            p50_job_seconds: r3(percentile(&secs, 0.5)),
            p75_job_seconds: r3(percentile(&secs, 0.75)),
            p99_job_seconds: r3(percentile(&secs, 0.99)),
            small_jobs_mean_seconds: (!small.is_empty()).then(|| r3(mean(small.iter().copied()))),
            small_jobs: small.len(),
            p50_reduce_phase_seconds: (!phases.is_empty()).then(|| r3(percentile(&phases, 0.5))),
            container_seconds: r3(run.jobs.iter().map(|j| j.container_ms as f64).sum::<f64>() / 1000.0),
            wasted_container_seconds: r3(run.jobs.iter().map(|j| j.wasted_ms as f64).sum::<f64>() / 1000.0),
            speculative_launched: c.speculative_launched,
            speculative_won: c.speculative_won,
            restarts: c.restarts,
            clones: c.clones,
            clones_won: c.clones_won,
            vetoes: c.vetoes,
            moves: c.moves,
            copies_dropped: c.copies_dropped,
            attempts: c.attempts,
            nodes_lost: c.nodes_lost,
            maps_recomputed: c.maps_recomputed,
            outputs_replicated: c.outputs_replicated,
            clones_yielded: c.clones_yielded,
            copies_pruned: c.copies_pruned,
            simulated_seconds: r3(run.end_ms as f64 / 1000.0),
            sim_events: run.sim_events,
            engine_events: run.engine_events,
            decisions: run.decisions,
        }
    }
}
