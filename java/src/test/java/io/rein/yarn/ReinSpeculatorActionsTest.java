package io.rein.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.when;

import java.util.List;
import java.util.Map;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptState;
import org.apache.hadoop.mapreduce.v2.api.records.TaskState;
import org.apache.hadoop.mapreduce.v2.app.job.event.JobCounterUpdateEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskAttemptKillEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEventType;
import org.apache.hadoop.mapreduce.v2.app.rm.ContainerFailedEvent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every action the engine can send is re-checked against the job before it reaches Hadoop. */
class ReinSpeculatorActionsTest {
  private ShimFixture f;
  private ReinSpeculator s;
  private NativeEngine engine;

  @BeforeEach
  void setUp() {
    f = new ShimFixture(4);
    s = new ReinSpeculator(ShimFixture.conf("rein.policy", "none"), f.context);
    s.handle(f.jobCreated());
    engine = NativeEngine.create(Map.of());
  }

  private long count(Class<?> type) {
    return f.sent.stream().filter(type::isInstance).count();
  }


  @Test
  void restartKillsARunningAttempt() {
    s.apply(engine, f.job, 0, action("RESTART\tm\t2\t0\t0\t\t\tMantri §5.1 restart"));
    assertEquals(1, count(TaskAttemptKillEvent.class));
    assertEquals(1, f.counter(ReinCounters.RESTARTS));
  }

  @Test
  void aSucceededMapIsNeverKilled() {
    f.succeed(2);
    s.apply(engine, f.job, 0, action("RESTART\tm\t2\t0\t0\t\t\tMantri §5.1 restart"));
    s.apply(engine, f.job, 0, action("VETO\tm\t2\t0\t0\t\t\tplaced on a slow node"));
    assertEquals(0, count(TaskAttemptKillEvent.class), "its output would be lost");
    assertEquals(2, f.counter(ReinCounters.ACTIONS_DROPPED));
  }

  @Test
  void aKillOfAnAttemptThatIsNotRunningIsDropped() {
    when(f.attempt(1).getState()).thenReturn(TaskAttemptState.STARTING);
    s.apply(engine, f.job, 0, action("RESTART\tm\t1\t0\t0\t\t\tMantri §5.1 restart"));
    when(f.attempt(1).getState()).thenReturn(TaskAttemptState.KILLED);
    s.apply(engine, f.job, 0, action("VETO\tm\t1\t0\t0\t\t\tthe copy landed on avoided node n1:1"));
    assertEquals(0, count(TaskAttemptKillEvent.class));
    assertEquals(2, f.counter(ReinCounters.ACTIONS_DROPPED));
  }

  @Test
  void aVetoKillsACopyStillStartingAndReschedulesItsReplacement() {
    when(f.attempt(1).getState()).thenReturn(TaskAttemptState.STARTING);
    s.apply(engine, f.job, 0, action("VETO\tm\t1\t0\t0\t\t\tthe copy landed on avoided node n1:1 (veto 1 of 2 for this task)"));
    TaskAttemptKillEvent kill = (TaskAttemptKillEvent) f.sent.stream()
        .filter(TaskAttemptKillEvent.class::isInstance).findFirst().orElseThrow();
    assertTrue(kill.getRescheduleAttempt(), "the replacement asks for a container anywhere");
    assertTrue(kill.getMessage().contains("avoided node n1:1"), kill.getMessage());
    assertEquals(1, f.counter(ReinCounters.VETOES));
  }

  /**
   * {@code rein.veto.block-node}: a veto naming a node to block kills the copy and tells the AM's
   * container allocator of as many container failures on that node as its blacklist needs.
   */
  @Test
  void aVetoThatBlocksANodeReportsItToTheAllocatorsBlacklist() {
    when(f.attempt(1).getState()).thenReturn(TaskAttemptState.STARTING);
    s.apply(engine, f.job, 0, action("VETO\tm\t1\t0\t0\tslow:1\t\tthe copy landed on avoided node slow:1"));
    List<ContainerFailedEvent> failed = f.sent.stream().filter(ContainerFailedEvent.class::isInstance)
        .map(ContainerFailedEvent.class::cast).collect(java.util.stream.Collectors.toList());
    assertEquals(3, failed.size(), "mapreduce.job.maxtaskfailures.per.tracker's default");
    assertTrue(failed.stream().allMatch(e -> e.getContMgrAddress().equals("slow:1")));
    assertEquals(1, count(TaskAttemptKillEvent.class));
    assertEquals(1, f.counter(ReinCounters.NODES_BLOCKED));
    // Without a node to block, or with the AM's blacklisting off, nothing is reported.
    s.apply(engine, f.job, 0, action("VETO\tm\t2\t0\t0\t\t\tthe copy landed on avoided node n1:1"));
    ReinSpeculator off = new ReinSpeculator(ShimFixture.conf("rein.policy", "none",
        "yarn.app.mapreduce.am.job.node-blacklisting.enable", "false"), f.context);
    off.handle(f.jobCreated());
    off.apply(engine, f.job, 0, action("VETO\tm\t3\t0\t0\tslow:1\t\tthe copy landed on avoided node slow:1"));
    assertEquals(3, count(ContainerFailedEvent.class));
  }

  @Test
  void aMoveKillsTheAttemptEvenWhileStartingAndReschedulesIt() {
    when(f.attempt(1).getState()).thenReturn(TaskAttemptState.STARTING);
    s.apply(engine, f.job, 0, action("MOVE\tm\t1\t0\t0\t\t\tMantri §5.2 network-aware placement: rack /a over its plan"));
    TaskAttemptKillEvent kill = (TaskAttemptKillEvent) f.sent.stream()
        .filter(TaskAttemptKillEvent.class::isInstance).findFirst().orElseThrow();
    assertTrue(kill.getRescheduleAttempt(), "Hadoop asks for a container anywhere again");
    assertTrue(kill.getMessage().contains("rein move: Mantri §5.2"), kill.getMessage());
    assertEquals(1, f.counter(ReinCounters.MOVES));
    assertEquals(0, f.counter(ReinCounters.RESTARTS));
  }

  @Test
  void aMoveReachesAnAttemptWhoseTaskIsNotRunningYet() {
    when(f.task(1).getState()).thenReturn(TaskState.SCHEDULED);
    when(f.attempt(1).getState()).thenReturn(TaskAttemptState.STARTING);
    s.apply(engine, f.job, 0, action("MOVE\tm\t1\t0\t0\t\t\tMantri §5.2 network-aware placement"));
    assertEquals(1, count(TaskAttemptKillEvent.class), "the container is assigned; the task is still SCHEDULED");
    s.apply(engine, f.job, 0, action("RESTART\tm\t1\t0\t0\t\t\tMantri §5.1 restart"));
    assertEquals(1, count(TaskAttemptKillEvent.class), "a restart still needs a running task");
  }

  /** A kill the shim does not carry out is given back to the engine, attempt by attempt. */
  @Test
  void aDroppedKillIsReportedBackToTheEngine() throws Exception {
    EngineRecorder recorder = new EngineRecorder();
    f.succeed(1);
    when(f.attempt(2).getState()).thenReturn(TaskAttemptState.KILLED);
    when(f.attempt(3).getState()).thenReturn(TaskAttemptState.COMMIT_PENDING);
    s.apply(recorder.engine, f.job, 0, action("RESTART\tm\t1\t0\t0\t\t\tMantri §5.1 restart"));
    s.apply(recorder.engine, f.job, 0, action("VETO\tm\t2\t0\t0\t\t\tthe copy landed on avoided node n1:1"));
    s.apply(recorder.engine, f.job, 0, action("MOVE\tm\t3\t0\t0\t\t\tMantri §5.2 network-aware placement"));
    assertEquals(0, count(TaskAttemptKillEvent.class));
    assertEquals(List.of("11 0 1 0 0 0 null", "11 0 2 0 0 0 null", "11 0 3 0 0 0 null"),
        recorder.ofKind(NativeEngine.EV_KILL_DROPPED));
    assertEquals(List.of(), recorder.ofKind(NativeEngine.EV_COPY_DROPPED));
  }

  @Test
  void cloneAsksForEachCopy() {
    s.apply(engine, f.job, 0, action("CLONE\tm\t0\t-1\t2\t\t\tDolly §3.3"));
    long specs = f.sent.stream().filter(e -> e instanceof TaskEvent)
        .filter(e -> ((TaskEvent) e).getType() == TaskEventType.T_ADD_SPEC_ATTEMPT).count();
    assertEquals(2, specs);
    assertEquals(2, f.counter(ReinCounters.CLONES));
  }

  @Test
  void aScanCarriesOutCopiesSentWithoutAReasonAndCountsThemInOneUpdate() throws Exception {
    s.init(ShimFixture.conf());
    EngineRecorder recorder = new EngineRecorder().into(s);
    // Past rein.log.copies-per-scan the engine sends a copy without its reason.
    when(recorder.engine.decide(org.mockito.ArgumentMatchers.anyLong())).thenReturn(new EngineAction[] {
        action("SPECULATE\tm\t0\t-1\t1\t\t\tLATE §4"), action("SPECULATE\tm\t1\t-1\t1"), action("CLONE\tm\t2\t-1\t2")});
    s.scanNow();
    long specs = f.sent.stream().filter(e -> e instanceof TaskEvent)
        .filter(e -> ((TaskEvent) e).getType() == TaskEventType.T_ADD_SPEC_ATTEMPT).count();
    assertEquals(4, specs);
    assertEquals(2, f.counter(ReinCounters.SPECULATIVE_LAUNCHED));
    assertEquals(2, f.counter(ReinCounters.CLONES));
    assertEquals(1, count(JobCounterUpdateEvent.class), "the scan's counts go out as one update");
    s.stop();
  }

  @Test
  void noCopyOfATaskThatIsNotRunning() {
    when(f.task(0).getState()).thenReturn(TaskState.SCHEDULED);
    s.apply(engine, f.job, 0, action("CLONE\tm\t0\t-1\t2\t\t\tDolly §3.3"));
    assertEquals(0, count(TaskEvent.class));
    assertEquals(1, f.counter(ReinCounters.ACTIONS_DROPPED));
  }

  /**
   * An action as librein's typed records carry it, from the compact notation
   * {@code VERB kind index attempt copies avoid rack reason} (tab-separated), decoded as the shim
   * decodes {@code decide}'s result; without the reason field, the record has no reason (as a copy
   * past {@code rein.log.copies-per-scan}). An unknown verb or kind is encoded as a code the engine
   * never sends.
   */
  static EngineAction action(String line) {
    String[] f = line.split("\t", -1);
    java.util.List<String> verbs = java.util.Arrays.asList("SPECULATE", "RESTART", "CLONE", "VETO", "MOVE");
    int verb = verbs.indexOf(f[0]) >= 0 ? verbs.indexOf(f[0]) : 99;
    int kind = f.length > 1 && f[1].equals("m") ? 0 : f.length > 1 && f[1].equals("r") ? 1 : 7;
    int[] ints = new int[EngineAction.HEADER + EngineAction.STRIDE];
    ints[0] = NativeEngine.ABI_VERSION;
    ints[1] = 1;
    ints[2] = EngineAction.STRIDE;
    // A single node in the avoid field goes to the record's own-node slot (for a VETO, the node
    // to block).
    boolean own = f.length > 5 && !f[5].isEmpty();
    int[] rec = {verb, kind, f.length > 2 ? Integer.parseInt(f[2]) : 0, f.length > 3 ? Integer.parseInt(f[3]) : -1,
        f.length > 4 ? Integer.parseInt(f[4]) : 0, f.length > 7 ? 0 : -1, -1, own ? 1 : -1, -1, 0};
    System.arraycopy(rec, 0, ints, EngineAction.HEADER, rec.length);
    String reason = f.length > 7 ? f[7] : "";
    String[] strings = own ? new String[] {reason, f[5]} : new String[] {reason};
    return EngineAction.decode(new Object[] {ints, strings})[0];
  }

  @Test
  void aMalformedActionIsAnEngineFailure() {
    assertThrows(ReinNativeException.class, () -> s.apply(engine, f.job, 0, action("SPECULATE\tx\t0")));
    assertThrows(ReinNativeException.class, () -> EngineAction.decode(new Object[] {new int[] {4, 0, 10}, new String[0]}),
        "a record of another ABI");
    assertThrows(ReinNativeException.class, () -> s.apply(engine, f.job, 0, action("LAUNCH\tm\t0\t-1\t1\t\t\twhy")));
  }
}
