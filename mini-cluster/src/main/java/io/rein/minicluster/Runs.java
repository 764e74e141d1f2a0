package io.rein.minicluster;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;

/** Runs a WordCount or sleep job to completion and measures it. */
public final class Runs {
  private Runs() {}

  /** Something done to the cluster while a job runs. */
  public interface MidJob {
    void act(Job job) throws Exception;
  }

  public static RunResult wordCount(Configuration conf, WordCountWorkload workload, Path output, String policy)
      throws Exception {
    return wordCount(conf, workload, output, policy, 0, null);
  }

  /**
   * Runs WordCount; once the map phase has reached {@code atMapProgress}, does {@code midJob}
   * (when given) and then waits for the job to end.
   */
  public static RunResult wordCount(Configuration conf, WordCountWorkload workload, Path output, String policy,
      float atMapProgress, MidJob midJob) throws Exception {
    output.getFileSystem(conf).delete(output, true);
    Job job = workload.job(conf, output, "wordcount-" + policy);
    long start = System.nanoTime();
    job.submit();
    if (midJob != null) {
      while (!job.isComplete() && job.mapProgress() < atMapProgress) {
        Thread.sleep(200);
      }
      midJob.act(job);
    }
    boolean done = job.waitForCompletion(false);
    double seconds = (System.nanoTime() - start) / 1e9;
    boolean ok = done && workload.verify(conf, output);
    return RunResult.of(policy, "wordcount", job, seconds, ok);
  }

  /**
   * Runs a {@link NodeSleepJob} of {@code maps} maps and {@code reduces} reduces on equal nodes; its
   * output is right when the reduces read every record the maps wrote.
   */
  public static RunResult sleep(Configuration conf, String label, int maps, int reduces, long mapMs, long reduceMs)
      throws Exception {
    Job job = NodeSleepJob.create(conf, label, maps, reduces, mapMs, reduceMs, java.util.Map.of());
    long start = System.nanoTime();
    boolean done = job.waitForCompletion(false);
    double seconds = (System.nanoTime() - start) / 1e9;
    long read = job.getCounters().findCounter(org.apache.hadoop.mapreduce.TaskCounter.REDUCE_INPUT_RECORDS).getValue();
    return RunResult.of(label, "sleep", job, seconds, done && read == NodeSleepJob.expectedReduceRecords(maps, reduces));
  }
}
