package io.rein.minicluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * rein inside a real MapReduce ApplicationMaster on the shared embedded 3-NM YARN cluster. Each
 * policy takes its characteristic action on a real WordCount job, and every job's output is
 * checked word by word. "Slow" jobs run with NodeManager 1 slowed 6×. (LATE's copies, their
 * logged reasons and the veto loop are checked on the cluster bed: {@link ClusterBedTest}.)
 *
 * <p>The fault test runs last: an AM killed mid-job (its second attempt runs rein again and
 * recovers the job). A node lost mid-job is the cluster bed's test ({@link ClusterBedTest}): it
 * leaves the cluster one node short, so it has a cluster of its own.
 *
 * <p>The jobs last under a minute, so the papers' time constants are scaled down with them:
 * LATE's minimum run time to 5 s, Mantri's Δ to 5 s.
 */
@ExtendWith(SharedCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReinOnClusterTest {
  private static final int SLOW_NM = 1;
  private static ReinCluster cluster;
  private static Configuration base;
  private static File dir;
  private static WordCountWorkload even;
  private static WordCountWorkload skewed;
  private static WordCountWorkload small;

  @BeforeAll
  static void writeInputs() throws Exception {
    dir = new File("target/it-rein").getAbsoluteFile();
    cluster = SharedCluster.get();
    base = cluster.jobConf();
    base.set("rein.late.min-runtime-ms", "5000");
    base.set("rein.mantri.delta-ms", "5000");
    base.set("rein.mantri.recopy-after-ms", "15000");
    // One wave: six maps, about two a node, in the eight slots beside the AM.
    even = new WordCountWorkload(base, path("in-even"), 6, 2L << 20, 7);
    // The first file has four times its siblings' input; FileInputFormat makes it map 0.
    skewed = new WordCountWorkload(base, path("in-skew"), new long[] {8L << 20, 2L << 20, 2L << 20, 2L << 20,
        2L << 20, 2L << 20}, 11);
    small = new WordCountWorkload(base, path("in-small"), 4, 1L << 20, 13);
  }

  private static Path path(String name) {
    return new Path(new File(dir, name).getPath());
  }

  private static RunResult run(Configuration conf, String label, WordCountWorkload w, boolean slowNode)
      throws Exception {
    return run(conf, label, w, slowNode ? 6.0 : 1.0);
  }

  private static RunResult run(Configuration conf, String label, WordCountWorkload w, double slowFactor)
      throws Exception {
    StragglerInjector slow = slowFactor > 1.0 ? new StragglerInjector(Map.of(SLOW_NM, slowFactor), 500) : null;
    try {
      RunResult r = Runs.wordCount(conf, w, path("out-" + label), label);
      assertTrue(r.succeeded && r.outputOk, label + ": the job succeeds with the right output");
      return r;
    } finally {
      if (slow != null) {
        slow.close();
      }
    }
  }

  private static List<String> amLog(RunResult r, String needle) throws Exception {
    return cluster.amLogLines(r.jobId, needle);
  }

  @Test
  void anUnloadableLibraryFallsBackToStockAndTheJobCompletes() throws Exception {
    Configuration conf = Policies.rein(base, "late");
    conf.set("rein.native.library", "/nonexistent/librein.so");
    RunResult r = run(conf, "fallback", small, false);
    assertEquals(1, r.reinFallback, "the fallback is counted");
    assertEquals(0, r.reinLaunched);
    assertEquals(1, amLog(r, "the job continues under Hadoop's DefaultSpeculator").size(), "the cause is logged once");
  }

  @Test
  void policyNoneLaunchesNoCopies() throws Exception {
    RunResult r = run(Policies.rein(base, "none"), "none", small, true);
    assertEquals(0, r.reinFallback);
    assertEquals(0, r.reinLaunched + r.reinRestarts + r.reinClones);
    assertEquals(0, r.speculativeLaunched, r.toJson());
    assertEquals(1, amLog(r, "rein: policy none").size());
    // What rein cost the AM, logged once as it stops: its scans, and the events it handed over.
    List<String> cost = amLog(r, "scans took");
    for (long end = System.nanoTime() + 30_000_000_000L; cost.isEmpty() && System.nanoTime() < end; ) {
      Thread.sleep(500); // the AM may still be stopping
      cost = amLog(r, "scans took");
    }
    assertEquals(1, cost.size(), "the AM logs rein's cost once");
    System.out.println("policy none, the AM's line: " + cost.get(0).replaceAll(".*(rein: )", "$1"));
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+) scans took .* (\\d+) events reached the engine in (\\d+) calls")
        .matcher(cost.get(0));
    assertTrue(m.find(), cost.get(0));
    assertTrue(Long.parseLong(m.group(1)) > 0 && Long.parseLong(m.group(2)) >= Long.parseLong(m.group(3)), cost.get(0));
  }

  @Test
  void mantriRestartsOrDuplicatesTheSlowNodesStragglers() throws Exception {
    // Mantri duplicates at a phase's end only when E[t_rem − t_new] > ρΔ (3Δ). On an idle machine
    // the duty cycle slows a 6× node's maps only about 3× (its tasks get the CPU the others leave
    // while they run), and a 4-s map's straggler then leads a fresh copy by less than 3Δ at Δ = 5 s:
    // Mantri rightly leaves it. The node is slowed 12× and Δ is 3 s here, so that the straggler is
    // one Mantri's rule copies on a fast machine as on a loaded one.
    Configuration conf = Policies.rein(base, "mantri");
    conf.set("rein.mantri.delta-ms", "3000");
    RunResult r = run(conf, "mantri-slow", even, 12.0);
    assertEquals(0, r.reinFallback);
    assertTrue(r.reinRestarts + r.reinLaunched >= 1, "Mantri acted on a straggler: " + r.toJson());
    assertTrue(!amLog(r, "Mantri §5.1").isEmpty());
  }

  @Test
  void mantriLeavesTheTaskWithFourTimesTheInputAlone() throws Exception {
    RunResult r = run(Policies.rein(base, "mantri"), "mantri-skew", skewed, false);
    assertEquals(0, r.reinFallback);
    List<String> aboutBigTask = amLog(r, "_m_000000");
    assertTrue(aboutBigTask.stream().noneMatch(l -> l.contains("rein: speculate") || l.contains("rein: restart")),
        "the task that is long because of its data is not copied: " + aboutBigTask);
  }

  @Test
  void dollyClonesASmallJobsTasks() throws Exception {
    RunResult r = run(Policies.rein(base, "dolly"), "dolly", small, false);
    assertEquals(0, r.reinFallback);
    assertTrue(r.reinClones >= 1, "Dolly cloned: " + r.toJson());
    assertTrue(!amLog(r, "Dolly §3.3").isEmpty());
  }

  @Test
  void scaClonesUnderLightLoad() throws Exception {
    RunResult r = run(Policies.rein(base, "sca"), "sca", small, false);
    assertEquals(0, r.reinFallback);
    assertTrue(r.reinClones >= 1, "SCA cloned: " + r.toJson());
    assertTrue(!amLog(r, "SCA §IV (P2)").isEmpty());
  }

  /** With rein.max-copies-per-scan at 1, a scan that backs a straggler up has reached it, and says so. */
  @Test
  void eseBacksUpAStraggler() throws Exception {
    Configuration conf = Policies.rein(base, "ese");
    conf.set("rein.max-copies-per-scan", "1");
    RunResult r = run(conf, "ese", even, true);
    assertEquals(0, r.reinFallback);
    assertTrue(r.reinLaunched >= 1, "ESE backed up a straggler: " + r.toJson());
    assertTrue(!amLog(r, "ESE §V-A backup").isEmpty());
    assertTrue(!amLog(r, "the most rein.max-copies-per-scan allows").isEmpty(), "the bound reached is logged");
    assertTrue(amLog(r, "straggler(s), the most").stream().allMatch(l -> l.contains("rein: this scan copies 1 straggler(s)")),
        "no scan copies more than the bound");
  }

  /**
   * Mantri's network-aware reduce placement (§5.2) on synthetic racks: NM 0 alone in /rack-a,
   * NMs 1 and 2 in /rack-b. A sleep job's four 8-s reduces start together once its six maps
   * have finished, so all four run at once while rein moves them (the plan covers the unfinished
   * reduces; WordCount's reduces here end within a second or two, which changes the plan under
   * way). With rein moving reduces, they end up spread as the plan says — the spread no other
   * placement beats on the busiest rack link, recomputed here from the job history's map output
   * bytes. {@code -Drein.placement.reps=N} runs it N times, each beside the same job with moves
   * off (first free slot), for measuring; the pair's figures are printed.
   */
  @Test
  void mantriSpreadsReducesOverRacksAsPlanned() throws Exception {
    int reps = Integer.getInteger("rein.placement.reps", 0);
    if (reps == 0) {
      placement(0, false);
    }
    for (int rep = 1; rep <= reps; rep++) {
      placement(rep, true);
    }
  }

  private void placement(int rep, boolean compare) throws Exception {
    Configuration conf = Policies.rein(base, "mantri");
    conf.set("rein.topology.racks", String.format("%s=/rack-a %s=/rack-b %s=/rack-b", cluster.nodeId(0),
        cluster.nodeId(1), cluster.nodeId(2)));
    conf.setFloat("mapreduce.job.reduce.slowstart.completedmaps", 1.0f);
    Map<String, String> racks = Map.of(cluster.nodeId(0), "/rack-a", cluster.nodeId(1), "/rack-b",
        cluster.nodeId(2), "/rack-b");
    Spread firstFree = null;
    if (compare) {
      conf.set("rein.mantri.reduce-moves-per-task", "0");
      firstFree = Spread.of(sleepJob(conf, "placement-first-free-" + rep), racks);
    }
    conf.set("rein.mantri.reduce-moves-per-task", "10");
    RunResult r = sleepJob(conf, "placement-mantri-" + rep);
    Spread placed = Spread.of(r, racks);
    assertEquals(0, r.reinFallback);
    assertEquals(amLog(r, "rein: move ").size(), r.reinMoves, "each move is logged and counted");
    assertTrue(amLog(r, "rein: move ").stream().allMatch(l -> l.contains("Mantri §5.2")), "moves give their reason");
    if (firstFree != null) {
      System.out.printf("first free %d: %s (busiest link %.2f KB, %.1f s)%n", rep, firstFree.perRack,
          firstFree.busiest / 1e3, firstFree.jobSeconds);
    }
    System.out.printf("reduce spread %d: mantri %s (%.2f KB, %d moves, %.1f s); optimal %.2f KB; map output bytes "
        + "per rack %s%n", rep, placed.perRack, placed.busiest / 1e3, r.reinMoves, r.jobSeconds, placed.optimal / 1e3,
        placed.outputPerRack);
    assertTrue(placed.busiest <= placed.optimal * (1 + 1e-9),
        "the reduces ran as planned: " + placed.perRack + " busiest link " + placed.busiest + " bytes, optimal "
            + placed.optimal + " (map output per rack " + placed.outputPerRack + ")");
  }

  /** A sleep job of six 1-s maps and four 8-s reduces, its reduces' input records checked. */
  private static RunResult sleepJob(Configuration conf, String label) throws Exception {
    RunResult r = Runs.sleep(conf, label, 6, 4, 1_000, 8_000);
    assertTrue(r.succeeded && r.outputOk, label + ": the job succeeds and its reduces read every record");
    return r;
  }

  /** Where a job's reduces ran, by rack, against the map output each rack held. */
  private static final class Spread {
    final Map<String, Integer> perRack = new java.util.TreeMap<>();
    final Map<String, Long> outputPerRack = new java.util.TreeMap<>();
    /** Bytes over the busiest rack link, as the reduces ran and at best. */
    double busiest;
    double optimal;
    double jobSeconds;

    static Spread of(RunResult r, Map<String, String> racks) {
      Spread s = new Spread();
      s.jobSeconds = r.jobSeconds;
      for (String rack : racks.values()) {
        s.perRack.put(rack, 0);
        s.outputPerRack.put(rack, 0L);
      }
      r.mapOutputBytes.forEach((attempt, bytes) -> s.outputPerRack.merge(racks.get(r.attemptNodes.get(attempt)), bytes,
          Long::sum));
      r.attemptStatus.forEach((attempt, status) -> {
        if (attempt.contains("_r_") && status.equals("SUCCEEDED")) {
          s.perRack.merge(racks.get(r.attemptNodes.get(attempt)), 1, Integer::sum);
        }
      });
      List<String> names = List.copyOf(s.perRack.keySet());
      assertEquals(2, names.size());
      int n = s.perRack.values().stream().mapToInt(Integer::intValue).sum();
      s.busiest = s.busiestLink(s.perRack.get(names.get(0)), n);
      s.optimal = Double.MAX_VALUE;
      for (int k = 0; k <= n; k++) {
        s.optimal = Math.min(s.optimal, s.busiestLink(k, n));
      }
      return s;
    }

    /** Bytes over the busiest rack link with k of n reduces on the first rack: uplink or downlink. */
    double busiestLink(int k, int n) {
      List<Long> d = List.copyOf(outputPerRack.values());
      double total = d.get(0) + d.get(1);
      double worst = 0;
      int[] ks = {k, n - k};
      for (int i = 0; i < 2; i++) {
        worst = Math.max(worst, Math.max(d.get(i) * (double) (n - ks[i]) / n, ks[i] * (total - d.get(i)) / n));
      }
      return worst;
    }
  }

  private static String application(org.apache.hadoop.mapreduce.Job job) {
    return job.getJobID().toString().replace("job_", "application_");
  }

  @Test
  @Order(Integer.MAX_VALUE)
  void anApplicationMasterKilledMidJobIsRestartedAndTheJobCompletes() throws Exception {
    RunResult r = Runs.wordCount(Policies.rein(base, "late"), small, path("out-am-restart"), "am-restart", 0.3f,
        job -> {
          List<Processes.Proc> ams = Processes.appMasters(application(job));
          assertEquals(1, ams.size(), "one AM runs");
          Processes.signal("-KILL", List.of(ams.get(0).pid));
        });
    assertTrue(r.succeeded && r.outputOk, "the second AM attempt finishes the job: " + r.toJson());
    List<String> second = Files.readAllLines(cluster.amLog(r.jobId, 2), StandardCharsets.UTF_8);
    assertTrue(second.stream().anyMatch(l -> l.contains("rein: policy late")), "rein drives the second AM too");
  }
}
