//! The outlier model against the papers' measurements of what outliers cost (fixed seed).
//!
//! Dolly §2.3: if all outliers were ironed out, small jobs (≤ 10 tasks) would finish 49% sooner.
//! Mantri §2.3 (and its slides): outliers inflate job completion time by 34% at the median.
//! Each is checked within ±25% of the paper's figure, with no mitigation (`none`), by running the
//! scenario once as built and once with its outliers removed (`Scenario::without_outliers`).

use rein_sim::scenario::PolicySpec;
use rein_sim::scenarios;
use rein_sim::sim::{simulate, RunResult};

fn run(name: &str, ideal: bool) -> RunResult {
    let sc = scenarios::build(name, 1).unwrap();
    let sc = if ideal { sc.without_outliers() } else { sc };
    simulate(&sc, &PolicySpec::named("none"), 1, &mut |_, _| {})
}

fn within(x: f64, paper: f64) -> bool {
    (x - paper).abs() <= 0.25 * paper
}

#[test]
fn removing_outliers_speeds_small_jobs_as_dolly_measured() {
    let (real, ideal) = (run("dolly-small", false), run("dolly-small", true));
    let small = |r: &RunResult| {
        let t: Vec<f64> = r.jobs.iter().filter(|j| j.tasks <= 10).map(|j| j.seconds()).collect();
        t.iter().sum::<f64>() / t.len() as f64
    };
    let gain = 1.0 - small(&ideal) / small(&real);
    eprintln!("dolly-small: small jobs {:.1}% faster without outliers (Dolly §2.3: 49%)", gain * 100.0);
    assert!(within(gain, 0.49), "small jobs {:.1}% faster without outliers; Dolly §2.3: 49%", gain * 100.0);
}

#[test]
fn outliers_inflate_the_median_job_as_mantri_measured() {
    let (real, ideal) = (run("mantri-restart", false), run("mantri-restart", true));
    let mut ratios: Vec<f64> = real.jobs.iter().zip(&ideal.jobs).map(|(r, i)| r.seconds() / i.seconds()).collect();
    ratios.sort_by(f64::total_cmp);
    let inflation = ratios[ratios.len() / 2] - 1.0;
    eprintln!("mantri-restart: median job {:.1}% longer with outliers (Mantri: 34%)", inflation * 100.0);
    assert!(within(inflation, 0.34), "median job {:.1}% longer with outliers; Mantri: 34%", inflation * 100.0);
}
