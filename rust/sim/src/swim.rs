//! SWIM job traces (`../shared/traces/README.md`): one job a line, tab-separated — id, submit
//! seconds, gap seconds, map input bytes, shuffle bytes, reduce output bytes.
//!
//! The trace is job-level, so tasks are derived the way Hadoop would and timed by a model:
//! - maps = ⌈input / 128 MiB⌉, at least 1, each with its share of the input as split size;
//! - reduces = ⌈shuffle / 1 GiB⌉ (none when nothing is shuffled), each fetching an equal share;
//! - a map takes 10 s (JVM start and setup) + its split at 5 MB/s; a reduce takes 10 s + its
//!   shuffle share at 5 MB/s + its output share at 10 MB/s: rough 2009-era Hadoop rates;
//! - attempts draw lognormal noise (σ = 0.2) and turn outliers (Mantri §2.1's slowdowns: mostly 1.5–2.5×, 10% beyond 10×) with
//!   their machine's outlier probability, which changes every 15 minutes: most machines 0–4%,
//!   one in ten 20–50% (Dolly §3.2's varying per-machine probability; Mantri §2's outliers).

use std::path::Path;

use rein_core::Millis;

use crate::cluster::Cluster;
use crate::rng::Rng;
use crate::scenario::{PolicySpec, Scenario, Scheduler};
use crate::workload::{AttemptModel, Factor, JobSpec, Slowdown, TaskSpec};

pub const SPLIT_BYTES: u64 = 128 << 20;
pub const REDUCE_BYTES: u64 = 1 << 30;

#[derive(Clone, Debug, PartialEq)]
pub struct SwimJob {
    pub id: String,
    pub submit_s: f64,
    pub input_bytes: u64,
    pub shuffle_bytes: u64,
    pub output_bytes: u64,
}

/// Parses a SWIM trace; blank lines are skipped, a malformed line is an error naming its number.
pub fn parse(text: &str) -> Result<Vec<SwimJob>, String> {
    let mut jobs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').map(str::trim).collect();
        if f.len() < 6 {
            return Err(format!("line {}: expected 6 tab-separated fields, got {}", i + 1, f.len()));
        }
        let num = |k: usize| f[k].parse::<f64>().map_err(|_| format!("line {}: field {} is not a number: '{}'", i + 1, k + 1, f[k]));
        jobs.push(SwimJob {
            id: f[0].to_owned(),
            submit_s: num(1)?,
            input_bytes: num(3)?.max(0.0) as u64,
            shuffle_bytes: num(4)?.max(0.0) as u64,
            output_bytes: num(5)?.max(0.0) as u64,
        });
    }
    Ok(jobs)
}

/// Hadoop's task split of a SWIM job, with the task-time model above.
pub fn job_spec(job: &SwimJob) -> JobSpec {
    let maps = job.input_bytes.div_ceil(SPLIT_BYTES).max(1);
    let reduces = job.shuffle_bytes.div_ceil(REDUCE_BYTES);
    let split = job.input_bytes / maps;
    let map_ms = 10_000.0 + split as f64 / 5_000.0;
    let map = TaskSpec { work_ms: map_ms, input_bytes: split };
    let reduce = match (job.shuffle_bytes.checked_div(reduces), job.output_bytes.checked_div(reduces)) {
        (Some(sh), Some(out)) => TaskSpec { work_ms: 10_000.0 + sh as f64 / 5_000.0 + out as f64 / 10_000.0, input_bytes: sh },
        _ => map.clone(),
    };
    JobSpec {
        submit_ms: (job.submit_s * 1000.0) as Millis,
        maps: vec![map; maps as usize],
        reduces: vec![reduce; reduces as usize],
    }
}

/// A replay scenario: the trace's jobs on `machines` nodes of 2 slots, racks of 40.
pub fn scenario(name: &str, jobs: &[SwimJob], machines: usize, seed: u64, policies: Vec<PolicySpec>) -> Scenario {
    let mut rng = Rng::new(seed);
    let specs: Vec<JobSpec> = jobs.iter().map(job_spec).collect();
    let last = specs.iter().map(|j| j.submit_ms).max().unwrap_or(0);
    let epoch = 15 * 60 * 1000;
    let mut cluster = Cluster::uniform(machines, 2, 40);
    cluster.vary_outlier_probability((last / epoch) as usize + 8, epoch, &mut rng, |r| {
        if r.chance(0.1) { r.uniform(0.2, 0.5) } else { r.uniform(0.0, 0.04) }
    });
    let model = AttemptModel {
        noise: Factor::LogNormal { sigma: 0.2 },
        outlier: Some(Slowdown::mantri()),
        ..AttemptModel::default()
    };
    Scenario {
        name: name.to_owned(),
        description: format!("SWIM replay of {} jobs on {machines} machines × 2 slots (task model in swim.rs)", jobs.len()),
        paper: String::new(),
        cluster,
        jobs: specs,
        model,
        policies,
        report_ms: 10_000,
        net: None,
        copy_phase: 1.0 / 3.0,
        scheduler: Scheduler::Fifo,
    }
}

/// The trace played `times` times back to back, a longer trace of the same workload (the scale
/// test replays four copies of the 5,894-job sample): copy k's jobs are submitted k × the last
/// submission later, so each copy begins as far after the previous one's last job as the trace's
/// first job is after 0, and its ids carry `-k`.
pub fn repeat(jobs: &[SwimJob], times: usize) -> Vec<SwimJob> {
    if times <= 1 {
        return jobs.to_vec();
    }
    let span = jobs.iter().map(|j| j.submit_s).fold(0.0, f64::max);
    (0..times)
        .flat_map(|k| {
            jobs.iter().map(move |j| SwimJob { id: format!("{}-{k}", j.id), submit_s: j.submit_s + k as f64 * span, ..j.clone() })
        })
        .collect()
}

pub fn read(path: &Path) -> Result<Vec<SwimJob>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derives_tasks_like_hadoop() {
        let j = SwimJob { id: "j".into(), submit_s: 1.5, input_bytes: 3 * SPLIT_BYTES + 1, shuffle_bytes: REDUCE_BYTES, output_bytes: 0 };
        let s = job_spec(&j);
        assert_eq!((s.maps.len(), s.reduces.len(), s.submit_ms), (4, 1, 1500));
        let empty = SwimJob { input_bytes: 0, shuffle_bytes: 0, ..j };
        assert_eq!((job_spec(&empty).maps.len(), job_spec(&empty).reduces.len()), (1, 0));
    }

    #[test]
    fn repeats_the_trace_back_to_back() {
        let jobs = parse("a\t5\t5\t1\t0\t0\nb\t20\t15\t2\t0\t0\n").unwrap();
        let four = repeat(&jobs, 4);
        let at: Vec<(String, f64)> = four.iter().map(|j| (j.id.clone(), j.submit_s)).collect();
        assert_eq!(at[..3], [("a-0".into(), 5.0), ("b-0".into(), 20.0), ("a-1".into(), 25.0)]);
        assert_eq!((four.len(), four[7].submit_s, four[7].input_bytes), (8, 80.0, 2));
        assert_eq!(repeat(&jobs, 1), jobs);
    }

    #[test]
    fn rejects_a_short_line() {
        assert!(parse("job0\t1\t1\n").unwrap_err().contains("line 1"));
    }
}
