package io.rein.yarn;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.JobACL;
import org.apache.hadoop.mapreduce.v2.api.records.AMInfo;
import org.apache.hadoop.mapreduce.v2.api.records.JobId;
import org.apache.hadoop.mapreduce.v2.api.records.JobReport;
import org.apache.hadoop.mapreduce.v2.api.records.JobState;
import org.apache.hadoop.mapreduce.v2.api.records.Phase;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptCompletionEvent;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptCompletionEventStatus;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptReport;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptState;
import org.apache.hadoop.mapreduce.v2.api.records.TaskId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskReport;
import org.apache.hadoop.mapreduce.v2.api.records.TaskState;
import org.apache.hadoop.mapreduce.v2.api.records.TaskType;
import org.apache.hadoop.mapreduce.v2.app.AppContext;
import org.apache.hadoop.mapreduce.v2.app.ClusterInfo;
import org.apache.hadoop.mapreduce.v2.app.TaskAttemptFinishingMonitor;
import org.apache.hadoop.mapreduce.v2.app.job.Job;
import org.apache.hadoop.mapreduce.v2.app.job.Task;
import org.apache.hadoop.mapreduce.v2.app.job.TaskAttempt;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskAttemptStatusUpdateEvent.TaskAttemptStatus;
import org.apache.hadoop.mapreduce.v2.app.speculate.DefaultSpeculator;
import org.apache.hadoop.mapreduce.v2.app.speculate.Speculator;
import org.apache.hadoop.mapreduce.v2.app.speculate.SpeculatorEvent;
import org.apache.hadoop.mapreduce.v2.util.MRBuilderUtils;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authorize.AccessControlList;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.event.Event;
import org.apache.hadoop.yarn.event.EventHandler;
import org.apache.hadoop.yarn.factories.RecordFactory;
import org.apache.hadoop.yarn.factory.providers.RecordFactoryProvider;
import org.apache.hadoop.yarn.security.client.ClientToAMTokenSecretManager;
import org.apache.hadoop.yarn.util.Clock;

/**
 * A benchmark, not a test: the cost of one speculation scan of Hadoop's {@link DefaultSpeculator}
 * (Legacy estimator) against one scan of {@link ReinSpeculator} under each of rein's policies, on
 * the same job state. {@code scripts/bench.sh --overhead} runs it and writes
 * {@code target/bench/overhead.json}.
 *
 * <p>The state, per size N: N running maps, each with one RUNNING attempt that reported its
 * progress three times, and N/2 maps that finished (120–140 s each), which the job's
 * attempt-completion feed lists as JobImpl's would. Running maps are on schedule (started
 * 15–110 s ago, on course for 96–120 s). Every speculator gets the same events through
 * {@code handle()}, as the AM's dispatcher sends them (container need +1/−1, attempt start,
 * status updates), and two scans before timing (a policy may ask for copies on its first scan;
 * they stay pending, and the clock stands still, so later scans act no more and do the same work
 * each time; timed scans that act fail the run). A DefaultSpeculator scan is its private
 * {@code computeSpeculations()} (called by reflection); a rein scan is {@code scanNow()}: read
 * what changed (the completion feed, the attempts events named, a walk of every attempt once in
 * {@link ReinSpeculator#RECONCILE_EVERY_SCANS} scans, so that its cost is spread over the timed
 * scans), {@code decide} over JNI, apply the actions (none).
 *
 * <p>Then a progress report through {@code handle()}, as the dispatcher hands one over, for
 * each speculator on the same reports (see {@link #reportRounds}): Hadoop's records an estimate
 * per report; rein's queues it and, a batch at a time, gives it to its engine.
 *
 * <p>Times are the thread's CPU time (on a shared machine wall time counts the waits for a
 * core); {@code -Drein.bench.clock=wall} for wall time. Contenders are interleaved round by round.
 *
 * <p>The job is made of plain fakes, not Mockito mocks: a mocked getter costs hundreds of
 * nanoseconds and DefaultSpeculator calls several times more getters per task than rein's scan,
 * so mocks would inflate its time more than rein's. The fakes take an uncontended read lock
 * where Hadoop's JobImpl, TaskImpl and TaskAttemptImpl do, and {@code getTasks(type)} copies
 * the map as JobImpl's does. In a real AM, getters can also wait for the dispatcher's write
 * locks; that cost is not here.
 *
 * <p>Run after {@code mvn -pl java test-compile} (which builds librein), from the repository root:
 * <pre>
 * mvn -q -o -pl java dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=/tmp/cp.txt
 * java -Xmx8g -cp java/target/classes:java/target/test-classes:$(cat /tmp/cp.txt) \
 *     io.rein.yarn.ScanBench [sizes, default 1000,10000,100000] [rounds, default 5] \
 *     [--policies late,...] [--criterion target/criterion] [--json out.json]
 * </pre>
 * It prints, per size, each round's time per scan, the report's cost per speculator, then the
 * median over rounds with the min–max and the ratio DefaultSpeculator / rein; with {@code --criterion}, the JSON rows carry the
 * Criterion samples of {@code decide} for the same policy and size.
 */
public final class ScanBench {
  private static final long NOW = 1_000_000;
  /** Time a round aims at per speculator; the iteration count follows from a warm-up. */
  private static final double ROUND_NANOS = 400e6;
  private static final RecordFactory RECORDS = RecordFactoryProvider.getRecordFactory(null);
  /** rein's policies, each timed as its own contender. */
  static final String[] POLICIES = {"auto", "late", "mantri", "dolly", "sca", "ese", "hadoop"};
  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  /**
   * This thread's CPU time in ns (wall time with {@code -Drein.bench.clock=wall}): the machine
   * may run other work beside the benchmark, and wall time would count the waits for a core.
   */
  private static long clock() {
    return WALL ? System.nanoTime() : THREADS.getCurrentThreadCpuTime();
  }

  private static final boolean WALL = "wall".equals(System.getProperty("rein.bench.clock"));

  private ScanBench() {}

  public static void main(String[] args) throws Exception {
    List<String> rest = new ArrayList<>();
    String json = null;
    String criterion = null;
    String[] policies = POLICIES;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--json":
          json = args[++i];
          break;
        case "--criterion":
          criterion = args[++i];
          break;
        case "--policies":
          policies = args[++i].split(",");
          break;
        default:
          rest.add(args[i]);
      }
    }
    int[] sizes = java.util.Arrays.stream((rest.size() > 0 ? rest.get(0) : "1000,10000,100000").split(","))
        .mapToInt(Integer::parseInt).toArray();
    int rounds = rest.size() > 1 ? Integer.parseInt(rest.get(1)) : 5;
    String loadBefore = loadAverage();
    List<String> rows = new ArrayList<>();
    for (int n : sizes) {
      rows.addAll(run(n, rounds, policies, criterion));
    }
    String loadAfter = loadAverage();
    System.out.printf(Locale.ROOT, "%nclock: %s; load average before %s, after %s%n",
        WALL ? "wall" : "thread CPU time", loadBefore, loadAfter);
    if (json != null) {
      StringBuilder out = new StringBuilder("[\n");
      for (int i = 0; i < rows.size(); i++) {
        String row = rows.get(i).replace("}", String.format(Locale.ROOT,
            ", \"clock\": \"%s\", \"load_before\": \"%s\", \"load_after\": \"%s\"}",
            WALL ? "wall" : "thread-cpu", loadBefore, loadAfter));
        out.append("  ").append(row).append(i + 1 < rows.size() ? ",\n" : "\n");
      }
      out.append("]\n");
      java.nio.file.Path path = java.nio.file.Paths.get(json);
      if (path.getParent() != null) {
        java.nio.file.Files.createDirectories(path.getParent());
      }
      java.nio.file.Files.write(path, out.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      System.out.println("wrote " + json);
    }
  }

  /** The 1-, 5- and 15-minute load averages, or "?" off Linux. */
  private static String loadAverage() {
    try {
      String[] f = new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get("/proc/loadavg")),
          java.nio.charset.StandardCharsets.UTF_8).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (java.io.IOException | RuntimeException e) {
      return "?";
    }
  }

  /** A speculator under test: its scan and its name. */
  private static final class Contender {
    final String name;
    final Runnable scan;
    final double[] nanosPerScan;
    int iterations;
    /** Events the speculator sent on its first two scans (copies asked for, counters). */
    int actedFirst;

    Contender(String name, Runnable scan, int rounds) {
      this.name = name;
      this.scan = scan;
      this.nanosPerScan = new double[rounds];
    }
  }

  /**
   * One size: DefaultSpeculator and rein under each policy on the same state, interleaved round
   * by round. Returns one JSON object per policy.
   */
  private static List<String> run(int running, int rounds, String[] policies, String criterion) throws Exception {
    FakeJob job = FakeJob.build(running, running / 2, new Random(42));
    FakeContext context = new FakeContext(job);
    List<SpeculatorEvent> events = job.dispatcherEvents();

    Configuration stockConf = new Configuration(false);
    DefaultSpeculator stock = new DefaultSpeculator(stockConf, context);
    stock.init(stockConf);
    Method compute = DefaultSpeculator.class.getDeclaredMethod("computeSpeculations");
    compute.setAccessible(true);
    feed(stock, job, events);

    List<Contender> contenders = new ArrayList<>();
    contenders.add(new Contender("DefaultSpeculator", () -> {
      try {
        compute.invoke(stock);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }, rounds));
    List<ReinSpeculator> reins = new ArrayList<>();
    for (String policy : policies) {
      Configuration conf = new Configuration(false);
      conf.set("rein.policy", policy);
      conf.set(DecisionLog.KEY, "off");
      ReinSpeculator rein = new ReinSpeculator(conf, context);
      rein.init(conf);
      if (!rein.isActive()) {
        throw new IllegalStateException("rein did not start; is librein built?");
      }
      rein.allocatorLookup = c -> null; // no allocator in this fake AM: no reflective search per scan
      feed(rein, job, events);
      reins.add(rein);
      contenders.add(new Contender("rein " + policy, rein::scanNow, rounds));
    }

    // A policy may act on its first scans (Mantri copies tasks whose gain passes ρΔ); the copies
    // it asked for stay pending (no attempt ever starts here) and the clock stands still, so from
    // then on each scan does the same work without acting. That is checked: timed scans must not
    // act.
    for (Contender c : contenders) {
      int sentBefore = context.sent;
      c.scan.run();
      c.scan.run();
      c.actedFirst = context.sent - sentBefore;
      int sentWarm = context.sent;
      long t0 = clock();
      int warm = 0;
      while (clock() - t0 < 2 * ROUND_NANOS) {
        c.scan.run();
        warm++;
      }
      c.iterations = Math.max(3, (int) (ROUND_NANOS / ((clock() - t0) / (double) warm)));
      if (c != contenders.get(0)) {
        // A whole number of reconcile periods per round: each round holds its share of the
        // full walks rein makes once every RECONCILE_EVERY_SCANS scans.
        int period = reconcilePeriod();
        c.iterations = Math.max(period, (c.iterations + period - 1) / period * period);
      }
      if (context.sent != sentWarm) {
        throw new IllegalStateException(c.name + " still acts after its first scans (the last event "
            + context.last + "); the state is not steady");
      }
    }
    int sentTimed = context.sent;
    if (!reins.stream().allMatch(ReinSpeculator::isActive)) {
      throw new IllegalStateException("a rein speculator fell back to Hadoop's");
    }
    System.out.printf(Locale.ROOT, "%n%,d running maps, %,d finished; ms per scan (iterations per round: %s)%n",
        running, running / 2, iterationsOf(contenders));
    for (int r = 0; r < rounds; r++) {
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  round %d:", r + 1));
      for (Contender c : contenders) {
        long t0 = clock();
        for (int i = 0; i < c.iterations; i++) {
          c.scan.run();
        }
        c.nanosPerScan[r] = (clock() - t0) / (double) c.iterations;
        line.append(String.format(Locale.ROOT, "  %s %.3f", c.name, c.nanosPerScan[r] / 1e6));
      }
      System.out.println(line);
    }
    if (context.sent != sentTimed) {
      throw new IllegalStateException("a speculator acted during the timed rounds; the state is not steady");
    }
    List<Speculator> speculators = new ArrayList<>();
    speculators.add(stock);
    speculators.addAll(reins);
    double[][] reportNanos = reportRounds(job, speculators, rounds);
    System.out.printf(Locale.ROOT, "  a progress report through handle(), ns (median, min–max over rounds):");
    for (int k = 0; k < speculators.size(); k++) {
      double[] xs = reportNanos[k];
      System.out.printf(Locale.ROOT, "  %s %.0f (%.0f–%.0f)", contenders.get(k).name, median(xs), min(xs), max(xs));
    }
    System.out.println();
    Contender base = contenders.get(0);
    System.out.printf(Locale.ROOT, "  %-18s %9.3f ms per scan (median; %.3f–%.3f)%n", base.name,
        median(base.nanosPerScan) / 1e6, min(base.nanosPerScan) / 1e6, max(base.nanosPerScan) / 1e6);
    List<String> rows = new ArrayList<>();
    for (int k = 1; k < contenders.size(); k++) {
      Contender c = contenders.get(k);
      String policy = policies[k - 1];
      ReinSpeculator rein = reins.get(k - 1);
      double[] ratio = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        ratio[r] = base.nanosPerScan[r] / c.nanosPerScan[r];
      }
      long[] cost = rein.scanCost();
      double looked = cost[1] / (double) Math.max(1, cost[0]);
      System.out.printf(Locale.ROOT, "  %-18s %9.3f ms per scan (%.3f–%.3f); DefaultSpeculator / rein = %.1f (%.1f–%.1f);"
          + " %.1f attempts looked at per scan%n",
          c.name, median(c.nanosPerScan) / 1e6, min(c.nanosPerScan) / 1e6, max(c.nanosPerScan) / 1e6,
          median(ratio), min(ratio), max(ratio), looked);
      double[] decide = criterion == null ? null : criterionSamples(criterion, "decide", policy, running);
      double[] healthy = criterion == null ? null : criterionSamples(criterion, "decide_healthy", policy, running);
      StringBuilder row = new StringBuilder();
      row.append(String.format(Locale.ROOT, "{\"policy\": \"%s\", \"running\": %d, \"finished\": %d, \"rounds\": %d",
          policy, running, running / 2, rounds));
      stat(row, "rein_scan_ms", c.nanosPerScan, 1e-6);
      stat(row, "default_scan_ms", base.nanosPerScan, 1e-6);
      stat(row, "ratio", ratio, 1);
      stat(row, "rein_report_ns", reportNanos[k], 1);
      stat(row, "default_report_ns", reportNanos[0], 1);
      stat(row, "decide_ms", decide, 1e-6);
      if (decide != null) {
        row.append(String.format(Locale.ROOT, ", \"decide_samples\": %d", decide.length));
      }
      stat(row, "decide_healthy_ms", healthy, 1e-6);
      for (String heap : new String[] {"kept", "fresh", "room", "unbounded"}) {
        double[] d = criterion == null ? null : criterionSamples(criterion, "decide_" + heap, policy, running);
        stat(row, "decide_" + heap + "_ms", d, 1e-6);
      }
      row.append(String.format(Locale.ROOT, ", \"attempts_looked_per_scan\": %.2f, \"events_sent_first_scans\": %d}",
          looked, c.actedFirst));
      rows.add(row.toString());
    }
    stock.stop();
    for (ReinSpeculator rein : reins) {
      rein.stop();
    }
    return rows;
  }

  /**
   * The cost of a progress report as the AM's dispatcher hands it over: ns per report through
   * {@code handle()}, per speculator (in the order given) and round, the speculators interleaved
   * within each round and given the same reports. A round is every running map reporting once
   * more, 3 s after its last and on course, again until it holds at least 100K reports; a first
   * round, not kept, warms up. rein's figure includes giving the reports to its engine, which its
   * dispatcher does a batch at a time; the few left queued at a round's end (fewer than a batch)
   * are given at the next.
   */
  private static double[][] reportRounds(FakeJob job, List<Speculator> speculators, int rounds) {
    int running = job.running().size();
    int reps = Math.max(1, 100_000 / Math.max(1, running));
    double[][] out = new double[speculators.size()][rounds];
    for (int r = 0; r <= rounds; r++) {
      List<SpeculatorEvent> events = new ArrayList<>(reps * running);
      for (int j = 1; j <= reps; j++) {
        events.addAll(job.nextReports(r * reps + j));
      }
      for (int k = 0; k < speculators.size(); k++) {
        Speculator s = speculators.get(k);
        long t0 = clock();
        for (SpeculatorEvent e : events) {
          s.handle(e);
        }
        if (r > 0) {
          out[k][r - 1] = (clock() - t0) / (double) events.size();
        }
      }
    }
    return out;
  }

  /** rein's scans per full walk (1 for a version of the shim that walks on every scan). */
  private static int reconcilePeriod() {
    try {
      java.lang.reflect.Field f = ReinSpeculator.class.getDeclaredField("RECONCILE_EVERY_SCANS");
      f.setAccessible(true);
      return Math.max(1, f.getInt(null));
    } catch (ReflectiveOperationException e) {
      return 1;
    }
  }

  /** {@code "name": median, "name_min": min, "name_max": max}, each scaled; all null without samples. */
  private static void stat(StringBuilder row, String name, double[] xs, double scale) {
    if (xs == null) {
      row.append(String.format(Locale.ROOT, ", \"%s\": null, \"%s_min\": null, \"%s_max\": null", name, name, name));
      return;
    }
    row.append(String.format(Locale.ROOT, ", \"%s\": %.6g, \"%s_min\": %.6g, \"%s_max\": %.6g",
        name, median(xs) * scale, name, min(xs) * scale, name, max(xs) * scale));
  }

  /**
   * Criterion's samples of {@code <group>/<policy>/<running>} (its {@code new/sample.json}), as ns
   * per decision; null when absent. The groups: {@code decide} (the first decision on a job whose
   * running tasks are all late; {@code decide_kept} and {@code decide_fresh} the same under two
   * fixed allocator settings, see {@code scripts/bench.sh --overhead}; {@code decide_room} the same,
   * memory kept, with free slots for a tenth as many copies as tasks running; {@code decide_unbounded}
   * the same, memory kept, with {@code rein.max-copies-per-scan=0}) and {@code decide_healthy}
   * (the scan of a job where none is).
   */
  static double[] criterionSamples(String dir, String group, String policy, int running) throws java.io.IOException {
    java.nio.file.Path p = java.nio.file.Paths.get(dir, group + "_" + policy, Integer.toString(running), "new",
        "sample.json");
    if (!java.nio.file.Files.exists(p)) {
      return null;
    }
    String text = new String(java.nio.file.Files.readAllBytes(p), java.nio.charset.StandardCharsets.UTF_8);
    double[] iters = numbers(text, "iters");
    double[] times = numbers(text, "times");
    double[] out = new double[Math.min(iters.length, times.length)];
    for (int i = 0; i < out.length; i++) {
      out[i] = times[i] / iters[i];
    }
    return out;
  }

  private static double[] numbers(String json, String key) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + key + "\"\\s*:\\s*\\[([^\\]]*)\\]").matcher(json);
    if (!m.find()) {
      return new double[0];
    }
    return java.util.Arrays.stream(m.group(1).split(",")).map(String::trim).filter(x -> !x.isEmpty())
        .mapToDouble(Double::parseDouble).toArray();
  }

  /** The job's creation, then the dispatcher's events of its history. */
  private static void feed(Speculator s, FakeJob job, List<SpeculatorEvent> events) {
    s.handle(new SpeculatorEvent(job.id, 0));
    for (SpeculatorEvent e : events) {
      s.handle(e);
    }
  }

  private static String iterationsOf(List<Contender> cs) {
    StringBuilder b = new StringBuilder();
    for (Contender c : cs) {
      b.append(b.length() == 0 ? "" : ", ").append(c.name).append(' ').append(c.iterations);
    }
    return b.toString();
  }

  private static double median(double[] xs) {
    double[] s = xs.clone();
    java.util.Arrays.sort(s);
    int n = s.length;
    return n == 0 ? Double.NaN : n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  private static double min(double[] xs) {
    return java.util.Arrays.stream(xs).min().orElse(Double.NaN);
  }

  private static double max(double[] xs) {
    return java.util.Arrays.stream(xs).max().orElse(Double.NaN);
  }

  private static <T> T unsupported() {
    throw new UnsupportedOperationException("not needed by a speculator");
  }

  // ------------------------------------------------------------------ the fake AM

  /** One map task with one attempt; the attempt either runs or has succeeded. */
  private static final class FakeTask implements Task {
    final ReentrantReadWriteLock.ReadLock lock = new ReentrantReadWriteLock().readLock();
    final TaskId id;
    final FakeAttempt attempt;
    final Map<TaskAttemptId, TaskAttempt> attempts;
    /** Progress reports (time, progress), oldest first. */
    final long[] reportTimes;
    final float[] reportProgress;

    FakeTask(TaskId id, FakeAttempt attempt, long[] reportTimes, float[] reportProgress) {
      this.id = id;
      this.attempt = attempt;
      this.attempts = Collections.singletonMap(attempt.id, attempt);
      this.reportTimes = reportTimes;
      this.reportProgress = reportProgress;
    }

    @Override public TaskId getID() { return id; }
    @Override public TaskType getType() { return TaskType.MAP; }
    @Override public TaskState getState() {
      lock.lock();
      try {
        return attempt.state == TaskAttemptState.SUCCEEDED ? TaskState.SUCCEEDED : TaskState.RUNNING;
      } finally {
        lock.unlock();
      }
    }
    @Override public Map<TaskAttemptId, TaskAttempt> getAttempts() {
      lock.lock();
      try {
        return attempts;
      } finally {
        lock.unlock();
      }
    }
    @Override public TaskAttempt getAttempt(TaskAttemptId a) {
      lock.lock();
      try {
        return attempts.get(a);
      } finally {
        lock.unlock();
      }
    }
    @Override public boolean isFinished() { return attempt.state == TaskAttemptState.SUCCEEDED; }
    @Override public float getProgress() { return attempt.getProgress(); }
    @Override public TaskReport getReport() { return unsupported(); }
    @Override public Counters getCounters() { return unsupported(); }
    @Override public boolean canCommit(TaskAttemptId a) { return unsupported(); }
  }

  private static final class FakeAttempt implements TaskAttempt {
    final ReentrantReadWriteLock.ReadLock lock = new ReentrantReadWriteLock().readLock();
    final TaskAttemptId id;
    final TaskAttemptState state;
    final float progress;
    final NodeId node;
    final long launch;
    final long finish;

    FakeAttempt(TaskAttemptId id, TaskAttemptState state, float progress, NodeId node, long launch, long finish) {
      this.id = id;
      this.state = state;
      this.progress = progress;
      this.node = node;
      this.launch = launch;
      this.finish = finish;
    }

    @Override public TaskAttemptId getID() { return id; }
    @Override public TaskAttemptState getState() {
      lock.lock();
      try {
        return state;
      } finally {
        lock.unlock();
      }
    }
    @Override public float getProgress() {
      lock.lock();
      try {
        return progress;
      } finally {
        lock.unlock();
      }
    }
    @Override public NodeId getNodeId() {
      lock.lock();
      try {
        return node;
      } finally {
        lock.unlock();
      }
    }
    @Override public String getNodeRackName() {
      lock.lock();
      try {
        return "/default-rack";
      } finally {
        lock.unlock();
      }
    }
    @Override public long getLaunchTime() {
      lock.lock();
      try {
        return launch;
      } finally {
        lock.unlock();
      }
    }
    @Override public long getFinishTime() {
      lock.lock();
      try {
        return finish;
      } finally {
        lock.unlock();
      }
    }
    @Override public boolean isFinished() { return state == TaskAttemptState.SUCCEEDED; }
    @Override public Phase getPhase() { return Phase.MAP; }
    @Override public TaskAttemptReport getReport() { return unsupported(); }
    @Override public List<String> getDiagnostics() { return unsupported(); }
    /** No counters: a finished map's output size is unknown, as for a map that reported none. */
    @Override public Counters getCounters() { return null; }
    @Override public ContainerId getAssignedContainerID() { return unsupported(); }
    @Override public String getAssignedContainerMgrAddress() { return unsupported(); }
    @Override public String getNodeHttpAddress() { return unsupported(); }
    @Override public long getShuffleFinishTime() { return unsupported(); }
    @Override public long getSortFinishTime() { return unsupported(); }
    @Override public int getShufflePort() { return unsupported(); }
  }

  private static final class FakeJob implements Job {
    final ReentrantReadWriteLock.ReadLock lock = new ReentrantReadWriteLock().readLock();
    final JobId id = MRBuilderUtils.newJobId(ApplicationId.newInstance(1, 1), 1);
    final Map<TaskId, Task> tasks = new LinkedHashMap<>();
    final List<TaskAttemptCompletionEvent> completions = new ArrayList<>();
    int completed;

    /**
     * {@code running} maps on schedule and {@code finished} maps done, in random order. A typical
     * map takes 120 s; finished ones took 120–140 s, running ones are on course for 96–120 s.
     */
    static FakeJob build(int running, int finished, Random rnd) {
      FakeJob job = new FakeJob();
      int total = running + finished;
      List<Boolean> done = new ArrayList<>(total);
      for (int i = 0; i < total; i++) {
        done.add(i < finished);
      }
      Collections.shuffle(done, rnd);
      for (int i = 0; i < total; i++) {
        TaskId tid = MRBuilderUtils.newTaskId(job.id, i, TaskType.MAP);
        TaskAttemptId aid = MRBuilderUtils.newTaskAttemptId(tid, 0);
        NodeId node = NodeId.newInstance("node" + (i % 200), 8041);
        FakeTask task;
        if (done.get(i)) {
          long duration = 120_000 + rnd.nextInt(20_000);
          long end = NOW - 1_000 - rnd.nextInt(100_000);
          FakeAttempt a = new FakeAttempt(aid, TaskAttemptState.SUCCEEDED, 1f, node, end - duration, end);
          task = new FakeTask(tid, a, new long[] {end}, new float[] {1f});
          job.completed++;
          TaskAttemptCompletionEvent ev = RECORDS.newRecordInstance(TaskAttemptCompletionEvent.class);
          ev.setAttemptId(aid);
          ev.setStatus(TaskAttemptCompletionEventStatus.SUCCEEDED);
          ev.setEventId(job.completions.size());
          job.completions.add(ev);
        } else {
          long start = NOW - 15_000 - rnd.nextInt(95_000);
          double course = 120_000 * (0.8 + 0.2 * rnd.nextDouble());
          long[] times = new long[3];
          float[] progress = new float[3];
          long last = NOW - rnd.nextInt(3_000);
          for (int k = 0; k < 3; k++) {
            times[k] = last - (2 - k) * 3_000L;
            progress[k] = (float) Math.min(0.99, Math.max(0.001, (times[k] - start) / course));
          }
          FakeAttempt a = new FakeAttempt(aid, TaskAttemptState.RUNNING, progress[2], node, start, 0);
          task = new FakeTask(tid, a, times, progress);
        }
        job.tasks.put(tid, task);
      }
      return job;
    }

    /** The running tasks, in the job's order. */
    List<FakeTask> running() {
      List<FakeTask> out = new ArrayList<>();
      for (Task t : tasks.values()) {
        if (((FakeTask) t).attempt.state == TaskAttemptState.RUNNING) {
          out.add((FakeTask) t);
        }
      }
      return out;
    }

    /**
     * Each running map's report {@code n} after its last: 3 s apart, its progress going on at
     * the pace of its last two reports (at most 0.99).
     */
    List<SpeculatorEvent> nextReports(int n) {
      List<SpeculatorEvent> out = new ArrayList<>();
      for (FakeTask task : running()) {
        TaskAttemptStatus s = new TaskAttemptStatus();
        s.id = task.attempt.id;
        float last = task.reportProgress[2];
        s.progress = (float) Math.min(0.99, last + n * (double) (last - task.reportProgress[1]));
        s.phase = Phase.MAP;
        s.taskState = TaskAttemptState.RUNNING;
        out.add(new SpeculatorEvent(s, task.reportTimes[2] + 3_000L * n));
      }
      return out;
    }

    /** What the AM's dispatcher sends a speculator for this history, in time order per task. */
    List<SpeculatorEvent> dispatcherEvents() {
      List<SpeculatorEvent> out = new ArrayList<>();
      for (Task t : tasks.values()) {
        FakeTask task = (FakeTask) t;
        out.add(new SpeculatorEvent(task.id, 1));
        out.add(new SpeculatorEvent(task.id, -1));
        out.add(new SpeculatorEvent(task.attempt.id, false, task.attempt.launch));
        for (int k = 0; k < task.reportTimes.length; k++) {
          TaskAttemptStatus s = new TaskAttemptStatus();
          s.id = task.attempt.id;
          s.progress = task.reportProgress[k];
          s.phase = Phase.MAP;
          s.taskState = task.attempt.state;
          out.add(new SpeculatorEvent(s, task.reportTimes[k]));
        }
      }
      return out;
    }

    @Override public JobId getID() { return id; }
    @Override public Map<TaskId, Task> getTasks() { return Collections.unmodifiableMap(tasks); }
    @Override public Map<TaskId, Task> getTasks(TaskType type) {
      lock.lock();
      try {
        Map<TaskId, Task> copy = new HashMap<>();
        if (type == TaskType.MAP) {
          copy.putAll(tasks);
        }
        return copy;
      } finally {
        lock.unlock();
      }
    }
    @Override public Task getTask(TaskId t) {
      lock.lock();
      try {
        return tasks.get(t);
      } finally {
        lock.unlock();
      }
    }
    @Override public int getTotalMaps() { return tasks.size(); }
    @Override public int getTotalReduces() { return 0; }
    @Override public int getCompletedMaps() {
      lock.lock();
      try {
        return completed;
      } finally {
        lock.unlock();
      }
    }
    @Override public int getCompletedReduces() { return 0; }
    @Override public String getName() { return "scan-bench"; }
    @Override public JobState getState() { return JobState.RUNNING; }
    @Override public boolean isUber() { return false; }
    @Override public JobReport getReport() { return unsupported(); }
    @Override public Counters getAllCounters() { return unsupported(); }
    @Override public List<String> getDiagnostics() { return unsupported(); }
    @Override public int getFailedMaps() { return 0; }
    @Override public int getFailedReduces() { return 0; }
    @Override public int getKilledMaps() { return 0; }
    @Override public int getKilledReduces() { return 0; }
    @Override public float getProgress() { return unsupported(); }
    @Override public String getUserName() { return unsupported(); }
    @Override public String getQueueName() { return unsupported(); }
    @Override public Path getConfFile() { return unsupported(); }
    @Override public Configuration loadConfFile() { return unsupported(); }
    @Override public Map<JobACL, AccessControlList> getJobACLs() { return unsupported(); }
    /**
     * JobImpl's attempt-completion feed: the ends the history had happened before the bench
     * starts (one per finished map), none since.
     */
    @Override public TaskAttemptCompletionEvent[] getTaskAttemptCompletionEvents(int from, int max) {
      lock.lock();
      try {
        int to = Math.min(completions.size(), from + max);
        return completions.subList(Math.min(from, to), to).toArray(new TaskAttemptCompletionEvent[0]);
      } finally {
        lock.unlock();
      }
    }
    @Override public TaskCompletionEvent[] getMapAttemptCompletionEvents(int from, int max) {
      return unsupported();
    }
    @Override public List<AMInfo> getAMInfos() { return unsupported(); }
    @Override public boolean checkAccess(UserGroupInformation ugi, JobACL op) { return unsupported(); }
    @Override public void setQueueName(String q) { unsupported(); }
    @Override public void setJobPriority(Priority p) { unsupported(); }
  }

  /** One job, a clock that stands still, and an event handler that counts what it is sent. */
  private static final class FakeContext implements AppContext {
    final FakeJob job;
    final Map<JobId, Job> jobs;
    int sent;
    String last;

    FakeContext(FakeJob job) {
      this.job = job;
      this.jobs = Collections.singletonMap(job.id, job);
    }

    @Override public Job getJob(JobId id) { return jobs.get(id); }
    @Override public Map<JobId, Job> getAllJobs() { return jobs; }
    @Override public Clock getClock() { return () -> NOW; }
    @Override public EventHandler<Event> getEventHandler() {
      return e -> {
        sent++;
        last = e.toString();
      };
    }
    @Override public ApplicationId getApplicationID() { return job.id.getAppId(); }
    @Override public ApplicationAttemptId getApplicationAttemptId() { return unsupported(); }
    @Override public String getApplicationName() { return "scan-bench"; }
    @Override public long getStartTime() { return 0; }
    @Override public CharSequence getUser() { return "bench"; }
    @Override public ClusterInfo getClusterInfo() { return unsupported(); }
    @Override public Set<String> getBlacklistedNodes() { return Collections.emptySet(); }
    @Override public ClientToAMTokenSecretManager getClientToAMTokenSecretManager() { return unsupported(); }
    @Override public boolean isLastAMRetry() { return false; }
    @Override public boolean hasSuccessfullyUnregistered() { return false; }
    @Override public String getNMHostname() { return "localhost"; }
    @Override public TaskAttemptFinishingMonitor getTaskAttemptFinishingMonitor() { return unsupported(); }
    @Override public String getHistoryUrl() { return unsupported(); }
    @Override public void setHistoryUrl(String url) { unsupported(); }
  }
}
