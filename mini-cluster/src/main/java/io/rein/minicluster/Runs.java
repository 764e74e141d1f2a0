package io.rein.minicluster;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;

/** Runs a WordCount job to completion and measures it. */
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
}
