package io.rein.minicluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * One benchmark run: a job (or, in the small-jobs scenario, a stream of jobs) under one policy,
 * with the metrics of EVALUATION.md. For a stream, {@code job_seconds} is the mean job time
 * (mean flowtime) and the counts are summed over its jobs.
 */
final class BenchRecord {
  final String scenario;
  final String job;
  final String policy;
  final int rep;
  /** Where it ran: {@code cluster} (the multi-process bed) or {@code embedded}. */
  String bed = "embedded";
  /** How stragglers were made: {@code cgroup} (a node's CPU quota) or {@code sigstop} (duty cycles). */
  String injector = "sigstop";
  final List<String> jobIds = new ArrayList<>();
  final List<Double> streamJobSeconds = new ArrayList<>();
  final List<String> jhist = new ArrayList<>();
  double jobSeconds;
  int tasks;
  int speculativeLaunched;
  int speculativeWon;
  long restarts;
  long clones;
  long vetoes;
  int killedAttempts;
  int failedAttempts;
  double containerSeconds;
  double wastedContainerSeconds;
  boolean succeeded = true;
  boolean outputOk = true;
  long fallback;
  /** Why the run could not be measured, when it could not. */
  String error;

  BenchRecord(String scenario, String job, String policy, int rep) {
    this.scenario = scenario;
    this.job = job;
    this.policy = policy;
    this.rep = rep;
  }

  /** Adds one finished job of this run. */
  void add(RunResult r, boolean outputMatches, String jhistPath) {
    jobIds.add(r.jobId);
    streamJobSeconds.add(r.jobSeconds);
    jhist.add(jhistPath);
    jobSeconds = streamJobSeconds.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    tasks += r.tasks;
    speculativeLaunched += r.speculativeLaunched;
    speculativeWon += r.speculativeWon;
    restarts += r.reinRestarts;
    clones += r.reinClones;
    vetoes += r.reinVetoes;
    killedAttempts += r.killedAttempts;
    failedAttempts += r.failedAttempts;
    containerSeconds += r.containerSeconds;
    wastedContainerSeconds += r.wastedContainerSeconds;
    succeeded &= r.succeeded;
    outputOk &= r.succeeded && outputMatches;
    fallback += r.reinFallback;
  }

  void fail(String why) {
    error = why;
    succeeded = false;
    outputOk = false;
  }

  boolean measured() {
    return error == null && succeeded;
  }

  String toJson() {
    StringBuilder b = new StringBuilder("{");
    field(b, "scenario", str(scenario));
    field(b, "job", str(job));
    field(b, "policy", str(policy));
    field(b, "rep", Integer.toString(rep));
    field(b, "bed", str(bed));
    field(b, "injector", str(injector));
    field(b, "job_seconds", num(jobSeconds));
    field(b, "speculative_launched", Integer.toString(speculativeLaunched));
    field(b, "speculative_won", Integer.toString(speculativeWon));
    field(b, "restarts", Long.toString(restarts));
    field(b, "clones", Long.toString(clones));
    field(b, "vetoes", Long.toString(vetoes));
    field(b, "container_seconds", num(containerSeconds));
    field(b, "wasted_container_seconds", num(wastedContainerSeconds));
    field(b, "output_ok", Boolean.toString(outputOk));
    field(b, "succeeded", Boolean.toString(succeeded));
    field(b, "tasks", Integer.toString(tasks));
    field(b, "killed_attempts", Integer.toString(killedAttempts));
    field(b, "failed_attempts", Integer.toString(failedAttempts));
    field(b, "rein_fallback", Long.toString(fallback));
    field(b, "stream_job_seconds", list(streamJobSeconds.stream().map(BenchRecord::num).collect(Collectors.toList())));
    field(b, "job_ids", list(jobIds.stream().map(BenchRecord::str).collect(Collectors.toList())));
    field(b, "jhist", list(jhist.stream().map(BenchRecord::str).collect(Collectors.toList())));
    field(b, "error", error == null ? "null" : str(error));
    b.setLength(b.length() - 2);
    return b.append('}').toString();
  }

  private static void field(StringBuilder b, String name, String json) {
    b.append('"').append(name).append("\": ").append(json).append(", ");
  }

  private static String list(List<String> items) {
    return "[" + String.join(", ", items) + "]";
  }

  static String num(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  static String str(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }
}
