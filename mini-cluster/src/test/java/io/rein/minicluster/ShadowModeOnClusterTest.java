package io.rein.minicluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Shadow mode in a real ApplicationMaster on the shared embedded 3-NM YARN cluster, NodeManager 1
 * slowed 6×: Hadoop's DefaultSpeculator runs a WordCount job, rein (LATE) sees the same events
 * and only logs what it would have done. The job's output is checked word by word; rein takes no
 * action of its own; the decision log holds rein's shadow decisions, their scored outcomes and a
 * summary.
 *
 * <p>DefaultSpeculator is allowed no copies here (its three caps at 0): when it copies the slow
 * node's tasks first, those copies fill the free slots and LATE, which counts them, rightly
 * proposes nothing, and the test would see no shadow decision to check.
 */
@ExtendWith(SharedCluster.class)
class ShadowModeOnClusterTest {
  private static final int SLOW_NM = 1;
  private static ReinCluster cluster;
  private static Configuration base;
  private static File dir;
  private static WordCountWorkload even;

  @BeforeAll
  static void writeInput() throws Exception {
    dir = new File("target/it-shadow").getAbsoluteFile();
    cluster = SharedCluster.get();
    base = cluster.jobConf();
    base.set("rein.late.min-runtime-ms", "5000");
    even = new WordCountWorkload(base, new Path(new File(dir, "in-even").getPath()), 6, 2L << 20, 7);
  }

  @Test
  void stockRunsTheJobWhileReinLogsWhatItWouldHaveDone() throws Exception {
    File log = new File(dir, "decisions.jsonl");
    Configuration conf = Policies.rein(base, "late");
    conf.set("rein.mode", "shadow");
    conf.set("rein.decision-log", log.getPath());
    conf.setInt("mapreduce.job.speculative.minimum-allowed-tasks", 0);
    conf.setDouble("mapreduce.job.speculative.speculative-cap-running-tasks", 0);
    conf.setDouble("mapreduce.job.speculative.speculative-cap-total-tasks", 0);
    RunResult r;
    try (StragglerInjector slow = new StragglerInjector(Map.of(SLOW_NM, 6.0), 500)) {
      r = Runs.wordCount(conf, even, new Path(new File(dir, "out-shadow").getPath()), "shadow");
    }
    assertTrue(r.succeeded && r.outputOk, "the job succeeds with the right output: " + r.toJson());
    assertEquals(0, r.reinFallback, "rein ran beside stock, not instead of it");
    assertEquals(0, r.reinLaunched + r.reinRestarts + r.reinClones + r.reinVetoes + r.reinMoves,
        "rein never acts in shadow mode: " + r.toJson());

    List<String> lines = Files.readAllLines(log.toPath(), StandardCharsets.UTF_8);
    assertTrue(lines.get(0).contains("\"record\":\"job\"") && lines.get(0).contains("\"mode\":\"shadow\""),
        lines.get(0));
    List<String> decisions = lines.stream().filter(l -> l.startsWith("{\"record\":\"decision\""))
        .collect(Collectors.toList());
    assertFalse(decisions.isEmpty(), "LATE would have copied the slow node's tasks: " + lines);
    assertTrue(decisions.stream().allMatch(l -> l.contains("\"shadow\":true") && l.contains("\"reason\":{")),
        decisions.toString());
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("{\"record\":\"outcome\"") && l.contains("\"not-acted\"")),
        "each shadow copy is scored when its task ends: " + lines);
    String summary = lines.get(lines.size() - 1);
    assertTrue(summary.startsWith("{\"record\":\"summary\"") && summary.contains("estimated_job_s_rein_would_save"),
        summary);
    assertFalse(cluster.amLogLines(r.jobId, "rein (shadow): would").isEmpty(), "the AM log says so too");
    System.out.printf("shadow: %d decisions; stock launched %d copies, %d won; %s%n", decisions.size(),
        r.speculativeLaunched, r.speculativeWon, summary);
  }
}
