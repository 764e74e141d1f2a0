//! The headline result of each experiment in EVALUATION.md beside rein-sim's number, in the
//! paper's own metric: `rein-sim reproduce` prints the table, and `tests/reproduce.rs` asserts
//! each row's direction and, where the model reproduces it, its magnitude within ±25%.
//!
//! Metrics, as each paper states them:
//! - LATE (§5): "x% faster" = t_baseline / t_LATE − 1;
//! - Mantri (§6), Dolly (§3.3), SCA / ESE (§IV-C, §V-C): the reduction, 1 − t_policy / t_baseline.

use crate::metrics::Summary;
use crate::run_scenario;
use crate::scenario::PolicySpec;
use crate::scenarios;
use crate::sim::simulate;

/// One headline number: the paper's and ours.
#[derive(Clone, Debug)]
pub struct Row {
    pub id: &'static str,
    pub claim: &'static str,
    /// How the number is computed, in the paper's metric.
    pub metric: &'static str,
    pub paper: f64,
    pub ours: f64,
    /// Where the magnitude is not reproduced: the ablation or modelled difference that explains it.
    pub gap: Option<String>,
    pub check: Check,
}

/// What a claim asks of our number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// A magnitude: same sign, within ±25% of the paper's.
    Magnitude,
    /// Parity ("about equal"): within ±5 points of zero.
    Parity,
    /// A direction only ("fewer resources"): positive.
    Positive,
}

impl Row {
    /// Same direction as the paper's claim.
    pub fn direction_ok(&self) -> bool {
        match self.check {
            Check::Magnitude => self.ours.signum() == self.paper.signum(),
            Check::Parity => self.ours.abs() <= 0.1,
            Check::Positive => self.ours > 0.0,
        }
    }

    /// Within ±25% of the paper's magnitude (parity: within 5 points).
    pub fn within_tolerance(&self) -> bool {
        match self.check {
            Check::Magnitude => (self.ours - self.paper).abs() <= 0.25 * self.paper.abs(),
            Check::Parity => self.ours.abs() <= 0.05,
            Check::Positive => self.ours > 0.0,
        }
    }
}

fn late_faster(base: f64, t: f64) -> f64 {
    base / t - 1.0
}

fn reduction(base: f64, t: f64) -> f64 {
    1.0 - t / base
}

fn run(name: &str, seed: u64) -> std::collections::BTreeMap<String, Summary> {
    let sc = scenarios::build(name, seed).expect("built-in scenario");
    run_scenario(&sc, None, seed, &mut |_, _, _| {}, &mut |_| {}).0.policies
}

/// Small-job mean under `none` with every outlier ironed out: the bound any policy can reach.
fn ideal_small_jobs(name: &str, seed: u64) -> f64 {
    let sc = scenarios::build(name, seed).expect("built-in scenario").without_outliers();
    Summary::of(&simulate(&sc, &PolicySpec::named("none"), seed, &mut |_, _| {})).small_jobs_mean_seconds.unwrap_or(0.0)
}

/// The rows of the quick experiments (seconds in a release build).
pub fn quick(seed: u64) -> Vec<Row> {
    let mut rows = Vec::new();
    let s = run("late-sleep-cap", seed);
    rows.push(Row {
            check: Check::Magnitude,
        id: "late-sleep",
        claim: "native 247 s vs none 745 s (none 3.0× native)",
        metric: "t_none / t_native",
        paper: 745.0 / 247.0,
        ours: s["none"].mean_job_seconds / s["hadoop"].mean_job_seconds,
        gap: None,
    });
    rows.push(Row {
            check: Check::Magnitude,
        id: "late-sleep-cap",
        claim: "LATE best from SpeculativeCap ≥ 20% (cap 20% vs 10%)",
        metric: "t_cap10% / t_cap20% − 1",
        paper: 0.3,
        ours: late_faster(s["late cap=0.1"].mean_job_seconds, s["late cap=0.2"].mean_job_seconds),
        gap: None,
    });
    let h = run("late-hetero", seed);
    rows.push(Row {
            check: Check::Magnitude,
        id: "late-hetero",
        claim: "LATE 27% faster than native",
        metric: "t_native / t_LATE − 1 (mean)",
        paper: 0.27,
        ours: late_faster(h["hadoop"].mean_job_seconds, h["late"].mean_job_seconds),
        gap: Some("the baseline is Hadoop 3's capped DefaultSpeculator, not 2008's uncapped native one".into()),
    });
    rows.push(Row {
            check: Check::Magnitude,
        id: "late-hetero",
        claim: "LATE 31% faster than no speculation",
        metric: "t_none / t_LATE − 1 (mean)",
        paper: 0.31,
        ours: late_faster(h["none"].mean_job_seconds, h["late"].mean_job_seconds),
        gap: None,
    });
    let st = run("late-stragglers", seed);
    for (base, paper, claim) in [("hadoop", 0.58, "LATE 58% faster than native"), ("none", 2.2, "LATE 220% faster than no speculation")] {
        rows.push(Row {
            check: Check::Magnitude,
            id: "late-stragglers",
            claim,
            metric: "t_base / t_LATE − 1 (mean)",
            paper,
            ours: late_faster(st[base].mean_job_seconds, st["late"].mean_job_seconds),
            gap: Some("most of the job's time is on the 1–8-VMs-per-host nodes (no policy fixes those); the stragglers are at 1/5 speed, not the paper's measured job-wide 2–4×".into()),
        });
    }
    let m = run("mantri-restart", seed);
    for (q, paper) in [("p50", 0.21), ("p75", 0.42)] {
        let pick = |s: &Summary| if q == "p50" { s.p50_job_seconds } else { s.p75_job_seconds };
        rows.push(Row {
            check: Check::Magnitude,
            id: "mantri-restart",
            claim: if q == "p50" { "jobs 21% faster at p50 than no mitigation" } else { "jobs 42% faster at p75 than no mitigation" },
            metric: "1 − t_mantri / t_none",
            paper,
            ours: reduction(pick(&m["none"]), pick(&m["mantri"])),
            gap: None,
        });
        let without = reduction(pick(&m["none"]), pick(&m["mantri w/o §5.4"]));
        if let Some(row) = rows.last_mut().filter(|r| !r.within_tolerance()) {
            row.gap = Some(format!(
                "§5.4's largest-input-first order (which the 2010 evaluation's Mantri had): without it, `mantri w/o §5.4` in the same run gains {without:.3}; on this seed the order moves the median job later"
            ));
        }
    }
    let next_best = ["hadoop", "late", "mapreduce", "dryad"]
        .iter()
        .map(|p| reduction(m["none"].p50_job_seconds, m[*p].p50_job_seconds))
        .fold(f64::MIN, f64::max);
    rows.push(Row {
            check: Check::Magnitude,
        id: "mantri-restart",
        claim: "3.1× the median gain of the next best scheme",
        metric: "gain_mantri / gain_next-best (p50)",
        paper: 3.1,
        ours: reduction(m["none"].p50_job_seconds, m["mantri"].p50_job_seconds) / next_best,
        gap: Some("the next best here is today's DefaultSpeculator or the Dryad rule, far stronger than the 2010 baselines; Dryad pays +35% container-s for it".into()),
    });
    rows.push(Row {
            check: Check::Positive,
        id: "mantri-restart",
        claim: "fewer resources than no mitigation",
        metric: "1 − container-s_mantri / container-s_none",
        paper: 0.0,
        ours: reduction(m["none"].container_seconds, m["mantri"].container_seconds),
        gap: None,
    });
    let p = run("mantri-placement", seed);
    rows.push(Row {
            check: Check::Magnitude,
        id: "mantri-placement",
        claim: "reduce phases up to 60% faster than first-free placement",
        metric: "1 − t_netaware / t_first-free (p50 job)",
        paper: 0.6,
        ours: reduction(p["mantri first-free"].p50_job_seconds, p["mantri+netaware"].p50_job_seconds),
        gap: Some("jobs, not reduce phases; a shuffle's bandwidth is fixed at its start; the engine's per-job §5.2 moves gain nothing on an even spread".into()),
    });
    let r = run("mantri-recompute", seed);
    rows.push(Row {
            check: Check::Parity,
        id: "mantri-recompute",
        claim: "parity with IdealRecompute",
        metric: "t_mantri / t_ideal − 1 (mean)",
        paper: 0.0,
        ours: r["mantri"].mean_job_seconds / r["ideal"].mean_job_seconds - 1.0,
        gap: None,
    });
    let d = run("dolly-small", seed);
    let ideal = ideal_small_jobs("dolly-small", seed);
    let small = |p: &str| d[p].small_jobs_mean_seconds.unwrap_or(0.0);
    for (base, paper) in [("late", 0.47), ("mantri", 0.39)] {
        rows.push(Row {
            check: Check::Magnitude,
            id: "dolly-small",
            claim: if base == "late" { "small jobs 47% faster than LATE" } else { "small jobs 39% faster than Mantri" },
            metric: "1 − t_dolly / t_base (small-job mean)",
            paper,
            ours: reduction(small(base), small("dolly")),
            gap: Some(format!(
                "ablation `--no-outliers`: with every outlier removed small jobs average {ideal:.1} s, so no policy can be more than {:.0}% faster than {base} ({:.1} s) here; Dolly §2.3's 49% potential is over a LATE-run cluster whose small jobs LATE barely helps",
                100.0 * reduction(small(base), ideal),
                small(base)
            )),
        });
    }
    rows
}

/// The rows of the SCA/ESE trace experiments (minutes in a release build).
pub fn trace(seed: u64) -> Vec<Row> {
    let mut rows = Vec::new();
    let s = run("sca-light", seed);
    let base = "mantri dup-only";
    rows.push(Row {
            check: Check::Magnitude,
        id: "sca-light",
        claim: "flowtime −22% vs Mantri (duplicate-only, Xu & Lau's baseline)",
        metric: "1 − flowtime_sca / flowtime_mantri",
        paper: 0.22,
        ours: reduction(s[base].mean_job_seconds, s["sca"].mean_job_seconds),
        gap: None,
    });
    rows.push(Row {
            check: Check::Magnitude,
        id: "sca-light",
        claim: "resource +20% vs Mantri",
        metric: "container-s_sca / container-s_mantri − 1",
        paper: 0.2,
        ours: s["sca"].container_seconds / s[base].container_seconds - 1.0,
        gap: None,
    });
    let e = run("ese-heavy", seed);
    rows.push(Row {
            check: Check::Magnitude,
        id: "ese-heavy",
        claim: "flowtime −35% vs Mantri (duplicate-only)",
        metric: "1 − flowtime_ese / flowtime_mantri",
        paper: 0.35,
        ours: reduction(e[base].mean_job_seconds, e["ese"].mean_job_seconds),
        gap: Some("the 6,000 slots are saturated only while the trace arrives; see REPRODUCTION.md".into()),
    });
    rows.push(Row {
            check: Check::Parity,
        id: "ese-heavy",
        claim: "at equal resource",
        metric: "container-s_ese / container-s_mantri − 1",
        paper: 0.0,
        ours: e["ese"].container_seconds / e[base].container_seconds - 1.0,
        gap: Some("ESE spends less than the duplicate-only Mantri here, not the same: with the job's prior E[x] its σ·E[x] bar backs up fewer tasks; the flowtime gain is small for the reason above".into()),
    });
    rows
}

/// The table: paper and ours side by side, with a verdict and, for gaps, the explanation.
pub fn markdown(rows: &[Row]) -> String {
    let mut t = String::from("| id | the paper's result | metric | paper | rein-sim | verdict |\n|---|---|---|---:|---:|---|\n");
    for r in rows {
        let verdict = match (r.direction_ok(), r.within_tolerance()) {
            (true, true) => "within ±25%".to_string(),
            (true, false) => format!("direction right, magnitude off: {}", r.gap.as_deref().unwrap_or("not explained")),
            (false, _) => format!("wrong direction: {}", r.gap.as_deref().unwrap_or("not explained")),
        };
        t.push_str(&format!("| {} | {} | {} | {:.3} | {:.3} | {} |\n", r.id, r.claim, r.metric, r.paper, r.ours, verdict));
    }
    t
}
