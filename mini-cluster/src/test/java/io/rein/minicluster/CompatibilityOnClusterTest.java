package io.rein.minicluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Cluster;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * rein under the job settings operators run it with, on the shared embedded 3-NM cluster with
 * the job history server on: the job class loader, speculation switched off for one task type, and an
 * uber job. Every job must succeed with its output checked word by word.
 *
 * <p>The switch tests run an eager LATE — every task but the fastest of its type is slow enough
 * (SlowTaskThreshold 1.0), copies may fill every slot, a task is judged after 1 s — so that both
 * task types would be copied if the switch were not honoured.
 */
@ExtendWith(SharedCluster.class)
class CompatibilityOnClusterTest {
  private static ReinCluster cluster;
  private static Configuration base;
  private static File dir;
  private static WordCountWorkload small;

  @BeforeAll
  static void writeInput() throws Exception {
    dir = new File("target/it-compat").getAbsoluteFile();
    cluster = SharedCluster.get();
    base = cluster.jobConf();
    small = new WordCountWorkload(base, path("in-small"), 4, 1L << 20, 17);
  }

  private static Path path(String name) {
    return new Path(new File(dir, name).getPath());
  }

  private static RunResult run(Configuration conf, String label) throws Exception {
    RunResult r = Runs.wordCount(conf, small, path("out-" + label), label);
    assertTrue(r.succeeded && r.outputOk, label + ": the job succeeds with the right output: " + r.toJson());
    return r;
  }

  private static List<String> amLog(RunResult r, String needle) throws Exception {
    return cluster.amLogLines(r.jobId, needle);
  }

  /** Attempts after the first of the tasks of one type ("_m_" or "_r_"): the copies. */
  private static List<String> copies(RunResult r, String type) {
    return r.attemptNodes.keySet().stream().filter(a -> a.contains(type) && !a.endsWith("_0"))
        .collect(Collectors.toList());
  }

  /**
   * With {@code mapreduce.job.classloader=true} the AM loads job classes apart from its own; rein
   * still runs the job (no fallback) and its counters reach the history server, which serves the
   * finished job. The same job has reduce speculation off: only maps are copied.
   */
  @Test
  void underTheJobClassLoaderWithReduceSpeculationOffOnlyMapsAreCopied() throws Exception {
    Configuration conf = eagerLate();
    conf.setBoolean(MRJobConfig.MAPREDUCE_JOB_CLASSLOADER, true);
    conf.setBoolean(MRJobConfig.REDUCE_SPECULATIVE, false);
    RunResult r = run(conf, "classloader-maps-only");
    assertEquals(0, r.reinFallback, "rein, not the fallback, ran the job");
    assertTrue(copies(r, "_r_").isEmpty(), "no reduce was copied: " + r.attemptNodes.keySet());
    assertFalse(copies(r, "_m_").isEmpty(), "maps were copied: " + r.toJson());
    assertTrue(r.reinLaunched >= 1, "LATE copied: " + r.toJson());
    // The AM is gone: the job's status and counters now come from the history server.
    Job fromHistory = new Cluster(conf).getJob(JobID.forName(r.jobId));
    assertTrue(fromHistory != null && fromHistory.isSuccessful(), "the history server serves the job");
    assertEquals(r.reinLaunched,
        fromHistory.getCounters().findCounter("io.rein.yarn.ReinCounters", "SPECULATIVE_LAUNCHED").getValue(),
        "rein's counters are in the job's history");
  }

  /** LATE that copies every task it can: all but the fastest of a type, into every free slot. */
  private static Configuration eagerLate() {
    Configuration conf = Policies.rein(base, "late");
    conf.set("rein.late.slow-task-threshold", "1.0");
    conf.set("rein.late.speculative-cap", "1.0");
    conf.set("rein.late.min-runtime-ms", "1000");
    // LATE as printed: without rein's adaptations (GRASS's cost test would refuse copies of
    // tasks that gain nothing, which is right, but these tests need copies to see the switches).
    conf.set("rein.late.grass", "false");
    conf.set("rein.late.first-progress-factor", "0");
    conf.set("rein.late.rate-pool", "all");
    conf.set("rein.late.cap-covers-slow-nodes", "false");
    conf.set("rein.late.reduce-waits-for-maps", "false");
    conf.setInt(MRJobConfig.NUM_REDUCES, 2);
    return conf;
  }

  /**
   * A sleep job of 1-s maps and 10-s reduces: the reduces outlive the maps by far, so the copies
   * LATE asks of them get containers (WordCount's reduces here end within a second or two of the
   * maps, often before a copy can start).
   */
  @Test
  void withMapSpeculationOffOnlyReducesAreCopied() throws Exception {
    Configuration conf = eagerLate();
    conf.setBoolean(MRJobConfig.MAP_SPECULATIVE, false);
    RunResult r = Runs.sleep(conf, "reduces-only", 4, 2, 1_000, 10_000);
    assertTrue(r.succeeded && r.outputOk, "the job succeeds and its reduces read every record: " + r.toJson());
    assertEquals(0, r.reinFallback);
    assertTrue(copies(r, "_m_").isEmpty(), "no map was copied: " + r.attemptNodes.keySet());
    assertFalse(copies(r, "_r_").isEmpty(), "reduces were copied: " + r.toJson());
    assertTrue(amLog(r, "speculation of this task type is off").isEmpty(), "rein never even proposed a map copy");
  }

  /**
   * An uber job runs its tasks inside the AM: rein takes no action (Dolly would clone every task
   * of a job it drove), and says so if it sees the job at all.
   */
  @Test
  void anUberJobRunsWithReinStandingAside() throws Exception {
    Configuration conf = Policies.rein(base, "dolly");
    conf.setBoolean(MRJobConfig.JOB_UBERTASK_ENABLE, true);
    conf.setInt(MRJobConfig.MR_AM_VMEM_MB, ReinCluster.CONTAINER_MB);
    RunResult r = run(conf, "uber");
    assertEquals(0, r.reinFallback);
    assertTrue(r.uberTasks > 0, "the job ran as an uber job");
    assertEquals(0, r.reinClones + r.reinLaunched + r.reinRestarts + r.reinVetoes + r.reinMoves, r.toJson());
    System.out.println("uber job: rein " + (amLog(r, "runs as an uber job").isEmpty()
        ? "was not told of the job (the AM turned speculation events off)" : "saw the job and stood aside"));
  }
}
