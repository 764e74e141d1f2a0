package io.rein.minicluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * rein inside a real MapReduce ApplicationMaster on an embedded YARN cluster with one NodeManager
 * slowed 6×: LATE copies the stragglers, a broken native library falls back to stock
 * speculation, and {@code rein.policy=none} copies nothing. Every job's output is checked.
 */
class LateOnClusterTest {
  private static ReinCluster cluster;
  private static StragglerInjector slowNode;
  private static WordCountWorkload workload;
  private static Configuration base;
  private static File dir;

  @BeforeAll
  static void startCluster() throws Exception {
    dir = new File("target/it-late").getAbsoluteFile();
    cluster = new ReinCluster("rein-it-late", 3, 3);
    base = cluster.jobConf();
    base.set("rein.late.min-runtime-ms", "5000");
    workload = new WordCountWorkload(base, new Path(new File(dir, "input").getPath()), 12, 4L << 20, 7);
    slowNode = new StragglerInjector(Map.of(1, 6.0), 500);
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (slowNode != null) {
      slowNode.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static RunResult run(Configuration conf, String label) throws Exception {
    return Runs.wordCount(conf, workload, new Path(new File(dir, "out-" + label).getPath()), label);
  }

  private static List<String> amLogLines(RunResult r, String needle) throws Exception {
    return Files.readAllLines(cluster.amLog(r.jobId), StandardCharsets.UTF_8).stream()
        .filter(l -> l.contains(needle)).collect(Collectors.toList());
  }

  @Test
  void lateCopiesTheSlowNodesTasksAndACopyWins() throws Exception {
    RunResult r = run(Policies.rein(base, "late"), "late");
    assertTrue(r.succeeded && r.outputOk, "job succeeds with the right output");
    assertEquals(0, r.reinFallback, "rein itself ran the job");
    assertTrue(r.reinLaunched >= 1, "rein launched a copy: " + r.toJson());
    assertTrue(r.speculativeLaunched >= 1, "the copy shows in the job history: " + r.toJson());
    assertTrue(r.speculativeWon >= 1, "a copy beat its straggler: " + r.toJson());
    List<String> decisions = amLogLines(r, "rein: speculate");
    assertTrue(!decisions.isEmpty() && decisions.get(0).contains("LATE §4"), "decisions are logged with reasons");
    String slow = cluster.nodeId(1);
    assertTrue(decisions.stream().allMatch(l -> l.contains(slow)), "the slow node is named to avoid: " + decisions);
  }

  @Test
  void anUnloadableLibraryFallsBackToStockAndTheJobCompletes() throws Exception {
    Configuration conf = Policies.rein(base, "late");
    conf.set("rein.native.library", "/nonexistent/librein.so");
    RunResult r = run(conf, "fallback");
    assertTrue(r.succeeded && r.outputOk, "job succeeds with the right output");
    assertEquals(1, r.reinFallback, "the fallback is counted");
    assertEquals(0, r.reinLaunched);
    assertEquals(1, amLogLines(r, "the job continues under Hadoop's DefaultSpeculator").size(),
        "the cause is logged once");
  }

  @Test
  void policyNoneLaunchesNoCopies() throws Exception {
    RunResult r = run(Policies.rein(base, "none"), "none");
    assertTrue(r.succeeded && r.outputOk, "job succeeds with the right output");
    assertEquals(0, r.reinFallback);
    assertEquals(0, r.reinLaunched);
    assertEquals(0, r.speculativeLaunched, r.toJson());
    assertEquals(1, amLogLines(r, "rein: policy none").size());
  }
}
