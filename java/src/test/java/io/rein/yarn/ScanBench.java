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
import org.apache.hadoop.yarn.security.client.ClientToAMTokenSecretManager;
import org.apache.hadoop.yarn.util.Clock;

/**
 * A benchmark, not a test: the cost of one speculation scan of Hadoop's {@link DefaultSpeculator}
 * (Legacy estimator) against one scan of {@link ReinSpeculator} with {@code rein.policy=hadoop}
 * (rein's model of DefaultSpeculator) and with {@code rein.policy=late}, on the same job state.
 *
 * <p>The state, per size N: N running maps, each with one RUNNING attempt that reported its
 * progress three times, and N/2 maps that finished (120–140 s each). Running maps are on
 * schedule (started 15–110 s ago, on course for 96–120 s), so no scan speculates and each does
 * its full work every time: DefaultSpeculator estimates every running attempt, rein walks every
 * attempt and decides. Every speculator gets the same events through {@code handle()}, as the
 * AM's dispatcher sends them (container need +1/−1, attempt start, status updates), and one scan
 * before timing; the clock stands still. A DefaultSpeculator scan is its private
 * {@code computeSpeculations()} (called by reflection); a rein scan is {@code scanNow()}: walk the
 * job, {@code decide} over JNI, apply the actions (none here).
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
 * java -Xmx4g -cp java/target/classes:java/target/test-classes:$(cat /tmp/cp.txt) \
 *     io.rein.yarn.ScanBench [sizes, default 1000,10000,100000] [rounds, default 5]
 * </pre>
 * It prints, per size, each round's time per scan and the ratio DefaultSpeculator / rein, then
 * the mean over rounds with the min–max.
 */
public final class ScanBench {
  private static final long NOW = 1_000_000;
  /** Time a round aims at per speculator; the iteration count follows from a warm-up. */
  private static final double ROUND_NANOS = 400e6;

  private ScanBench() {}

  public static void main(String[] args) throws Exception {
    int[] sizes = java.util.Arrays.stream((args.length > 0 ? args[0] : "1000,10000,100000").split(","))
        .mapToInt(Integer::parseInt).toArray();
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    for (int n : sizes) {
      run(n, rounds);
    }
  }

  /** A speculator under test: its scan and its name. */
  private static final class Contender {
    final String name;
    final Runnable scan;
    final double[] nanosPerScan;
    int iterations;

    Contender(String name, Runnable scan, int rounds) {
      this.name = name;
      this.scan = scan;
      this.nanosPerScan = new double[rounds];
    }
  }

  private static void run(int running, int rounds) throws Exception {
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
    for (String policy : new String[] {"hadoop", "late"}) {
      Configuration conf = new Configuration(false);
      conf.set("rein.policy", policy);
      ReinSpeculator rein = new ReinSpeculator(conf, context);
      rein.init(conf);
      if (!rein.isActive()) {
        throw new IllegalStateException("rein did not start; is librein built?");
      }
      feed(rein, job, events);
      reins.add(rein);
      contenders.add(new Contender("rein " + policy, rein::scanNow, rounds));
    }

    for (Contender c : contenders) {
      c.scan.run();
      long t0 = System.nanoTime();
      int warm = 0;
      while (System.nanoTime() - t0 < 2 * ROUND_NANOS) {
        c.scan.run();
        warm++;
      }
      c.iterations = Math.max(3, (int) (ROUND_NANOS / ((System.nanoTime() - t0) / (double) warm)));
    }
    if (context.sent > 0 || !reins.stream().allMatch(ReinSpeculator::isActive)) {
      throw new IllegalStateException("a speculator acted or fell back; the state is not steady");
    }

    System.out.printf(Locale.ROOT, "%n%,d running maps, %,d finished; ms per scan (iterations per round: %s)%n",
        running, running / 2, iterationsOf(contenders));
    for (int r = 0; r < rounds; r++) {
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  round %d:", r + 1));
      for (Contender c : contenders) {
        long t0 = System.nanoTime();
        for (int i = 0; i < c.iterations; i++) {
          c.scan.run();
        }
        c.nanosPerScan[r] = (System.nanoTime() - t0) / (double) c.iterations;
        line.append(String.format(Locale.ROOT, "  %s %.3f", c.name, c.nanosPerScan[r] / 1e6));
      }
      for (Contender c : contenders.subList(1, contenders.size())) {
        line.append(String.format(Locale.ROOT, "  ratio vs %s %.1f", c.name,
            contenders.get(0).nanosPerScan[r] / c.nanosPerScan[r]));
      }
      System.out.println(line);
    }
    Contender base = contenders.get(0);
    System.out.printf(Locale.ROOT, "  %-18s %8.3f ms per scan (%.3f–%.3f)%n", base.name,
        mean(base.nanosPerScan) / 1e6, min(base.nanosPerScan) / 1e6, max(base.nanosPerScan) / 1e6);
    for (Contender c : contenders.subList(1, contenders.size())) {
      double[] ratio = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        ratio[r] = base.nanosPerScan[r] / c.nanosPerScan[r];
      }
      System.out.printf(Locale.ROOT, "  %-18s %8.3f ms per scan (%.3f–%.3f); DefaultSpeculator / %s = %.1f (%.1f–%.1f)%n",
          c.name, mean(c.nanosPerScan) / 1e6, min(c.nanosPerScan) / 1e6, max(c.nanosPerScan) / 1e6,
          c.name, mean(ratio), min(ratio), max(ratio));
    }
    stock.stop();
    for (ReinSpeculator rein : reins) {
      rein.stop();
    }
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

  private static double mean(double[] xs) {
    return java.util.Arrays.stream(xs).average().orElse(Double.NaN);
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
    @Override public Counters getCounters() { return unsupported(); }
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
    @Override public TaskAttemptCompletionEvent[] getTaskAttemptCompletionEvents(int from, int max) {
      return unsupported();
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

    FakeContext(FakeJob job) {
      this.job = job;
      this.jobs = Collections.singletonMap(job.id, job);
    }

    @Override public Job getJob(JobId id) { return jobs.get(id); }
    @Override public Map<JobId, Job> getAllJobs() { return jobs; }
    @Override public Clock getClock() { return () -> NOW; }
    @Override public EventHandler<Event> getEventHandler() { return e -> sent++; }
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
