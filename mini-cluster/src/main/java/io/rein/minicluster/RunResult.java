package io.rein.minicluster;

import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser.TaskAttemptInfo;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser.TaskInfo;
import org.apache.hadoop.mapreduce.v2.jobhistory.JobHistoryUtils;

/**
 * What one job run measured: counters from the job, and every attempt (node, start, end, how it
 * ended) from the job-history file the AM wrote, which is kept beside the results.
 */
public final class RunResult {
  public final String policy;
  public final String job;
  public final String jobId;
  public final boolean succeeded;
  public final double jobSeconds;
  public final int tasks;
  /** Launched attempts beyond one per task that were not retries after a failure: the copies. */
  public final int speculativeLaunched;
  /** Tasks won by a later attempt while an earlier one was killed. */
  public final int speculativeWon;
  public final int killedAttempts;
  public final int failedAttempts;
  public final double containerSeconds;
  /** Run time of the attempts that were killed or failed. */
  public final double wastedContainerSeconds;
  public final long reinLaunched;
  public final long reinRestarts;
  public final long reinClones;
  public final long reinVetoes;
  public final long reinMoves;
  /** Tasks run inside the AM (an uber job). */
  public final long uberTasks;
  public final long reinFallback;
  public final boolean outputOk;
  /** Launched attempts per task attempt id → the node ({@code host:port}) they ran on. */
  public final Map<String, String> attemptNodes = new TreeMap<>();
  /** Launched attempts → how they ended (SUCCEEDED, KILLED, FAILED). */
  public final Map<String, String> attemptStatus = new TreeMap<>();
  /** Successful map attempts → the bytes they wrote for the reduces (materialized map output). */
  public final Map<String, Long> mapOutputBytes = new TreeMap<>();
  public final Path history;

  private RunResult(String policy, String jobName, String jobId, boolean succeeded, Counters c, double jobSeconds,
      boolean outputOk, Path history, JobHistoryParser.JobInfo info) {
    this.policy = policy;
    this.job = jobName;
    this.jobId = jobId;
    this.jobSeconds = jobSeconds;
    this.outputOk = outputOk;
    this.history = history;
    this.succeeded = succeeded;
    this.reinLaunched = c.findCounter("io.rein.yarn.ReinCounters", "SPECULATIVE_LAUNCHED").getValue();
    this.reinRestarts = c.findCounter("io.rein.yarn.ReinCounters", "RESTARTS").getValue();
    this.reinClones = c.findCounter("io.rein.yarn.ReinCounters", "CLONES").getValue();
    this.reinVetoes = c.findCounter("io.rein.yarn.ReinCounters", "VETOES").getValue();
    this.reinMoves = c.findCounter("io.rein.yarn.ReinCounters", "MOVES").getValue();
    this.uberTasks = c.findCounter(JobCounter.TOTAL_LAUNCHED_UBERTASKS).getValue();
    this.reinFallback = c.findCounter("io.rein.yarn.ReinCounters", "FALLBACK").getValue();
    this.containerSeconds = (c.findCounter(JobCounter.MILLIS_MAPS).getValue()
        + c.findCounter(JobCounter.MILLIS_REDUCES).getValue()) / 1000.0;

    int launched = 0;
    int killed = 0;
    int failed = 0;
    int won = 0;
    long wastedMs = 0;
    for (TaskInfo t : info.getAllTasks().values()) {
      TaskAttemptID winner = t.getSuccessfulAttemptId();
      TaskAttemptInfo first = null;
      for (TaskAttemptInfo a : t.getAllTaskAttempts().values()) {
        if (a.getStartTime() <= 0) {
          continue; // asked for, never launched
        }
        launched++;
        attemptNodes.put(a.getAttemptId().toString(), a.getHostname() + ":" + a.getPort());
        attemptStatus.put(a.getAttemptId().toString(), String.valueOf(a.getTaskStatus()));
        if ("SUCCEEDED".equals(a.getTaskStatus()) && a.getAttemptId().getTaskType() == TaskType.MAP
            && a.getCounters() != null) {
          mapOutputBytes.put(a.getAttemptId().toString(),
              a.getCounters().findCounter(TaskCounter.MAP_OUTPUT_MATERIALIZED_BYTES).getValue());
        }
        if (first == null || a.getAttemptId().getId() < first.getAttemptId().getId()) {
          first = a;
        }
        String status = a.getTaskStatus();
        if ("KILLED".equals(status) || "FAILED".equals(status)) {
          wastedMs += Math.max(0, a.getFinishTime() - a.getStartTime());
          if ("KILLED".equals(status)) {
            killed++;
          } else {
            failed++;
          }
        } else if (!"SUCCEEDED".equals(status) && winner != null && info.getFinishTime() > 0) {
          // Killed after its task succeeded, but the job ended before the AM wrote the kill (on a
          // node at 1/6 of a CPU the container can outlive the job): it ran until the job's end.
          wastedMs += Math.max(0, info.getFinishTime() - a.getStartTime());
          killed++;
        }
      }
      // A copy won when its task succeeded with an attempt other than the first, and the first
      // did not fail (that later attempt would be a retry, not a copy).
      if (winner != null && first != null && !winner.equals(first.getAttemptId())
          && !"FAILED".equals(first.getTaskStatus())) {
        won++;
      }
    }
    this.tasks = info.getAllTasks().size();
    this.killedAttempts = killed;
    this.failedAttempts = failed;
    this.speculativeLaunched = Math.max(0, launched - tasks - failed);
    this.speculativeWon = won;
    this.wastedContainerSeconds = wastedMs / 1000.0;
  }

  /**
   * Measures a finished job; waits (up to a minute) for the AM to publish its history file. A
   * job history server, when one runs, may already have moved the file to its done directory.
   */
  public static RunResult of(String policy, String jobName, Job job, double jobSeconds, boolean outputOk)
      throws IOException, InterruptedException {
    Configuration conf = job.getConfiguration();
    Path intermediate = new Path(JobHistoryUtils.getConfiguredHistoryIntermediateDoneDirPrefix(conf));
    Path done = new Path(JobHistoryUtils.getConfiguredHistoryServerDoneDirPrefix(conf));
    FileSystem fs = intermediate.getFileSystem(conf);
    String name = job.getJobID().toString() + "-*.jhist";
    for (int i = 0; i < 600; i++) {
      for (Path glob : new Path[] {new Path(intermediate, "*/" + name), new Path(done, "*/*/*/*/" + name)}) {
        FileStatus[] found = fs.globStatus(glob);
        if (found != null && found.length > 0) {
          try {
            return fromJob(policy, jobName, job, jobSeconds, outputOk, found[0].getPath());
          } catch (java.io.FileNotFoundException movedMeanwhile) {
            // the history server moved it between the listing and the read: look again
          }
        }
      }
      Thread.sleep(100);
    }
    throw new IOException("no history file for " + job.getJobID() + " under " + intermediate + " or " + done);
  }

  private static RunResult fromJob(String policy, String jobName, Job job, double jobSeconds, boolean outputOk,
      Path history) throws IOException {
    boolean ok;
    try {
      ok = job.isSuccessful();
    } catch (IOException e) {
      ok = false;
    }
    Counters c;
    try {
      c = job.getCounters();
    } catch (IOException e) {
      c = new Counters();
    }
    JobHistoryParser.JobInfo info = new JobHistoryParser(history.getFileSystem(job.getConfiguration()), history).parse();
    return new RunResult(policy, jobName, job.getJobID().toString(), ok, c, jobSeconds, outputOk, history, info);
  }

  /**
   * Measures a finished job from its history file alone (the cluster bed, where jobs are submitted
   * by another process): counters, outcome and every attempt from the file; {@code job_seconds} is
   * the job's submit to finish time as the AM recorded it.
   */
  public static RunResult fromHistory(String policy, String jobName, Configuration conf, Path history,
      boolean outputOk) throws IOException {
    JobHistoryParser.JobInfo info = new JobHistoryParser(history.getFileSystem(conf), history).parse();
    Counters c = info.getTotalCounters() == null ? new Counters() : info.getTotalCounters();
    double seconds = Math.max(0, info.getFinishTime() - info.getSubmitTime()) / 1000.0;
    return new RunResult(policy, jobName, info.getJobId().toString(), "SUCCEEDED".equals(info.getJobStatus()), c,
        seconds, outputOk, history, info);
  }

  public String toJson() {
    return toJson("");
  }

  /** The run as one JSON object; {@code extra} (e.g. {@code "\"rep\": 1, "}) goes right after the policy. */
  public String toJson(String extra) {
    return String.format(Locale.ROOT,
        "{\"policy\": \"%s\", " + extra.replace("%", "%%") + "\"job\": \"%s\", \"job_seconds\": %.1f, \"speculative_launched\": %d, "
            + "\"speculative_won\": %d, \"wasted_container_seconds\": %.1f, \"output_ok\": %s, "
            + "\"container_seconds\": %.1f, \"killed_attempts\": %d, \"failed_attempts\": %d, "
            + "\"rein_launched\": %d, \"rein_restarts\": %d, \"rein_clones\": %d, \"rein_fallback\": %d}",
        policy, job, jobSeconds, speculativeLaunched, speculativeWon, wastedContainerSeconds,
        outputOk && succeeded, containerSeconds, killedAttempts, failedAttempts, reinLaunched, reinRestarts,
        reinClones, reinFallback);
  }
}
