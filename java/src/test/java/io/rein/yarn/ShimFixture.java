package io.rein.yarn;

import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.v2.api.records.Phase;
import org.apache.hadoop.mapreduce.v2.api.records.JobId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptState;
import org.apache.hadoop.mapreduce.v2.api.records.TaskId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskState;
import org.apache.hadoop.mapreduce.v2.api.records.TaskType;
import org.apache.hadoop.mapreduce.v2.app.AppContext;
import org.apache.hadoop.mapreduce.v2.app.job.Job;
import org.apache.hadoop.mapreduce.v2.app.job.Task;
import org.apache.hadoop.mapreduce.v2.app.job.TaskAttempt;
import org.apache.hadoop.mapreduce.v2.app.job.event.JobCounterUpdateEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskAttemptStatusUpdateEvent.TaskAttemptStatus;
import org.apache.hadoop.mapreduce.v2.app.speculate.SpeculatorEvent;
import org.apache.hadoop.mapreduce.v2.util.MRBuilderUtils;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.event.Event;
import org.apache.hadoop.yarn.event.EventHandler;

/** A mocked AM: one job of map tasks, a controlled clock and a recording event handler. */
final class ShimFixture {
  long now;
  /** Events sent to the AM's dispatcher (written by the fallback's thread too). */
  final List<Event> sent = new CopyOnWriteArrayList<>();
  int completedMaps;
  final AppContext context = mock(AppContext.class);
  final Job job = mock(Job.class);
  final JobId jobId = MRBuilderUtils.newJobId(ApplicationId.newInstance(1, 1), 1);
  final Map<TaskId, Task> tasks = new LinkedHashMap<>();

  @SuppressWarnings({"unchecked", "rawtypes"})
  ShimFixture(int maps) {
    when(context.getClock()).thenReturn(() -> now);
    EventHandler handler = sent::add;
    when(context.getEventHandler()).thenReturn(handler);
    when(context.getJob(jobId)).thenReturn(job);
    when(job.getID()).thenReturn(jobId);
    when(job.getTotalMaps()).thenReturn(maps);
    when(job.getTotalReduces()).thenReturn(0);
    when(job.getTasks()).thenReturn(tasks);
    when(job.getTasks(TaskType.MAP)).thenReturn(tasks);
    when(job.getCompletedMaps()).thenAnswer(inv -> completedMaps);
    when(context.getAllJobs()).thenReturn(Map.of(jobId, job));
    for (int i = 0; i < maps; i++) {
      TaskId id = MRBuilderUtils.newTaskId(jobId, i, TaskType.MAP);
      Task task = mock(Task.class);
      TaskAttemptId aid = MRBuilderUtils.newTaskAttemptId(id, 0);
      TaskAttempt attempt = mock(TaskAttempt.class);
      when(attempt.getID()).thenReturn(aid);
      when(attempt.getNodeId()).thenReturn(NodeId.newInstance("localhost", 4000 + i));
      when(attempt.getState()).thenReturn(TaskAttemptState.RUNNING);
      when(task.getID()).thenReturn(id);
      when(task.getType()).thenReturn(TaskType.MAP);
      when(task.getState()).thenReturn(TaskState.RUNNING);
      when(task.getAttempts()).thenReturn(Map.of(aid, attempt));
      when(task.getAttempt(aid)).thenReturn(attempt);
      when(job.getTask(id)).thenReturn(task);
      tasks.put(id, task);
    }
  }

  /** A job configuration; the decision log is off unless the test names a place for it. */
  static Configuration conf(String... keyValues) {
    Configuration conf = new Configuration(false);
    conf.set(DecisionLog.KEY, "off");
    for (int i = 0; i < keyValues.length; i += 2) {
      conf.set(keyValues[i], keyValues[i + 1]);
    }
    return conf;
  }

  Task task(int i) {
    return tasks.get(MRBuilderUtils.newTaskId(jobId, i, TaskType.MAP));
  }

  TaskAttempt attempt(int i) {
    return task(i).getAttempts().values().iterator().next();
  }

  TaskAttemptId attemptId(int i) {
    return attempt(i).getID();
  }

  SpeculatorEvent jobCreated() {
    return new SpeculatorEvent(jobId, now);
  }

  SpeculatorEvent started(int i) {
    when(attempt(i).getLaunchTime()).thenReturn(now);
    return new SpeculatorEvent(attemptId(i), false, now);
  }

  SpeculatorEvent status(int i, float progress) {
    TaskAttemptStatus s = new TaskAttemptStatus();
    s.id = attemptId(i);
    s.progress = progress;
    s.phase = Phase.MAP;
    s.taskState = TaskAttemptState.RUNNING;
    return new SpeculatorEvent(s, now);
  }

  /** The total of a rein counter over the counter updates the shim sent. */
  long counter(ReinCounters c) {
    return sent.stream().filter(e -> e instanceof JobCounterUpdateEvent)
        .flatMap(e -> ((JobCounterUpdateEvent) e).getCounterUpdates().stream())
        .filter(u -> u.getCounterKey() == c).mapToLong(u -> u.getIncrementValue()).sum();
  }

  /** Four maps; three finish at 10 s, the fourth is at 10% at 20 s (LATE copies it). */
  ReinSpeculator straggler(Configuration conf) {
    ReinSpeculator s = new ReinSpeculator(conf, context);
    s.init(conf);
    org.junit.jupiter.api.Assertions.assertTrue(s.isActive());
    s.handle(jobCreated());
    for (int i = 0; i < 4; i++) {
      s.handle(started(i));
    }
    now = 10_000;
    for (int i = 0; i < 3; i++) {
      s.handle(status(i, 1.0f));
      succeed(i);
    }
    now = 20_000;
    s.handle(status(3, 0.1f));
    return s;
  }

  void succeed(int i) {
    when(attempt(i).getState()).thenReturn(TaskAttemptState.SUCCEEDED);
    when(attempt(i).getFinishTime()).thenReturn(now);
    when(task(i).getState()).thenReturn(TaskState.SUCCEEDED);
    completedMaps++;
  }

  /**
   * Attempt {@code i}, succeeded, killed as JobImpl.actOnUnusableNode does when its node is lost
   * (so that the map re-runs), with the diagnostics Hadoop gives it.
   */
  void killForUnusableNode(int i) {
    when(attempt(i).getState()).thenReturn(TaskAttemptState.KILLED);
    when(attempt(i).getDiagnostics()).thenReturn(
        List.of("TaskAttempt killed because it ran on unusable node localhost:4000"));
  }
}
