package io.rein.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptCompletionEvent;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptCompletionEventStatus;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEventType;
import org.junit.jupiter.api.Test;

/**
 * The scan against a job that keeps Hadoop's attempt-completion feed (as {@code JobImpl} does):
 * after its first full walk, a scan looks only at the attempts an event or the feed named, and
 * finds every start, end and re-run the walking scan finds.
 */
class ReinSpeculatorEventDrivenTest {
  /** The job's completion feed, as JobImpl keeps it: one event per attempt that ended. */
  private final List<TaskAttemptCompletionEvent> feed = new ArrayList<>();

  private ShimFixture fixture(int maps) {
    ShimFixture f = new ShimFixture(maps);
    when(f.job.getTaskAttemptCompletionEvents(anyInt(), anyInt())).thenAnswer(inv -> {
      int from = inv.getArgument(0);
      int max = inv.getArgument(1);
      List<TaskAttemptCompletionEvent> out = feed.subList(Math.min(from, feed.size()), Math.min(from + max, feed.size()));
      return out.toArray(new TaskAttemptCompletionEvent[0]);
    });
    return f;
  }

  private void ended(ShimFixture f, int i, TaskAttemptCompletionEventStatus status) {
    org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptId id = f.attemptId(i);
    TaskAttemptCompletionEvent e = mock(TaskAttemptCompletionEvent.class);
    when(e.getAttemptId()).thenReturn(id);
    when(e.getStatus()).thenReturn(status);
    feed.add(e);
  }

  private static long looked(ReinSpeculator s) {
    return s.scanCost()[1];
  }

  @Test
  void afterTheFirstWalkAScanLooksOnlyAtWhatChanged() {
    ShimFixture f = fixture(100);
    ReinSpeculator s = new ReinSpeculator(ShimFixture.conf("rein.policy", "none"), f.context);
    s.init(ShimFixture.conf());
    s.handle(f.jobCreated());
    s.scanNow();
    assertEquals(100, looked(s), "the first scan walks the job");
    s.scanNow();
    assertEquals(100, looked(s), "nothing changed: nothing looked at");
    for (int i = 0; i < 3; i++) {
      s.handle(f.started(i));
    }
    s.handle(f.status(5, 0.5f)); // a progress report needs no look at the job
    s.scanNow();
    assertEquals(103, looked(s));
    f.now = 5_000;
    f.succeed(1);
    ended(f, 1, TaskAttemptCompletionEventStatus.SUCCEEDED);
    s.scanNow();
    assertEquals(104, looked(s));
    s.stop();
  }

  @Test
  void theStragglerIsFoundFromEventsAndTheFeedAlone() {
    ShimFixture f = fixture(4);
    // A first scan before anything ran: later scans rely on events and the feed.
    ReinSpeculator s = new ReinSpeculator(ShimFixture.conf("rein.late.min-runtime-ms", "0"), f.context);
    s.init(ShimFixture.conf());
    s.handle(f.jobCreated());
    when(f.attempt(0).getNodeId()).thenReturn(null);
    s.scanNow();
    when(f.attempt(0).getNodeId()).thenReturn(org.apache.hadoop.yarn.api.records.NodeId.newInstance("localhost", 4000));
    for (int i = 0; i < 4; i++) {
      s.handle(f.started(i));
    }
    f.now = 10_000;
    for (int i = 0; i < 3; i++) {
      s.handle(f.status(i, 1.0f));
      f.succeed(i);
      ended(f, i, TaskAttemptCompletionEventStatus.SUCCEEDED);
    }
    f.now = 20_000;
    s.handle(f.status(3, 0.1f));
    s.scanNow();
    List<TaskEvent> spec = f.sent.stream().filter(e -> e instanceof TaskEvent).map(e -> (TaskEvent) e)
        .filter(e -> e.getType() == TaskEventType.T_ADD_SPEC_ATTEMPT).collect(Collectors.toList());
    assertEquals(1, spec.size());
    assertEquals(f.task(3).getID(), spec.get(0).getTaskID());
    s.stop();
  }

  @Test
  void aRerunAndALostNodeAreSeenThroughTheFeed() throws Exception {
    ShimFixture f = fixture(2);
    ReinSpeculator s = new ReinSpeculator(ShimFixture.conf("rein.policy", "none"), f.context);
    s.init(ShimFixture.conf());
    s.handle(f.jobCreated());
    for (int i = 0; i < 2; i++) {
      s.handle(f.started(i));
    }
    EngineRecorder engine = new EngineRecorder().into(s);
    s.scanNow();
    s.scanNow();
    f.now = 5_000;
    f.succeed(0);
    ended(f, 0, TaskAttemptCompletionEventStatus.SUCCEEDED);
    s.scanNow();
    assertEquals(List.of("6 0 0 0 0 0 null"), engine.ofKind(NativeEngine.EV_ATTEMPT_FINISHED));
    f.now = 9_000;
    f.killForUnusableNode(0);
    ended(f, 0, TaskAttemptCompletionEventStatus.KILLED);
    s.scanNow();
    assertEquals(List.of("6 0 0 0 0 0 null", "6 0 0 0 2 0 null"), engine.ofKind(NativeEngine.EV_ATTEMPT_FINISHED));
    assertEquals(List.of("8 0 0 0 0 0 localhost:4000"), engine.ofKind(NativeEngine.EV_NODE_LOST));
    s.stop();
  }

  @Test
  void anEndTheFeedMissedIsFoundByThePeriodicWalk() throws Exception {
    ShimFixture f = fixture(3);
    ReinSpeculator s = new ReinSpeculator(ShimFixture.conf("rein.policy", "none"), f.context);
    s.init(ShimFixture.conf());
    s.handle(f.jobCreated());
    for (int i = 0; i < 3; i++) {
      s.handle(f.started(i));
    }
    EngineRecorder engine = new EngineRecorder().into(s);
    s.scanNow();
    f.succeed(2); // no completion event
    for (int i = 1; i < ReinSpeculator.RECONCILE_EVERY_SCANS; i++) {
      s.scanNow();
    }
    assertEquals(List.of(), engine.ofKind(NativeEngine.EV_ATTEMPT_FINISHED));
    s.scanNow();
    assertEquals(List.of("6 0 2 0 0 0 null"), engine.ofKind(NativeEngine.EV_ATTEMPT_FINISHED));
    assertEquals(6, looked(s), "two walks of three attempts");
    s.stop();
  }

  @Test
  void aJobWithoutTheFeedIsWalkedOnEveryScan() {
    ShimFixture f = new ShimFixture(10);
    ReinSpeculator s = new ReinSpeculator(ShimFixture.conf("rein.policy", "none"), f.context);
    s.init(ShimFixture.conf());
    s.handle(f.jobCreated());
    s.scanNow();
    s.scanNow();
    assertEquals(20, looked(s));
    s.stop();
  }
}
