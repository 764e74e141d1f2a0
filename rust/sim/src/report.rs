//! Outputs: `results.json`, `results.md`, and two hand-written SVG plots — the CDF of job time
//! per policy and container-seconds per policy (useful and wasted).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use serde::Serialize;

use crate::metrics::Summary;

#[derive(Clone, Debug, Serialize)]
pub struct Results {
    pub scenario: String,
    pub seed: u64,
    pub description: String,
    pub paper: String,
    /// Policy labels in the order the scenario lists them (the map below is sorted by name).
    pub order: Vec<String>,
    pub policies: BTreeMap<String, Summary>,
}

impl Results {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("results serialise") + "\n"
    }
}

/// Writes results.json, results.md, job_cdf.svg and resources.svg into `dir`.
pub fn write_all(dir: &Path, results: &Results, job_seconds: &BTreeMap<String, Vec<f64>>) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("results.json"), results.to_json())?;
    std::fs::write(dir.join("results.md"), markdown(results))?;
    std::fs::write(dir.join("job_cdf.svg"), cdf_svg(results, job_seconds))?;
    std::fs::write(dir.join("resources.svg"), resources_svg(results))?;
    Ok(())
}

pub fn markdown(r: &Results) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {} (seed {})\n", r.scenario, r.seed);
    let _ = writeln!(s, "{}\n", r.description);
    if !r.paper.is_empty() {
        let _ = writeln!(s, "Paper: {}\n", r.paper);
    }
    let _ = writeln!(
        s,
        "| policy | jobs | mean s | p50 s | p75 s | p99 s | small-job mean s | container-s | wasted container-s | spec launched | spec won | restarts | clones |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for label in &r.order {
        let Some(p) = r.policies.get(label) else { continue };
        let _ = writeln!(
            s,
            "| {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {:.0} | {:.0} | {} | {} | {} | {} |",
            label,
            p.jobs,
            p.mean_job_seconds,
            p.p50_job_seconds,
            p.p75_job_seconds,
            p.p99_job_seconds,
            p.small_jobs_mean_seconds.map_or("–".to_owned(), |x| format!("{x:.1}")),
            p.container_seconds,
            p.wasted_container_seconds,
            p.speculative_launched,
            p.speculative_won,
            p.restarts,
            p.clones
        );
    }
    s.push_str("\nPlots: [job time CDF](job_cdf.svg), [container-seconds](resources.svg).\n");
    s
}

const COLORS: [&str; 10] =
    ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// "Nice" tick values covering [lo, hi] for a linear axis.
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-9);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| span / s <= 6.0).unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + 1e-9 {
        out.push(t);
        t += step;
    }
    out
}

fn fmt_num(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.1}M", x / 1e6)
    } else if x >= 1e4 {
        format!("{:.0}k", x / 1e3)
    } else if x >= 10.0 || x == x.round() {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

pub fn cdf_svg(r: &Results, job_seconds: &BTreeMap<String, Vec<f64>>) -> String {
    let (w, h, l, rt, t, b) = (760.0, 460.0, 70.0, 170.0, 40.0, 60.0);
    let (pw, ph) = (w - l - rt, h - t - b);
    let all: Vec<f64> = job_seconds.values().flatten().copied().filter(|x| *x > 0.0).collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min).max(1e-3);
    let hi = all.iter().copied().fold(0.0, f64::max).max(lo * 1.01);
    // Job times are heavy-tailed: use a log axis when they span more than two decades.
    let log = hi / lo > 100.0;
    let (xlo, xhi) = if log { (lo.log10().floor(), hi.log10().ceil()) } else { (0.0, hi) };
    let x_of = |v: f64| {
        let v = if log { v.max(lo).log10() } else { v };
        l + (v - xlo) / (xhi - xlo).max(1e-9) * pw
    };
    let y_of = |p: f64| t + ph - p * ph;
    let mut s = String::new();
    let _ = writeln!(s, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#);
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(s, r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}: CDF of job time</text>"#, l + pw / 2.0, esc(&r.scenario));
    // Grid and axes.
    for p in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let y = y_of(p);
        let _ = writeln!(s, r##"<line x1="{l}" y1="{y}" x2="{}" y2="{y}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">{p:.2}</text>"##, l + pw, l - 6.0, y + 4.0);
    }
    let xticks: Vec<f64> = if log { (xlo as i32..=xhi as i32).map(|e| 10f64.powi(e)).collect() } else { linear_ticks(0.0, hi) };
    for v in xticks {
        let x = x_of(v);
        let _ = writeln!(s, r##"<line x1="{x}" y1="{t}" x2="{x}" y2="{}" stroke="#eee"/><text x="{x}" y="{}" text-anchor="middle">{}</text>"##, t + ph, t + ph + 16.0, fmt_num(v));
    }
    let _ = writeln!(s, r#"<rect x="{l}" y="{t}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#);
    let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="middle">job time, seconds{}</text>"#, l + pw / 2.0, h - 15.0, if log { " (log scale)" } else { "" });
    let _ = writeln!(s, r#"<text x="18" y="{}" text-anchor="middle" transform="rotate(-90 18 {})">fraction of jobs</text>"#, t + ph / 2.0, t + ph / 2.0);
    for (i, label) in r.order.iter().enumerate() {
        let Some(xs) = job_seconds.get(label) else { continue };
        let color = COLORS[i % COLORS.len()];
        let mut sorted = xs.clone();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len().max(1) as f64;
        // A step function, thinned to at most ~600 steps so big runs stay light.
        let stride = (sorted.len() / 600).max(1);
        let mut d = format!("M{:.1},{:.1}", x_of(sorted.first().copied().unwrap_or(lo)), y_of(0.0));
        for (k, v) in sorted.iter().enumerate() {
            if k % stride != 0 && k + 1 != sorted.len() {
                continue;
            }
            let _ = write!(d, " H{:.1} V{:.1}", x_of(*v), y_of((k + 1) as f64 / n));
        }
        let _ = writeln!(s, r#"<path d="{d}" fill="none" stroke="{color}" stroke-width="2"/>"#);
        let ly = t + 14.0 + i as f64 * 18.0;
        let _ = writeln!(s, r#"<line x1="{}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#, l + pw + 10.0, l + pw + 30.0, l + pw + 36.0, ly + 4.0, esc(label));
    }
    s.push_str("</svg>\n");
    s
}

pub fn resources_svg(r: &Results) -> String {
    let n = r.order.len().max(1) as f64;
    let (l, rt, t, b) = (80.0, 20.0, 40.0, 110.0);
    let pw = (n * 70.0).max(300.0);
    let (w, h) = (l + pw + rt, 460.0);
    let ph = h - t - b;
    let max = r.policies.values().map(|p| p.container_seconds).fold(0.0, f64::max).max(1.0);
    let ticks = linear_ticks(0.0, max);
    let top = ticks.last().copied().unwrap_or(max).max(max);
    let y_of = |v: f64| t + ph - v / top * ph;
    let mut s = String::new();
    let _ = writeln!(s, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#);
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(s, r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}: container-seconds per policy</text>"#, l + pw / 2.0, esc(&r.scenario));
    for v in &ticks {
        let y = y_of(*v);
        let _ = writeln!(s, r##"<line x1="{l}" y1="{y}" x2="{}" y2="{y}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">{}</text>"##, l + pw, l - 6.0, y + 4.0, fmt_num(*v));
    }
    let _ = writeln!(s, r#"<text x="16" y="{}" text-anchor="middle" transform="rotate(-90 16 {})">container-seconds</text>"#, t + ph / 2.0, t + ph / 2.0);
    let slot = pw / n;
    for (i, label) in r.order.iter().enumerate() {
        let Some(p) = r.policies.get(label) else { continue };
        let x = l + i as f64 * slot + slot * 0.2;
        let bw = slot * 0.6;
        let useful = p.container_seconds - p.wasted_container_seconds;
        let color = COLORS[i % COLORS.len()];
        let _ = writeln!(s, r#"<rect x="{x:.1}" y="{:.1}" width="{bw:.1}" height="{:.1}" fill="{color}"><title>{}: {:.0} useful</title></rect>"#, y_of(useful), ph - (y_of(useful) - t), esc(label), useful);
        let _ = writeln!(s, r##"<rect x="{x:.1}" y="{:.1}" width="{bw:.1}" height="{:.1}" fill="#999" fill-opacity="0.6"><title>{}: {:.0} wasted</title></rect>"##, y_of(p.container_seconds), y_of(useful) - y_of(p.container_seconds), esc(label), p.wasted_container_seconds);
        let cx = x + bw / 2.0;
        let _ = writeln!(s, r#"<text x="{cx:.1}" y="{:.1}" text-anchor="middle" font-size="10">{}</text>"#, y_of(p.container_seconds) - 4.0, fmt_num(p.container_seconds));
        let ly = t + ph + 12.0;
        let _ = writeln!(s, r#"<text x="{cx:.1}" y="{ly:.1}" text-anchor="end" transform="rotate(-40 {cx:.1} {ly:.1})">{}</text>"#, esc(label));
    }
    let _ = writeln!(s, r#"<rect x="{l}" y="{t}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#);
    let _ = writeln!(s, r##"<rect x="{}" y="{}" width="12" height="12" fill="#999" fill-opacity="0.6"/><text x="{}" y="{}">wasted (killed or lost attempts)</text>"##, l, h - 22.0, l + 18.0, h - 12.0);
    s.push_str("</svg>\n");
    s
}

/// One attempt of a Gantt chart: on `row` (a node) from `start_s` to `end_s`; `outcome` 0
/// succeeded, 1 killed, 2 failed, 3 unfinished; `copy` if rein asked for it.
pub struct GanttBar {
    pub row: String,
    pub start_s: f64,
    pub end_s: f64,
    pub label: String,
    pub outcome: u8,
    pub copy: bool,
}

/// Attempts per node as bars over job time; each row is labelled with its node's slowdown and
/// the slowest node (≥ 1.5× the median) is drawn in red; `marks` are decisions (time, label).
pub fn gantt_svg(title: &str, rows: &[(String, f64)], bars: &[GanttBar], marks: &[(f64, String)]) -> String {
    let (l, rt, t, b, lane) = (170.0, 20.0, 40.0, 70.0, 14.0);
    // Attempts of one node that overlap go on sub-lanes of its row.
    let mut lanes: Vec<(usize, usize)> = Vec::with_capacity(bars.len());
    let mut row_lanes: Vec<Vec<f64>> = vec![Vec::new(); rows.len()];
    let mut order: Vec<usize> = (0..bars.len()).collect();
    order.sort_by(|&a, &b| bars[a].start_s.total_cmp(&bars[b].start_s));
    lanes.resize(bars.len(), (0, 0));
    for i in order {
        let r = rows.iter().position(|(n, _)| *n == bars[i].row).unwrap_or(0);
        let ends = &mut row_lanes[r];
        let k = ends.iter().position(|e| *e <= bars[i].start_s).unwrap_or(ends.len());
        if k == ends.len() {
            ends.push(0.0);
        }
        ends[k] = bars[i].end_s;
        lanes[i] = (r, k);
    }
    let row_h: Vec<f64> = row_lanes.iter().map(|v| v.len().max(1) as f64 * lane + 6.0).collect();
    let row_y: Vec<f64> = row_h.iter().scan(t, |y, h| {
        let at = *y;
        *y += h;
        Some(at)
    }).collect();
    let ph: f64 = row_h.iter().sum::<f64>().max(lane);
    let hi = bars.iter().map(|b| b.end_s).chain(marks.iter().map(|m| m.0)).fold(1.0, f64::max);
    let pw = 760.0;
    let (w, h) = (l + pw + rt, t + ph + b);
    let x_of = |v: f64| l + v.max(0.0) / hi * pw;
    let mut s = String::new();
    let _ = writeln!(s, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#);
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(s, r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}: attempts per node</text>"#, l + pw / 2.0, esc(title));
    for v in linear_ticks(0.0, hi) {
        let x = x_of(v);
        let _ = writeln!(s, r##"<line x1="{x}" y1="{t}" x2="{x}" y2="{}" stroke="#eee"/><text x="{x}" y="{}" text-anchor="middle">{}</text>"##, t + ph, t + ph + 14.0, fmt_num(v));
    }
    for (i, (name, slowdown)) in rows.iter().enumerate() {
        let slow = *slowdown >= 1.5;
        let color = if slow { "#d62728" } else { "black" };
        let _ = writeln!(s, r#"<text x="{}" y="{:.1}" text-anchor="end" fill="{color}">{} ×{slowdown:.1}</text>"#, l - 6.0, row_y[i] + row_h[i] / 2.0 + 4.0, esc(name));
        if slow {
            let _ = writeln!(s, r##"<rect x="{l}" y="{:.1}" width="{pw}" height="{:.1}" fill="#d62728" fill-opacity="0.06"/>"##, row_y[i], row_h[i]);
        }
    }
    for (bar, (r, k)) in bars.iter().zip(&lanes) {
        let y = row_y[*r] + 3.0 + *k as f64 * lane;
        let fill = ["#2ca02c", "#999999", "#ff7f0e", "#1f77b4"][bar.outcome.min(3) as usize];
        let stroke = if bar.copy { r#" stroke="black" stroke-width="2""# } else { "" };
        let _ = writeln!(s, r#"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{fill}"{stroke}><title>{}</title></rect>"#,
            x_of(bar.start_s), (x_of(bar.end_s) - x_of(bar.start_s)).max(1.0), lane - 3.0, esc(&bar.label));
    }
    for (at, label) in marks {
        let x = x_of(*at);
        let _ = writeln!(s, r##"<line x1="{x:.1}" y1="{t}" x2="{x:.1}" y2="{}" stroke="#9467bd" stroke-dasharray="3,3"><title>{}</title></line>"##, t + ph, esc(label));
    }
    let _ = writeln!(s, r#"<rect x="{l}" y="{t}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#);
    let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="middle">job time, seconds</text>"#, l + pw / 2.0, t + ph + 32.0);
    let legend = [("#2ca02c", "succeeded"), ("#999999", "killed"), ("#ff7f0e", "failed"), ("#1f77b4", "unfinished")];
    for (i, (c, what)) in legend.iter().enumerate() {
        let x = l + i as f64 * 110.0;
        let _ = writeln!(s, r#"<rect x="{x}" y="{}" width="12" height="10" fill="{c}"/><text x="{}" y="{}">{what}</text>"#, h - 20.0, x + 16.0, h - 11.0);
    }
    let _ = writeln!(s, r##"<text x="{}" y="{}">black outline: rein's copy · dashed: rein's decision · red row: slow node</text>"##, l + 440.0, h - 11.0);
    s.push_str("</svg>\n");
    s
}
