package io.rein.minicluster;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;

/** Runs a WordCount job to completion and measures it. */
public final class Runs {
  private Runs() {}

  public static RunResult wordCount(Configuration conf, WordCountWorkload workload, Path output, String policy)
      throws IOException, InterruptedException, ClassNotFoundException {
    output.getFileSystem(conf).delete(output, true);
    Job job = workload.job(conf, output, "wordcount-" + policy);
    long start = System.nanoTime();
    boolean done = job.waitForCompletion(false);
    double seconds = (System.nanoTime() - start) / 1e9;
    boolean ok = done && workload.verify(conf, output);
    return RunResult.of(policy, "wordcount", job, seconds, ok);
  }
}
