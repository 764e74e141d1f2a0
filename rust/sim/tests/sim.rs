//! Behaviour of the event model and the runner, on small hand-built cases.

use rein_core::Millis;
use rein_sim::cluster::Cluster;
use rein_sim::metrics::Summary;
use rein_sim::scenario::{PolicySpec, Scenario, Scheduler};
use rein_sim::sim::simulate;
use rein_sim::workload::{AttemptModel, JobSpec, TaskSpec};
use rein_sim::jhist::{self, AttemptOutcome, TaskType};
use rein_sim::{run_scenario, scenarios, swim};

fn task(work_s: f64) -> TaskSpec {
    TaskSpec { work_ms: work_s * 1000.0, input_bytes: 64 << 20 }
}

fn scenario(cluster: Cluster, jobs: Vec<JobSpec>) -> Scenario {
    Scenario {
        name: "test".into(),
        description: String::new(),
        paper: String::new(),
        cluster,
        jobs,
        model: AttemptModel::default(),
        policies: vec![PolicySpec::named("none")],
        report_ms: 10_000,
        net: None,
        copy_phase: 1.0 / 3.0,
        scheduler: Scheduler::Fifo,
    }
}

fn job(submit_ms: Millis, maps: Vec<TaskSpec>, reduces: Vec<TaskSpec>) -> JobSpec {
    JobSpec { submit_ms, maps, reduces }
}

/// 8 maps of 10 s on 4 slots are two waves (20 s), then 2 reduces of 20 s: 40 s, 120 container-s.
#[test]
fn a_job_without_stragglers_finishes_at_the_analytic_time() {
    let sc = scenario(Cluster::uniform(4, 1, 2), vec![job(5_000, vec![task(10.0); 8], vec![task(20.0); 2])]);
    for policy in ["none", "late", "mantri", "hadoop"] {
        let run = simulate(&sc, &PolicySpec::named(policy), 1, &mut |_, _| {});
        assert_eq!(run.jobs.len(), 1);
        assert_eq!(run.jobs[0].finish_ms - run.jobs[0].submit_ms, 40_000, "{policy}");
        assert_eq!(run.jobs[0].container_ms, 120_000, "{policy}");
        assert_eq!(run.counters.speculative_launched, 0, "{policy}: nothing to speculate");
    }
}

/// A slow node stretches its attempts by its speed.
#[test]
fn node_speed_stretches_attempts() {
    let mut cluster = Cluster::uniform(1, 1, 1);
    cluster.nodes[0].speed = 0.25;
    let sc = scenario(cluster, vec![job(0, vec![task(10.0)], vec![])]);
    let run = simulate(&sc, &PolicySpec::named("none"), 1, &mut |_, _| {});
    assert_eq!(run.jobs[0].finish_ms, 40_000);
}

/// Maps of 10 s and 30 s share two slots; the reduce (5 s) could start at 10 s in the free slot,
/// but the barrier holds it until the last map ends at 30 s.
#[test]
fn the_barrier_holds_reduces_until_every_map_finishes() {
    let sc = scenario(Cluster::uniform(1, 2, 1), vec![job(0, vec![task(10.0), task(30.0)], vec![task(5.0)])]);
    let run = simulate(&sc, &PolicySpec::named("none"), 1, &mut |_, _| {});
    assert_eq!(run.jobs[0].finish_ms, 35_000);
}

/// FIFO across jobs: a second job waits for the first one's slot.
#[test]
fn jobs_queue_in_arrival_order() {
    let sc = scenario(Cluster::uniform(1, 1, 1), vec![job(0, vec![task(10.0)], vec![]), job(1_000, vec![task(10.0)], vec![])]);
    let run = simulate(&sc, &PolicySpec::named("none"), 1, &mut |_, _| {});
    assert_eq!(run.jobs[1].finish_ms, 20_000);
    assert_eq!(run.jobs[1].seconds(), 19.0);
}

/// A task stuck on a very slow node gets a copy elsewhere from a detection policy, the copy wins,
/// and the slow attempt is killed and counted as waste.
#[test]
fn a_copy_of_a_straggler_wins() {
    let mut cluster = Cluster::uniform(6, 1, 3);
    cluster.nodes[0].speed = 0.05;
    let maps: Vec<TaskSpec> = vec![task(100.0); 6];
    let sc = scenario(cluster, vec![job(0, maps, vec![])]);
    let none = Summary::of(&simulate(&sc, &PolicySpec::named("none"), 1, &mut |_, _| {}));
    for policy in ["late", "mantri", "hadoop"] {
        let s = Summary::of(&simulate(&sc, &PolicySpec::named(policy), 1, &mut |_, _| {}));
        assert!(s.speculative_won >= 1, "{policy}: {s:?}");
        assert!(s.wasted_container_seconds > 0.0, "{policy}");
        assert!(s.mean_job_seconds < none.mean_job_seconds / 3.0, "{policy}: {} vs {}", s.mean_job_seconds, none.mean_job_seconds);
    }
}

fn tiny_json(seed: u64) -> String {
    let sc = scenarios::build("tiny", seed).unwrap();
    let only: Vec<String> = ["none", "late", "mantri", "dolly"].iter().map(|s| s.to_string()).collect();
    run_scenario(&sc, Some(&only), seed, &mut |_, _, _| {}, &mut |_| {}).0.to_json()
}

#[test]
fn the_same_seed_gives_identical_results() {
    assert_eq!(tiny_json(7), tiny_json(7));
    assert_ne!(tiny_json(7), tiny_json(8));
}

/// Golden-ish: the tiny scenario's shape, not its exact numbers.
#[test]
fn tiny_scenario_results_have_the_expected_shape() {
    let json: serde_json::Value = serde_json::from_str(&tiny_json(1)).unwrap();
    assert_eq!(json["scenario"], "tiny");
    assert_eq!(json["seed"], 1);
    let p = &json["policies"];
    for name in ["none", "late", "mantri", "dolly"] {
        for key in [
            "jobs", "mean_job_seconds", "p50_job_seconds", "p75_job_seconds", "p99_job_seconds", "small_jobs_mean_seconds",
            "container_seconds", "wasted_container_seconds", "speculative_launched", "speculative_won", "restarts", "clones",
        ] {
            assert!(p[name].get(key).is_some(), "{name}.{key}");
        }
        assert_eq!(p[name]["jobs"], 3);
    }
    assert_eq!(p["none"]["wasted_container_seconds"], 0.0);
    assert_eq!(p["none"]["speculative_launched"], 0);
    // Twelve maps on sixteen slots are past τ, and reduces are not cloned by default: Dolly's
    // part here is LATE's copies beside it (`rein.dolly.reactive`).
    assert!(p["dolly"]["clones"].as_u64().unwrap() + p["dolly"]["speculative_launched"].as_u64().unwrap() > 0);
    let none = p["none"]["mean_job_seconds"].as_f64().unwrap();
    for name in ["late", "mantri"] {
        assert!(p[name]["speculative_launched"].as_u64().unwrap() > 0, "{name}");
        assert!(p[name]["mean_job_seconds"].as_f64().unwrap() < none, "{name} beats none with a 5× slow node");
    }
}

/// Golden results: the tiny scenario's results.json, byte for byte. A change to a policy or to the
/// simulator that moves any number fails here; when the change is meant, regenerate with
/// `REIN_BLESS=1 cargo test -p rein-sim --test sim`.
#[test]
fn the_tiny_scenario_matches_its_golden_results() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-seed1.golden.json");
    let now = tiny_json(1);
    if std::env::var_os("REIN_BLESS").is_some() {
        std::fs::write(path, &now).unwrap();
    }
    let golden = std::fs::read_to_string(path).unwrap_or_default();
    assert!(now == golden, "tiny-seed1 results moved; regenerate with REIN_BLESS=1 if that is intended:\n{now}");
}

#[test]
fn the_swim_reader_parses_the_sample_trace() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/swim-fb2009-head40.tsv");
    let jobs = swim::read(std::path::Path::new(path)).unwrap();
    assert_eq!(jobs.len(), 40);
    assert_eq!(jobs[0].id, "job0");
    assert_eq!((jobs[0].submit_s, jobs[0].input_bytes, jobs[0].shuffle_bytes, jobs[0].output_bytes), (49.0, 740773, 2339561, 627471));
    // The whole shared trace, when this checkout sits beside it.
    let shared = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces/swim-fb2009-sample0.tsv");
    if let Ok(all) = swim::read(std::path::Path::new(shared)) {
        assert_eq!(all.len(), 5894);
        assert!(all.windows(2).all(|w| w[0].submit_s <= w[1].submit_s));
    }
}

/// A SWIM replay runs end to end on a few machines.
#[test]
fn a_swim_replay_runs() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/swim-fb2009-head40.tsv");
    let jobs = swim::read(std::path::Path::new(path)).unwrap();
    let sc = swim::scenario("head40", &jobs, 20, 1, vec![PolicySpec::named("none"), PolicySpec::named("late")]);
    let (results, _) = run_scenario(&sc, None, 1, &mut |_, _, _| {}, &mut |_| {});
    assert_eq!(results.policies["none"].jobs, 40);
    assert_eq!(results.policies["late"].jobs, 40);
}

const WORDCOUNT_JHIST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/wordcount-late.jhist");

#[test]
fn the_jhist_reader_reads_a_wordcount_history() {
    let h = jhist::read(std::path::Path::new(WORDCOUNT_JHIST)).unwrap();
    assert_eq!(h.maps().count(), 12);
    assert_eq!(h.reduces().count(), 1);
    assert_eq!(h.tasks.len(), 13);
    assert_eq!(h.status.as_deref(), Some("SUCCEEDED"));
    assert!(h.submit_ms < h.finish_ms.unwrap());
    for t in &h.tasks {
        let ok: Vec<_> = t.successful().collect();
        assert!(!ok.is_empty(), "{} has no successful attempt", t.id);
        for a in ok {
            assert!(a.node.as_deref().is_some_and(|n| n.contains(':')), "{}: node {:?}", a.id, a.node);
            assert!(a.start_ms.unwrap() >= h.submit_ms && a.finish_ms.unwrap() <= h.finish_ms.unwrap(), "{}", a.id);
        }
    }
    assert!(h.tasks.iter().flat_map(|t| &t.attempts).any(|a| a.outcome == AttemptOutcome::Killed), "speculative copies were killed");
    assert_eq!(h.tasks[0].kind, TaskType::Map);
    assert!(h.maps().all(|t| t.input_bytes.is_some_and(|b| b > 0)));
    // One of the three NodeManagers was slowed; the derived cluster should say so.
    let nodes = jhist::nodes(std::slice::from_ref(&h));
    assert_eq!(nodes.len(), 3);
    assert_eq!(nodes.iter().filter(|n| n.slowdown > 2.0).count(), 1, "{nodes:?}");
}

/// The history replays end to end through the CLI path and writes the usual results.
#[test]
fn a_jhist_replay_runs_and_writes_results() {
    let h = jhist::read(std::path::Path::new(WORDCOUNT_JHIST)).unwrap();
    let sc = jhist::scenario("wordcount-late", &[h], None, vec![PolicySpec::named("none"), PolicySpec::named("late")]);
    assert_eq!((sc.jobs.len(), sc.jobs[0].maps.len(), sc.jobs[0].reduces.len(), sc.cluster.nodes.len()), (1, 12, 1, 3));
    let (results, job_seconds) = run_scenario(&sc, None, 1, &mut |_, _, _| {}, &mut |_| {});
    for p in ["none", "late"] {
        assert_eq!(results.policies[p].jobs, 1, "{p}");
        assert!(results.policies[p].mean_job_seconds > 0.0, "{p}");
    }
    let out = std::env::temp_dir().join(format!("rein-sim-jhist-test-{}", std::process::id()));
    rein_sim::report::write_all(&out, &results, &job_seconds).unwrap();
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(json["scenario"], "wordcount-late");
    for key in ["seed", "description", "paper", "order", "policies"] {
        assert!(json.get(key).is_some(), "{key}");
    }
    for p in ["none", "late"] {
        for key in ["jobs", "mean_job_seconds", "p50_job_seconds", "container_seconds", "wasted_container_seconds", "speculative_launched"] {
            assert!(json["policies"][p].get(key).is_some(), "{p}.{key}");
        }
    }
    for f in ["results.md", "job_cdf.svg", "resources.svg"] {
        assert!(out.join(f).exists(), "{f}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// A machine dies with map output on it (Mantri §5.3), found as Hadoop finds it. Four maps of 10 s
/// run one per node; the reduce (30 s, shuffling its first 10 s) starts at 10 s; node 3 dies at
/// 12 s, before the reduce has fetched map 3's output. The loss is found 30 s later by fetch
/// failures (42 s), map 3 is redone (42–52 s), and the reduce, done with its work at 40 s, waits
/// for it: the job ends at 52 s. Had the reduce itself landed on node 3, it goes silent until the
/// ResourceManager expires the node (612 s) and is then run again (642 s).
#[test]
fn a_lost_map_output_is_found_by_fetch_failures_and_recomputed() {
    let mut cluster = Cluster::uniform(4, 1, 1);
    cluster.nodes[3].lost_at = Some(12_000);
    let sc = scenario(cluster, vec![job(0, vec![task(10.0); 4], vec![task(30.0)])]);
    for seed in 1..=4 {
        let run = simulate(&sc, &PolicySpec::named("none"), seed, &mut |_, _| {});
        assert_eq!(run.counters.maps_recomputed, 1, "seed {seed}");
        assert!([52_000, 642_000].contains(&run.jobs[0].finish_ms), "seed {seed}: {}", run.jobs[0].finish_ms);
    }
    // IdealRecompute: the output survives, so only a reduce on the dead node delays the job.
    let mut ideal = PolicySpec::named("none");
    ideal.options.protect_outputs = true;
    let run = simulate(&sc, &ideal, 1, &mut |_, _| {});
    assert_eq!(run.counters.maps_recomputed, 0);
    assert!([40_000, 642_000].contains(&run.jobs[0].finish_ms), "{}", run.jobs[0].finish_ms);
}

/// Mantri §5.4: a job's waiting tasks start largest input first. One slot; maps of 1, 3 and 2 units
/// of input (and time): Mantri's queue runs them 3, 2, 1, so the smallest ends last, at 60 s.
#[test]
fn mantri_starts_the_largest_input_first() {
    let sized = |s: f64| TaskSpec { work_ms: s * 10_000.0, input_bytes: (s as u64) << 20 };
    let sc = scenario(Cluster::uniform(1, 1, 1), vec![job(0, vec![sized(1.0), sized(3.0), sized(2.0)], vec![])]);
    let mut order = PolicySpec::named("none");
    order.options.largest_first = true;
    assert_eq!(simulate(&sc, &order, 1, &mut |_, _| {}).jobs[0].finish_ms, 60_000);
    assert!(PolicySpec::named("mantri").options.largest_first && PolicySpec::named("mantri").options.recompute_aware);
    assert!(!PolicySpec::named("late").options.largest_first);
}

/// LATE §2.1's native rule: on 4 slots, 3 maps of 100 s and one on a node at a tenth of the
/// speed; once the fast ones finish (average progress 0.75 + the straggler's share) and the
/// straggler has run a minute, the free slot gets its copy, which wins. No copy before a minute.
#[test]
fn native_2008_copies_a_task_a_minute_old_and_behind_the_average() {
    let mut cluster = Cluster::uniform(4, 1, 4);
    cluster.nodes[0].speed = 0.1;
    let sc = scenario(cluster, vec![job(0, vec![task(100.0); 4], vec![])]);
    let native = PolicySpec::named("native-2008");
    assert!(native.options.native_2008 && native.pairs.iter().any(|(k, v)| k == "rein.policy" && v == "none"));
    let none = simulate(&sc, &PolicySpec::named("none"), 1, &mut |_, _| {});
    let run = simulate(&sc, &native, 1, &mut |_, _| {});
    assert_eq!(run.counters.speculative_launched, 1, "one copy at a time, of the straggler only");
    assert_eq!(run.counters.speculative_won, 1);
    // The copy starts when the first slot frees (100 s) and runs 100 s.
    assert_eq!(run.jobs[0].finish_ms, 200_000, "none takes {} ms", none.jobs[0].finish_ms);
}

/// Dolly §3.3: clones yield when utilisation passes τ. A small job's tasks are cloned into an
/// idle cluster; a large job arriving later fills it past τ and its tasks claim the clones' slots.
#[test]
fn dolly_clones_give_way_above_the_utilisation_ceiling() {
    let small = job(0, vec![task(200.0); 4], vec![]);
    let large = job(20_000, vec![task(50.0); 40], vec![]);
    let sc = scenario(Cluster::uniform(20, 1, 10), vec![small, large]);
    let run = simulate(&sc, &PolicySpec::named("dolly"), 1, &mut |_, _| {});
    assert!(run.counters.clones > 0, "{:?}", run.counters);
    assert!(run.counters.clones_yielded > 0, "{:?}", run.counters);
    assert_eq!(run.jobs.len(), 2);
}

/// The reduce phase is measured from the moment its reduces may start (Mantri §6.3's metric).
#[test]
fn the_reduce_phase_runs_from_the_last_map_to_the_end() {
    let sc = scenario(Cluster::uniform(4, 1, 2), vec![job(5_000, vec![task(10.0); 8], vec![task(20.0); 2])]);
    let run = simulate(&sc, &PolicySpec::named("none"), 1, &mut |_, _| {});
    assert_eq!(run.jobs[0].reduce_phase_seconds(), Some(20.0));
    assert_eq!(Summary::of(&run).p50_reduce_phase_seconds, Some(20.0));
}

/// Mantri's pruning (Pseudocode 1, line 3) is the simulator's, on for Mantri only; Xu & Lau's
/// Mantri baseline in the SCA/ESE scenarios is duplicate-only, behind waiting tasks, unpruned.
#[test]
fn mantri_prunes_and_xu_and_laus_baseline_does_not() {
    assert!(PolicySpec::named("mantri").options.prune_copies);
    assert!(!PolicySpec::named("late").options.prune_copies);
    let sc = scenarios::build("ese-heavy-saturated", 1).unwrap();
    let base = sc.policies.iter().find(|p| p.label == "mantri dup-only").unwrap();
    assert!(!base.options.prune_copies);
    assert_eq!(base.options.copy_queue, rein_sim::scenario::CopyQueue::BehindFirst);
    assert!(base.pairs.iter().any(|(k, v)| k == "rein.mantri.max-restarts" && v == "0"));
}
