package io.rein.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mockito.Mockito.when;

import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.mapreduce.v2.api.records.TaskState;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEventType;
import org.junit.jupiter.api.Test;

class ReinSpeculatorTest {
  private static final String[] LATE = {"rein.policy", "late", "rein.late.min-runtime-ms", "0"};

  /** Four maps; three finish at 10 s, the fourth is at 10% at 20 s. */
  private static List<TaskEvent> specAttempts(ShimFixture f) {
    return f.sent.stream().filter(e -> e instanceof TaskEvent).map(e -> (TaskEvent) e)
        .filter(e -> e.getType() == TaskEventType.T_ADD_SPEC_ATTEMPT).collect(Collectors.toList());
  }


  @Test
  void theStragglerGetsOneSpeculativeAttempt() {
    ShimFixture f = new ShimFixture(4);
    ReinSpeculator s = f.straggler(ShimFixture.conf(LATE));
    s.scanNow();
    List<TaskEvent> spec = specAttempts(f);
    assertEquals(1, spec.size());
    assertEquals(f.task(3).getID(), spec.get(0).getTaskID());
    assertEquals(1, f.counter(ReinCounters.SPECULATIVE_LAUNCHED));
    f.now = 21_000;
    s.scanNow();
    assertEquals(1, specAttempts(f).size(), "no second copy while the first is pending");
    s.stop();
  }

  @Test
  void aCopyForATaskThatIsNoLongerRunningIsDroppedNotSent() {
    ShimFixture f = new ShimFixture(4);
    ReinSpeculator s = f.straggler(ShimFixture.conf(LATE));
    when(f.task(3).getState()).thenReturn(TaskState.SCHEDULED);
    s.scanNow();
    assertEquals(0, specAttempts(f).size(), "T_ADD_SPEC_ATTEMPT outside RUNNING would fail the job");
    assertEquals(1, f.counter(ReinCounters.ACTIONS_DROPPED));
    s.stop();
  }

  @Test
  void mapSpeculationSwitchedOffIsHonoured() {
    ShimFixture f = new ShimFixture(4);
    ReinSpeculator s = new ReinSpeculator(
        ShimFixture.conf("rein.late.min-runtime-ms", "0", "mapreduce.map.speculative", "false"), f.context);
    s.init(ShimFixture.conf());
    s.handle(f.jobCreated());
    for (int i = 0; i < 4; i++) {
      s.handle(f.started(i));
    }
    f.now = 10_000;
    for (int i = 0; i < 3; i++) {
      f.succeed(i);
    }
    f.now = 20_000;
    s.handle(f.status(3, 0.1f));
    s.scanNow();
    assertEquals(0, specAttempts(f).size());
    s.stop();
  }
}
