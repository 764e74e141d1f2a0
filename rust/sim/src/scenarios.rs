//! Built-in scenarios, one per experiment in EVALUATION.md's "Reproducing the papers" table.
//!
//! Each builds its cluster and workload from the seed. The numbers come from the papers where
//! the papers give them (cited per scenario); where they do not, the choice is stated in a comment.
//! No policy is tuned to a scenario: every policy runs with its paper defaults, except where the
//! experiment itself is a sweep of a policy's parameter.

use rein_core::Millis;

use crate::cluster::{Cluster, Window};
use crate::rng::{BoundedPareto, Rng};
use crate::scenario::{NetModel, Placement, PolicySpec, Scenario, Scheduler, SimOptions};
use crate::workload::{AttemptModel, Factor, JobSpec, Slowdown, TaskSpec};

const MIB: u64 = 1 << 20;
const SEC: Millis = 1000;

/// Every built-in scenario name, in the order `list` prints them.
pub const NAMES: &[&str] = &[
    "tiny",
    "late-sleep",
    "late-sleep-cap",
    "late-sleep-slowtask",
    "late-sleep-slownode",
    "late-hetero",
    "late-stragglers",
    "mantri-restart",
    "mantri-placement",
    "mantri-recompute",
    "dolly-small",
    "sca-light",
    "ese-heavy",
    "late-hetero-copy-phase",
    "late-stragglers-slow",
    "ese-heavy-saturated",
    "late-stragglers-tenth",
];

pub fn build(name: &str, seed: u64) -> Option<Scenario> {
    Some(match name {
        "tiny" => tiny(seed),
        "late-sleep" => late_sleep(seed, "late-sleep", vec![PolicySpec::named("late")]),
        "late-sleep-cap" => late_sleep(
            seed,
            "late-sleep-cap",
            [0.025, 0.05, 0.1, 0.2, 0.5, 1.0].iter().map(|c| late_with("speculative-cap", *c, &[])).collect(),
        ),
        "late-sleep-slowtask" => late_sleep(
            seed,
            "late-sleep-slowtask",
            [0.05, 0.1, 0.25, 0.5, 0.75, 1.0]
                .iter()
                .map(|v| late_with("slow-task-threshold", *v, &[("rein.late.speculative-cap", "0.2")]))
                .collect(),
        ),
        "late-sleep-slownode" => late_sleep(
            seed,
            "late-sleep-slownode",
            [0.05, 0.1, 0.25, 0.5]
                .iter()
                .map(|v| late_with("slow-node-threshold", *v, &[("rein.late.speculative-cap", "0.2")]))
                .collect(),
        ),
        "late-hetero" => late_hetero(seed),
        "late-hetero-copy-phase" => late_hetero_copy_phase(seed),
        "late-stragglers" => late_stragglers(seed),
        "late-stragglers-slow" => late_stragglers_slow(seed),
        "late-stragglers-tenth" => late_stragglers_tenth(seed),
        "mantri-restart" => mantri_restart(seed),
        "mantri-placement" => mantri_placement(seed),
        "mantri-recompute" => mantri_recompute(seed),
        "dolly-small" => dolly_small(seed),
        "sca-light" => sca_trace(seed, "sca-light", 12_000),
        "ese-heavy" => sca_trace(seed, "ese-heavy", 6_000),
        "ese-heavy-saturated" => ese_saturated(seed),
        _ => return None,
    })
}

fn policies(names: &[&str]) -> Vec<PolicySpec> {
    names.iter().map(|n| PolicySpec::named(n)).collect()
}

/// LATE with one parameter set, labelled `late <param>=<value>`.
fn late_with(param: &str, value: f64, extra: &[(&str, &str)]) -> PolicySpec {
    let short = match param {
        "speculative-cap" => "cap",
        "slow-task-threshold" => "slowtask",
        _ => "slownode",
    };
    // LATE §5.4's sensitivity sweeps vary the paper's own parameters: the cap must not be raised
    // to cover the slow nodes behind the sweep's back.
    let mut p = PolicySpec::named("late")
        .with(&format!("rein.late.{param}"), &value.to_string())
        .with("rein.late.cap-covers-slow-nodes", "false");
    for (k, v) in extra {
        p = p.with(k, v);
    }
    p.label(format!("late {short}={value}"))
}

/// LATE as LATE §4 prints it, without rein's adaptations (`rein.late.*` keys marked "(rein)" and
/// GRASS): the LATE that LATE §5, Mantri §6.2 and Dolly §3.3 ran.
pub fn late_as_printed() -> PolicySpec {
    PolicySpec::named("late")
        .with("rein.late.grass", "false")
        .with("rein.late.first-progress-factor", "0")
        .with("rein.late.reduce-waits-for-maps", "false")
        .with("rein.late.rate-pool", "all")
        .with("rein.late.cap-covers-slow-nodes", "false")
        .label("late as printed")
}

fn base(name: &str, cluster: Cluster, jobs: Vec<JobSpec>, model: AttemptModel, policies: Vec<PolicySpec>) -> Scenario {
    Scenario {
        name: name.to_owned(),
        description: String::new(),
        paper: String::new(),
        cluster,
        jobs,
        model,
        policies,
        report_ms: 10 * SEC,
        net: None,
        copy_phase: 1.0 / 3.0,
        scheduler: Scheduler::Fifo,
    }
}

fn tasks(n: usize, work_ms: f64, bytes: u64) -> Vec<TaskSpec> {
    (0..n).map(|_| TaskSpec { work_ms, input_bytes: bytes }).collect()
}

/// Poisson arrivals: `n` submit times with mean gap `duration / n`.
fn poisson(rng: &mut Rng, n: usize, duration_ms: f64) -> Vec<Millis> {
    let mut t = 0.0;
    (0..n)
        .map(|_| {
            t += rng.exp(duration_ms / n as f64);
            t as Millis
        })
        .collect()
}

/// A handful of nodes and two small jobs: quick enough for unit tests in debug builds.
fn tiny(seed: u64) -> Scenario {
    let mut rng = Rng::new(seed);
    let mut cluster = Cluster::uniform(8, 2, 4);
    cluster.nodes[7].speed = 0.2;
    let jobs = (0..3)
        .map(|i| JobSpec { submit_ms: i * 200 * SEC, maps: tasks(12, 20_000.0, 128 * MIB), reduces: tasks(4, 40_000.0, 256 * MIB) })
        .collect();
    let model = AttemptModel { noise: Factor::LogNormal { sigma: 0.2 }, ..AttemptModel::default() };
    let _ = rng.next_u64();
    let mut sc = base("tiny", cluster, jobs, model, policies(&["none", "hadoop", "late", "mantri", "dolly", "sca", "ese", "auto"]));
    sc.description = "8 nodes × 2 slots, one 5× slower; three jobs of 12 maps (20 s) and 4 reduces (40 s).".into();
    sc
}

/// LATE §5.4: 40 machines, most at slowdown 1 or 1.5, five at 3, one at 10; a 15 s map phase and
/// reduces that sleep 100 times U(0, 2t), t = 0.7 s × slowdown (70 s on a nominal machine).
/// Two slots per machine (LATE §5: Hadoop's default of 2 mappers and 2 reducers, pooled here);
/// one map and one reduce per slot, so every machine, the 10× one included, runs reduces.
/// The job is repeated five times (the paper repeats each point 5 times), far enough apart not
/// to overlap.
fn late_sleep(seed: u64, name: &str, mut sweep: Vec<PolicySpec>) -> Scenario {
    let mut rng = Rng::new(seed);
    let mut cluster = Cluster::uniform(40, 2, 20);
    let mut slowdowns: Vec<f64> = (0..40).map(|i| if i < 17 { 1.0 } else if i < 34 { 1.5 } else if i < 39 { 3.0 } else { 10.0 }).collect();
    // Which machines are slow is the seed's choice.
    for i in (1..slowdowns.len()).rev() {
        slowdowns.swap(i, rng.below(i + 1));
    }
    for (n, s) in cluster.nodes.iter_mut().zip(&slowdowns) {
        n.speed = 1.0 / s;
    }
    let jobs = (0..5)
        .map(|i| JobSpec { submit_ms: i * 2000 * SEC, maps: tasks(80, 15_000.0, 64 * MIB), reduces: tasks(80, 70_000.0, 64 * MIB) })
        .collect();
    // The sum of 100 U(0, 2t) has a coefficient of variation of 1/√300 ≈ 0.058.
    let model = AttemptModel { noise: Factor::LogNormal { sigma: 0.058 }, slow_maps: false, ..AttemptModel::default() };
    let mut pols = policies(&["none", "hadoop"]);
    pols.append(&mut sweep);
    let mut sc = base(name, cluster, jobs, model, pols);
    sc.description = "LATE §5.4 sleep job: 40 nodes × 2 slots (slowdowns 1/1.5, five at 3, one at 10), 80 maps of 15 s, 80 reduces of 70 s × slowdown; 5 runs.".into();
    sc.paper = "native 247 s, no speculation 745 s; LATE best from SpeculativeCap ≥ 20%; SlowTaskThreshold ≥ 25% works well; SlowNodeThreshold made no difference".into();
    sc
}

/// Disk write speed relative to an unshared host, by VMs per host (LATE Table 2: 61.8, 56.5,
/// 53.6, 46.4, 34.2, 25.4, 24.8 MB/s); 8 VMs/host (LATE §5.2.2) extrapolated.
const VM_SPEED: [f64; 8] = [1.0, 0.914, 0.867, 0.751, 0.553, 0.411, 0.401, 0.38];

/// A Sort job's tasks: maps of `map_s` and reduces of `reduce_s`, nominal.
fn sort_job(submit_ms: Millis, maps: usize, reduces: usize, map_s: f64, reduce_s: f64) -> JobSpec {
    JobSpec { submit_ms, maps: tasks(maps, map_s * 1000.0, 64 * MIB), reduces: tasks(reduces, reduce_s * 1000.0, 64 * MIB) }
}

/// LATE §5.2.1: 243 VMs at 1–7 VMs per host (Table 3: 40, 40, 45, 40, 40, 24, 14 VMs per level),
/// each VM as fast as its host's disk share (Table 2); Sort with 486 maps and 437 reduces; six runs.
/// Task times (40 s maps, 120 s reduces) are rein's choice for a ~5-minute job (LATE §5).
fn late_hetero(seed: u64) -> Scenario {
    let mut rng = Rng::new(seed);
    let counts = [40, 40, 45, 40, 40, 24, 14];
    let mut speeds: Vec<f64> = counts.iter().enumerate().flat_map(|(lvl, c)| std::iter::repeat(VM_SPEED[lvl]).take(*c)).collect();
    for i in (1..speeds.len()).rev() {
        speeds.swap(i, rng.below(i + 1));
    }
    let mut cluster = Cluster::uniform(speeds.len(), 2, 20);
    for (n, s) in cluster.nodes.iter_mut().zip(&speeds) {
        n.speed = *s;
    }
    let jobs = (0..6).map(|i| sort_job(i * 3000 * SEC, 486, 437, 40.0, 120.0)).collect();
    // Table 2's standard deviations are 10–20% of the mean write speed.
    let model = AttemptModel { noise: Factor::LogNormal { sigma: 0.15 }, ..AttemptModel::default() };
    let mut sc = base("late-hetero", cluster, jobs, model, policies(&["none", "hadoop", "native-2008", "late", "auto"]));
    sc.description = "LATE §5.2.1: 243 VMs (Table 3 mix, Table 2 speeds) × 2 slots; Sort, 486 maps / 437 reduces; 6 runs.".into();
    sc.paper = "LATE 27% faster than Hadoop native, 31% faster than no speculation".into();
    sc
}

/// Ablation of late-hetero for LATE §3.2's assumption 4: a reduce's copy phase takes two thirds
/// of its time yet counts for a third of its score, so once the first reduces leave it the
/// average score jumps and the native rule takes the rest for stragglers.
fn late_hetero_copy_phase(seed: u64) -> Scenario {
    let mut sc = late_hetero(seed);
    sc.name = "late-hetero-copy-phase".into();
    sc.copy_phase = 2.0 / 3.0;
    sc.policies = policies(&["none", "hadoop", "native-2008", "late"]);
    sc.description = "late-hetero with reduces spending two thirds of their time in the copy phase (a third of the score; LATE §3.2, assumption 4).".into();
    sc
}

/// LATE §5.2.2: 100 VMs, 8 of them slowed by background CPU and disk load, the rest at 1–8 VMs per
/// host (about 10 per level); Sort of 256 MB per host (400 maps of 64 MB); four runs. The
/// stragglers' speed (one fifth) is rein's reading of "2 to 4 times slower" job-wide without speculation.
fn late_stragglers(seed: u64) -> Scenario {
    late_stragglers_at(seed, 0.2)
}

/// Ablation of late-stragglers: the stragglers as slow as the paper measured them job-wide (no
/// speculation 2–4× slower than LATE, LATE §5.2.2), which takes them at a twentieth of their
/// speed in this model, not a fifth.
fn late_stragglers_slow(seed: u64) -> Scenario {
    late_stragglers_ablation(
        seed,
        "late-stragglers-slow",
        STRAGGLER_SPEED_MEASURED,
        "as slow as LATE §5.2.2 measured them job-wide.",
    )
}

/// Ablation of late-stragglers-slow: with copies kept off slow nodes (`late veto=10`) the paper's
/// 2–4× (no speculation against LATE) comes at a milder slowdown, a tenth of full speed.
fn late_stragglers_tenth(seed: u64) -> Scenario {
    late_stragglers_ablation(
        seed,
        "late-stragglers-tenth",
        STRAGGLER_SPEED_MEASURED_REFUSING,
        "where no speculation is 2–4× LATE's time once LATE keeps its copies off slow nodes.",
    )
}

/// late-stragglers with its 8 stragglers at `speed`, under none, hadoop, native-2008, LATE and
/// LATE keeping its copies off slow nodes.
fn late_stragglers_ablation(seed: u64, name: &str, speed: f64, why: &str) -> Scenario {
    let mut sc = late_stragglers_at(seed, speed);
    sc.name = name.into();
    sc.policies = policies(&["none", "hadoop", "native-2008", "late"]);
    sc.policies.push(late_refusing_slow_nodes());
    sc.description = format!("late-stragglers with the 8 stragglers at {speed} speed, {why}");
    sc
}

/// LATE as the paper places copies: a slow node asking for work never gets one (LATE §4). rein
/// cannot refuse a node; it vetoes a copy that lands on a node to avoid, and gives up after
/// `rein.veto.max-per-task` (2) vetoes of a task, leaving that copy where YARN put it. This
/// label raises that budget to its maximum, 10: a few tasks still use all ten, but no reduce is
/// left to finish on a straggler (every reduce phase ends within a fifth of a straggler's time).
pub fn late_refusing_slow_nodes() -> PolicySpec {
    PolicySpec::named("late").with("rein.veto.max-per-task", "10").label("late veto=10")
}

/// The stragglers' speed at which no speculation is 2–4× slower than LATE here (LATE §5.2.2).
pub const STRAGGLER_SPEED_MEASURED: f64 = 0.05;

/// The same for LATE with copies kept off slow nodes (`late veto=10`), as the paper places them.
pub const STRAGGLER_SPEED_MEASURED_REFUSING: f64 = 0.1;

fn late_stragglers_at(seed: u64, straggler: f64) -> Scenario {
    let mut rng = Rng::new(seed);
    let mut cluster = Cluster::uniform(100, 2, 20);
    let mut speeds: Vec<f64> = (0..100).map(|i| if i < 8 { straggler } else { VM_SPEED[(i - 8) * 8 / 92] }).collect();
    for i in (1..speeds.len()).rev() {
        speeds.swap(i, rng.below(i + 1));
    }
    for (n, s) in cluster.nodes.iter_mut().zip(&speeds) {
        n.speed = *s;
    }
    let jobs = (0..4).map(|i| sort_job(i * 4000 * SEC, 400, 190, 40.0, 120.0)).collect();
    let model = AttemptModel { noise: Factor::LogNormal { sigma: 0.15 }, ..AttemptModel::default() };
    let mut sc = base("late-stragglers", cluster, jobs, model, policies(&["none", "hadoop", "native-2008", "late", "auto"]));
    sc.description = "LATE §5.2.2: 100 VMs × 2 slots, 8 stragglers at 1/5 speed, the rest 1–8 VMs/host; Sort, 400 maps / 190 reduces; 4 runs.".into();
    sc.paper = "LATE 58% faster than Hadoop native, 220% faster than no speculation".into();
    sc
}

/// The outlier processes Mantri §2 measured in Bing's clusters, in one place: data skew (input
/// sizes vary), per-machine outlier probability that changes each epoch (a few machines are bad
/// for a while), transient contention windows, and heavy-tailed outlier slowdowns.
fn bing_like_cluster(rng: &mut Rng, nodes: usize, slots: u32, per_rack: usize, hours: usize) -> Cluster {
    let mut cluster = Cluster::uniform(nodes, slots, per_rack);
    cluster.vary_outlier_probability(hours * 4, 15 * 60 * SEC, rng, |r| if r.chance(0.1) { r.uniform(0.2, 0.5) } else { r.uniform(0.0, 0.04) });
    for n in &mut cluster.nodes {
        // About one contention window per node every two hours, 5–20 minutes, 2–4× slower.
        let mut t = 0.0;
        loop {
            t += rng.exp(2.0 * 3600.0 * 1000.0);
            if t > hours as f64 * 3_600_000.0 {
                break;
            }
            let len = rng.uniform(300_000.0, 1_200_000.0);
            n.windows.push(Window { start: t as Millis, end: (t + len) as Millis, factor: rng.uniform(2.0, 4.0) });
            t += len;
        }
    }
    cluster
}

/// Jobs with a map and a reduce phase; map work proportional to a skewed input size.
fn bing_like_jobs(rng: &mut Rng, n: usize, duration_ms: f64, max_maps: f64, mean_maps: f64) -> Vec<JobSpec> {
    let sizes = BoundedPareto::with_mean(2.0, max_maps, mean_maps);
    poisson(rng, n, duration_ms)
        .into_iter()
        .map(|submit_ms| {
            let maps = sizes.sample(rng) as usize;
            let reduces = (maps / 5).max(1);
            // Data skew: split sizes vary (lognormal, σ = 0.4); maps run 30 s per 128 MB.
            let map_tasks = (0..maps)
                .map(|_| {
                    let bytes = (128.0 * MIB as f64 * rng.lognormal(1.0, 0.4)) as u64;
                    TaskSpec { work_ms: 30_000.0 * bytes as f64 / (128 * MIB) as f64, input_bytes: bytes }
                })
                .collect();
            let reduce_tasks = (0..reduces)
                .map(|_| {
                    let bytes = (512.0 * MIB as f64 * rng.lognormal(1.0, 0.4)) as u64;
                    TaskSpec { work_ms: 60_000.0 * bytes as f64 / (512 * MIB) as f64, input_bytes: bytes }
                })
                .collect();
            JobSpec { submit_ms, maps: map_tasks, reduces: reduce_tasks }
        })
        .collect()
}

fn bing_like_model() -> AttemptModel {
    AttemptModel {
        noise: Factor::LogNormal { sigma: 0.15 },
        // Mantri §2.1, Fig. 2(b): mostly 1.5–2.5×, a heavy tail with 10% beyond 10×.
        outlier: Some(Slowdown::mantri()),
        clamp_ms: None,
        slow_maps: true,
    }
}

/// Mantri §6.2: phases with heavy-tailed outliers from several causes, in a loaded cluster (tasks
/// wait for slots, which is when Mantri's restart rule acts). 100 nodes × 4 slots; 240 jobs over two
/// hours. Mantri also compares against the MapReduce (backup at the end) and Dryad (percentile)
/// rules; the engine has no such policies, so they are missing here.
fn mantri_restart(seed: u64) -> Scenario {
    let mut rng = Rng::new(seed);
    let cluster = bing_like_cluster(&mut rng.fork(1), 100, 4, 25, 4);
    let jobs = bing_like_jobs(&mut rng.fork(2), 240, 2.0 * 3_600_000.0, 400.0, 40.0);
    // Ablation: Mantri without §5.4's largest-input-first order.
    let mut pols = policies(&["none", "hadoop", "native-2008", "late", "mapreduce", "dryad", "mantri", "auto"]);
    let mut unordered = PolicySpec::named("mantri").label("mantri w/o §5.4");
    unordered.options.largest_first = false;
    pols.push(unordered);
    let mut sc = base("mantri-restart", cluster, jobs, bing_like_model(), pols);
    sc.description = "Mantri §6.2: 100 nodes × 4 slots, 240 jobs (maps ∝ skewed input, reduces = maps/5), per-machine outlier probability per 15 min, contention windows, heavy-tailed outliers.".into();
    sc.paper = "Mantri: phases 21% / 42% faster at p50 / p75 vs no mitigation; 3.1× the gain of the next best (Hadoop); fewer resources".into();
    sc
}

/// Mantri §5.2 / §6.3: reduce phases whose shuffle crosses oversubscribed rack uplinks. Three ways
/// to place reduces under Mantri: the first free slot (`mantri first-free`: the engine's reduce
/// moves off); what rein does in an ApplicationMaster (`mantri`: the engine plans the spread and
/// moves a reduce that starts on a rack over its plan, within its bound); and the placement an AM
/// cannot make, the simulator choosing the node (`mantri+netaware`: each reduce goes to the rack
/// with the fewest shuffles under way; moves off). The network is fluid in a simple sense: a
/// shuffle gets an equal share of its rack's uplink as it was when the reduce started.
fn mantri_placement(seed: u64) -> Scenario {
    let mut rng = Rng::new(seed);
    let cluster = Cluster::uniform(200, 2, 20);
    let sizes = BoundedPareto::with_mean(10.0, 300.0, 60.0);
    let jobs = poisson(&mut rng, 80, 3_600_000.0)
        .into_iter()
        .map(|submit_ms| {
            let maps = sizes.sample(&mut rng) as usize;
            let reduces = (maps / 3).max(2);
            JobSpec {
                submit_ms,
                maps: tasks(maps, 30_000.0, 128 * MIB),
                // Each reduce fetches its share of the map output: as much as the maps read.
                reduces: tasks(reduces, 40_000.0, (maps as u64 * 128 * MIB) / reduces as u64),
            }
        })
        .collect();
    let model = AttemptModel { noise: Factor::LogNormal { sigma: 0.15 }, ..AttemptModel::default() };
    let net_aware = SimOptions { placement: Placement::NetworkAware, ..SimOptions::default() };
    let no_moves = |label: &str| PolicySpec::named("mantri").with("rein.mantri.reduce-moves-per-task", "0").label(label);
    let pols = vec![
        PolicySpec::named("none"),
        no_moves("mantri first-free"),
        PolicySpec::named("mantri"),
        no_moves("mantri+netaware").options(net_aware),
    ];
    let mut sc = base("mantri-placement", cluster, jobs, model, pols);
    // 0.5 Gbit/s uplink per rack of 20 nodes (62,500 bytes per ms): the 20–40:1 oversubscription
    // of the clusters Mantri studied (§2.2 attributes many reduce outliers to the network).
    sc.net = Some(NetModel { rack_bytes_per_ms: 62_500.0 });
    sc.description = "Mantri §6.3: 200 nodes × 2 slots in 10 racks with 0.5 Gbit/s uplinks; 80 jobs whose reduces shuffle map output across racks.".into();
    sc.paper = "network-aware placement speeds up the median reduce phase (up to 60% faster reduce phases) over first-free-slot placement".into();
    sc
}

/// Mantri §5.3 / §6.4: machines that die and lose the map outputs on their disks, which reduces
/// then wait for. A loss is found as Hadoop finds it: the dead machine's attempts go silent until
/// the ResourceManager expires it (10 min), and its map outputs are found lost when reduces fail
/// to fetch them. `mantri` replicates outputs by §5.3's cost model and pre-computes a failing
/// machine's outputs (simulator-side: the engine has no replicate action); `mantri w/o §5.3` is
/// the ablation; `ideal` is Mantri's IdealRecompute (outputs survive losses: perfect knowledge).
fn mantri_recompute(seed: u64) -> Scenario {
    let mut rng = Rng::new(seed);
    let mut cluster = bing_like_cluster(&mut rng.fork(1), 100, 4, 25, 4);
    // 10% of the machines die at a random time in the first two hours.
    let mut lost = rng.fork(3);
    for n in &mut cluster.nodes {
        if lost.chance(0.1) {
            n.lost_at = Some(lost.uniform(0.0, 7_200_000.0) as Millis);
        }
    }
    let jobs = bing_like_jobs(&mut rng.fork(2), 160, 2.0 * 3_600_000.0, 300.0, 30.0);
    let ideal = SimOptions { protect_outputs: true, ..SimOptions::default() };
    // Ablation: Mantri without §5.3 (no replication, no pre-computation).
    let mut plain = PolicySpec::named("mantri").label("mantri w/o §5.3");
    plain.options.recompute_aware = false;
    let pols = vec![
        PolicySpec::named("none"),
        PolicySpec::named("mantri"),
        plain,
        PolicySpec::named("mantri").label("ideal").options(ideal),
    ];
    let mut sc = base("mantri-recompute", cluster, jobs, bing_like_model(), pols);
    sc.description = "Mantri §6.4: mantri-restart's cluster with 10% of machines dying (and losing map outputs) in the first two hours; 160 jobs.".into();
    sc.paper = "Mantri reaches parity with IdealRecompute (no job waits for lost output)".into();
    sc
}

/// Dolly §2–§3.3: a Facebook-like mix of job sizes (power law, ~82% of jobs under 10 tasks), in a
/// cluster that is mostly idle (Dolly's premise) but whose machines turn outlier-prone for a while
/// (per-machine probability varying every 10 minutes).
fn dolly_small(seed: u64) -> Scenario {
    let mut rng = Rng::new(seed);
    let mut cluster = Cluster::uniform(150, 2, 25);
    cluster.vary_outlier_probability(18, 10 * 60 * SEC, &mut rng.fork(1), |r| if r.chance(0.2) { r.uniform(0.2, 0.5) } else { r.uniform(0.0, 0.05) });
    // P(size < 10) ≈ 0.82 for a Pareto of α = 0.75 from 1 (1 − 10^−0.75 = 0.82), up to 500 tasks.
    let sizes = BoundedPareto { lo: 1.0, hi: 500.0, alpha: 0.75 };
    let mut jr = rng.fork(2);
    let jobs = poisson(&mut jr, 600, 2.5 * 3_600_000.0)
        .into_iter()
        .map(|submit_ms| {
            let n = sizes.sample(&mut jr) as usize;
            let reduces = n / 5;
            let maps = (n - reduces).max(1);
            JobSpec { submit_ms, maps: tasks(maps, 30_000.0, 128 * MIB), reduces: tasks(reduces, 45_000.0, 256 * MIB) }
        })
        .collect();
    let model = AttemptModel {
        noise: Factor::LogNormal { sigma: 0.15 },
        // Dolly §2.2 measures outliers in the same traces Mantri §2.1 describes.
        outlier: Some(Slowdown::mantri()),
        ..AttemptModel::default()
    };
    // Dolly §3.3's reported configuration clones small jobs only (the smallest 82%, ≤ 10 tasks);
    // `dolly all-jobs` clones every job, for comparison.
    let mut pols = policies(&["none", "late", "mantri", "auto"]);
    // Both clone every task, reduces too, as Pseudocode 1 does (`rein.dolly.clone-reduces`).
    pols.push(PolicySpec::named("dolly").with("rein.dolly.small-jobs-only", "true").with("rein.dolly.clone-reduces", "true"));
    pols.push(PolicySpec::named("dolly").with("rein.dolly.clone-reduces", "true").label("dolly all-jobs"));
    pols.push(late_as_printed());
    let mut sc = base("dolly-small", cluster, jobs, model, pols);
    sc.description = "Dolly §3.3: 150 nodes × 2 slots; 600 jobs over 2.5 h with power-law sizes (~82% under 10 tasks); per-machine outlier probability varying every 10 min.".into();
    sc.paper = "Dolly (ε = 0.05, τ = 70%): small jobs 47% faster than LATE, 39% faster than Mantri, ~3% more utilisation".into();
    sc
}

/// SCA §IV-C Table I: 6064 jobs over 35,032 s, 26.31 tasks per job, task times 12.8–22,919.3 s with
/// mean 1,179.7 s, one task per machine. Job sizes: a bounded Pareto on [1, 3000] with the mean of
/// Table I. Task times: a per-job scale (bounded Pareto, so jobs differ as in the trace) times a
/// per-attempt Pareto factor (α = 2, SCA §III's model: copies are independent draws), clamped to
/// Table I's range. Jobs are served smallest workload first (SCA §IV-B, ESE §V-A).
/// `machines` = 12,000 for SCA (light load), 6,000 for ESE (heavy load, ESE §V-C).
fn sca_trace(seed: u64, name: &str, machines: usize) -> Scenario {
    let mut rng = Rng::new(seed);
    let cluster = Cluster::uniform(machines, 1, 40);
    let sizes = BoundedPareto::with_mean(1.0, 3000.0, 26.81);
    let factor = BoundedPareto { lo: 1.0, hi: 25.0, alpha: 2.0 };
    // The per-job scale's mean is set so that the clamped task times average ≈ 1179.7 s.
    let scale = BoundedPareto::with_mean(12.8 / 0.55, 12_000.0, 1_180.0);
    let mut jr = rng.fork(2);
    let jobs = poisson(&mut jr, 6064, 35_032_000.0)
        .into_iter()
        .map(|submit_ms| {
            let m = (sizes.sample(&mut jr) as usize).max(1);
            let s = scale.sample(&mut jr) * 1000.0;
            JobSpec { submit_ms, maps: tasks(m, s, 128 * MIB), reduces: Vec::new() }
        })
        .collect();
    let model = AttemptModel { noise: Factor::Pareto(factor), clamp_ms: Some((12_800.0, 22_919_300.0)), ..AttemptModel::default() };
    // Xu & Lau's baseline is Mantri's duplication rule (§II, §V: a duplicate when
    // P(t_rem > 2·t_new) > δ and a machine is free), without kill-and-restart: `mantri dup-only`
    // (`xu_lau_mantri`). rein's full mantri (restarts, pruning, copies first) runs beside it.
    let mut pols = policies(&["none", "mantri"]);
    pols.push(xu_lau_mantri());
    // SCA as §IV-C ran it, alone: without ESE's backups beside it (`rein.sca.reactive`).
    pols.push(if machines >= 12_000 {
        PolicySpec::named("sca").with("rein.sca.reactive", "none")
    } else {
        PolicySpec::named("ese")
    });
    pols.push(PolicySpec::named("auto"));
    let mut sc = base(name, cluster, jobs, model, pols);
    sc.scheduler = Scheduler::SmallestFirst;
    sc.description = format!("SCA/ESE trace model (Table I): {machines} machines × 1 slot, 6064 jobs over 35,032 s, 26.31 tasks/job, task times 12.8–22,919 s (mean ≈ 1180 s); smallest workload first.");
    sc.paper = if machines >= 12_000 {
        "SCA (γ = 0.05): mean flowtime −22% vs Mantri, resource +20%".into()
    } else {
        "ESE: mean flowtime −35% vs Mantri at about equal resource".into()
    };
    sc
}

/// Ablation of ese-heavy: the same trace on 4,000 machines. The trace's work is about 6,100
/// machines' worth over its 35,032 s, but it comes in bursts (a heavy-tailed per-job scale), so
/// 6,000 machines free up between them; on 4,000 the work exceeds the cluster throughout and
/// tasks queue all the time (ESE §V-C's heavy load), when a copy finds no free machine.
fn ese_saturated(seed: u64) -> Scenario {
    let mut sc = sca_trace(seed, "ese-heavy-saturated", SATURATED_MACHINES);
    sc.policies = vec![xu_lau_mantri(), PolicySpec::named("ese")];
    sc
}

/// Machines of the saturated ESE ablation.
pub const SATURATED_MACHINES: usize = 4_000;

/// The Mantri Xu & Lau compare against (§II, §V): "a speculative copy if P(t_rem > 2·t_new) > δ
/// ... when there are available machines": duplicates only (γ = 0 restarts), behind every waiting
/// task, and without Pseudocode 1's pruning, which they do not describe.
fn xu_lau_mantri() -> PolicySpec {
    let mut p = PolicySpec::named("mantri")
        .with("rein.mantri.max-restarts", "0")
        .label("mantri dup-only")
        .copy_queue(crate::scenario::CopyQueue::BehindFirst);
    p.options.prune_copies = false;
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_builds() {
        for name in NAMES {
            if matches!(*name, "sca-light" | "ese-heavy" | "ese-heavy-saturated") {
                continue; // checked in workload_matches_table_one
            }
            let sc = build(name, 1).unwrap();
            assert!(!sc.jobs.is_empty() && !sc.policies.is_empty(), "{name}");
        }
        assert!(build("nope", 1).is_none());
    }

    #[test]
    fn sca_workload_matches_table_one() {
        let sc = build("sca-light", 42).unwrap();
        assert_eq!(sc.jobs.len(), 6064);
        let tasks: usize = sc.jobs.iter().map(|j| j.tasks()).sum();
        let per_job = tasks as f64 / 6064.0;
        assert!((per_job - 26.31).abs() < 4.0, "tasks per job {per_job}");
        // Sample attempt durations as the simulator would draw them (nominal node).
        let mut rng = Rng::new(3);
        let mut sum = 0.0;
        let mut n = 0.0;
        for j in sc.jobs.iter().step_by(3) {
            for t in &j.maps {
                sum += sc.model.draw_work(t, 0.0, &mut rng);
                n += 1.0;
            }
        }
        let mean_s = sum / n / 1000.0;
        assert!((mean_s / 1179.7 - 1.0).abs() < 0.25, "mean task time {mean_s}");
    }
}
