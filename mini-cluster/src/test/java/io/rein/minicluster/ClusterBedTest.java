package io.rein.minicluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.CounterGroup;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * rein on the multi-process cluster of {@code scripts/cluster.sh}, installed only as the README's
 * install section says (its path appended to {@code mapreduce.application.classpath}), jobs
 * submitted through the examples jar's command line: WordCount under LATE with one slow node
 * (output checked word by word, rein's counter group in the job's counters, a copy that wins,
 * decisions logged with their reasons naming the slow node, the veto loop), then a job that
 * brings rein with {@code -libjars} and loses a node; the cluster is brought down with no process
 * left behind, also when a test fails. (The demo and the benchmark install rein the third way:
 * the jar copied into share/hadoop/mapreduce/lib.)
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterBedTest {
  private static final File REPO = new File("..").getAbsoluteFile();
  private static final File OUT = new File("target/cluster-bed-test").getAbsoluteFile();
  private static ClusterBed bed;
  private static WordCountWorkload wc;

  @BeforeAll
  static void up() throws Exception {
    OUT.mkdirs();
    bed = ClusterBed.up(REPO, 3, 2, new File(OUT, "cluster.log"));
    wc = new WordCountWorkload(bed.conf(), new Path("/test/input"), 5, 1L << 20, 7);
  }

  @AfterAll
  static void down() throws Exception {
    if (bed != null) {
      bed.close();
    }
    Process p = new ProcessBuilder("pgrep", "-f", "--", new File(REPO, "target/cluster/").getPath()).start();
    String left = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    p.waitFor();
    assertEquals("", left, "processes of the cluster left after cluster.sh down");
  }

  @Test
  @Order(1)
  void wordCountUnderLateWithASlowNodeOnTheInstalledJar() throws Exception {
    // The route the README gives first: the jar's path appended to mapreduce.application.classpath
    // (the demo and the benchmark take the other: the jar copied into share/hadoop/mapreduce/lib).
    bed.installRein(Demo.reinJar(REPO), "classpath");
    assertDaemonsDoNotHoldRein();
    List<String> args = new ArrayList<>(List.of("examples", "wordcount", "-Drein.policy=late",
        "-Drein.late.min-runtime-ms=5000", "-Dmapreduce.input.fileinputformat.split.minsize=1099511627776",
        "/test/input", "/test/out-late"));
    File client = new File(OUT, "late-client.log");
    Process p = bed.start(args, client);
    String jobId = ClusterBed.awaitJobId(p, client, 120);
    int am = bed.awaitAmNode(jobId, 120);
    int slow = am == 2 ? 3 : 2;
    bed.slow(slow, 1.0 / 6);
    assertTrue(p.waitFor(600, java.util.concurrent.TimeUnit.SECONDS), "the job ran over 10 min");
    bed.slow(slow, 1);
    assertEquals(0, p.exitValue(), "wordcount failed:\n" + ClusterBed.tail(client, 30));
    Configuration conf = bed.conf();
    assertTrue(wc.verify(conf, new Path("/test/out-late")), "WordCount's output differs from the input's word counts");

    Path hist = bed.fetchHistory(jobId, new File(OUT, jobId + ".jhist"));
    JobHistoryParser.JobInfo info = new JobHistoryParser(hist.getFileSystem(conf), hist).parse();
    CounterGroup rein = info.getTotalCounters().getGroup("io.rein.yarn.ReinCounters");
    assertNotNull(rein);
    assertEquals("rein speculation", rein.getDisplayName(), "rein's counter group in the job's counters");
    assertEquals(0, rein.findCounter("FALLBACK").getValue(), "rein fell back to stock: see the AM log");
    String amLog = Files.readString(bed.amLog(jobId).toPath());
    assertTrue(amLog.contains("rein: policy late"), "the AM did not run rein's LATE");
    RunResult r = RunResult.fromHistory("late", "wordcount", conf, hist, true);
    System.err.printf("late on the cluster bed: %.1f s, %d copies (%d won), node %d slowed, AM on node %d%n",
        r.jobSeconds, r.speculativeLaunched, r.speculativeWon, slow, am);
    assertTrue(r.reinLaunched >= 1, "rein launched a copy: " + r.toJson());
    assertTrue(r.speculativeWon >= 1, "a copy beat its straggler: " + r.toJson());
    List<String> decisions = amLog.lines().filter(l -> l.contains("rein: speculate")).collect(Collectors.toList());
    assertTrue(!decisions.isEmpty() && decisions.get(0).contains("LATE §4"), "decisions are logged with reasons");
    String slowNode = ClusterBed.host(slow) + ":";
    assertTrue(decisions.stream().allMatch(l -> l.contains(slowNode)), "the slow node is named to avoid: " + decisions);
    assertNoCopyStayedOnTheSlowNode(r, amLog, slowNode, 2);
  }

  /**
   * The veto loop: YARN, not rein, places a copy, so a copy of the slow node's straggler may
   * land on that same node; when it does, rein kills it at once and Hadoop places a replacement.
   * Every copy that landed on the slow node was vetoed, unless its task had used up its
   * {@code maxVetoes} (on a full cluster the slot a veto frees is on the slow node itself, so a
   * replacement can land there again); each veto is counted.
   */
  private static void assertNoCopyStayedOnTheSlowNode(RunResult r, String amLog, String slowNode, int maxVetoes) {
    assertEquals(0, r.failedAttempts, "no attempt failed, so every later attempt is a copy: " + r.toJson());
    List<String> vetoed = amLog.lines().filter(l -> l.contains("rein: veto ")).collect(Collectors.toList());
    int landed = 0;
    for (java.util.Map.Entry<String, String> a : r.attemptNodes.entrySet()) {
      if (a.getKey().endsWith("_0") || !a.getValue().startsWith(slowNode)) {
        continue; // a task's first attempt, or a copy elsewhere
      }
      landed++;
      String task = a.getKey().substring(0, a.getKey().lastIndexOf('_'));
      long vetoesOfTask = vetoed.stream().filter(l -> l.contains(task)).count();
      assertTrue(vetoed.stream().anyMatch(l -> l.contains(a.getKey() + ":")) || vetoesOfTask == maxVetoes,
          a.getKey() + " on the slow node was vetoed: " + vetoed);
    }
    assertEquals(vetoed.size(), r.reinVetoes, "each veto is counted");
    System.err.printf("veto loop: %d copies landed on the slow node, %d vetoes%n", landed, vetoed.size());
  }

  /**
   * A job that brings rein itself with {@code -libjars} (nothing installed on the cluster), and a
   * node that dies after its maps are done: Hadoop re-runs the maps that succeeded there (their
   * output died with it); rein is told the node is unusable, reopens those tasks, and the job
   * finishes with the right output. Last: the cluster keeps one node fewer.
   */
  @Test
  @Order(2)
  void aJobBringsReinWithLibjarsAndLosesANodeAfterItsMaps() throws Exception {
    bed.uninstallRein();
    File client = new File(OUT, "loss-client.log");
    Process p = bed.start(List.of("examples", "wordcount", "-libjars", Demo.reinJar(REPO).getAbsolutePath(),
        "-Dyarn.app.mapreduce.am.job.speculator.class=io.rein.yarn.ReinSpeculator",
        "-Drein.policy=late", "-Drein.late.min-runtime-ms=5000",
        "-Dmapreduce.job.reduce.slowstart.completedmaps=1.0",
        "-Dmapreduce.input.fileinputformat.split.minsize=1099511627776", "/test/input", "/test/out-loss"), client);
    String jobId = ClusterBed.awaitJobId(p, client, 120);
    int am = bed.awaitAmNode(jobId, 120);
    long deadline = System.nanoTime() + 300_000_000_000L;
    while (!Files.readString(client.toPath()).contains("map 100%") && p.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    int victim = am == 1 ? 2 : 1;
    bed.killNode(victim);
    assertTrue(p.waitFor(600, java.util.concurrent.TimeUnit.SECONDS), "the job ran over 10 min after the node loss");
    assertEquals(0, p.exitValue(), "wordcount failed after a node loss:\n" + ClusterBed.tail(client, 30));
    assertTrue(wc.verify(bed.conf(), new Path("/test/out-loss")), "WordCount's output is wrong after a node loss");
    Path hist = bed.fetchHistory(jobId, new File(OUT, jobId + ".jhist"));
    JobHistoryParser.JobInfo info = new JobHistoryParser(hist.getFileSystem(bed.conf()), hist).parse();
    assertEquals(0, info.getTotalCounters().getGroup("io.rein.yarn.ReinCounters").findCounter("FALLBACK").getValue(),
        "rein kept running through the loss");
    String amLog = Files.readString(bed.amLog(jobId).toPath());
    assertTrue(amLog.contains("rein: policy late"), "the AM did not load rein from -libjars");
    assertFalse(amLog.contains("the job continues under"), "rein fell back under -libjars");
    assertTrue(amLog.contains("rein: node " + ClusterBed.host(victim)), "rein was not told node " + victim
        + " is unusable; its AM log:\n" + amLog.lines().filter(l -> l.contains("rein")).reduce("", (a, b) -> a + b + "\n"));
  }

  /** No daemon's command line names rein: only MapReduce containers load it. */
  private static void assertDaemonsDoNotHoldRein() throws Exception {
    for (File pid : new File(REPO, "target/cluster/pids").listFiles()) {
      String id = Files.readString(pid.toPath()).trim();
      String cmd = Files.readString(new File("/proc/" + id + "/cmdline").toPath()).replace('\0', ' ');
      assertFalse(cmd.contains("rein-yarn") || cmd.contains("mapreduce/lib"),
          pid.getName() + "'s classpath holds rein or share/hadoop/mapreduce/lib: " + cmd);
    }
  }
}
