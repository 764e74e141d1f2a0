package io.rein.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyDouble;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.mapreduce.v2.app.speculate.SpeculatorEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * handle() runs on the AM's only dispatcher thread: it must not wait for a decision, and what it
 * is handed while one runs must reach the engine afterwards, complete and in order.
 */
class ReinSpeculatorHandOffTest {
  private final ShimFixture f = new ShimFixture(4);
  /** What the engine was given, in order: events as "kind task attempt progress value", and "decide". */
  private final List<String> engineLog = Collections.synchronizedList(new ArrayList<>());
  /** The size of each batch of events the engine was given in one call, in order. */
  private final List<Integer> batches = Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch inDecide = new CountDownLatch(1);
  private final CountDownLatch releaseDecide = new CountDownLatch(1);
  private final ExecutorService dispatcher = Executors.newSingleThreadExecutor();
  private ReinSpeculator s;
  private Thread scan;

  /** A speculator whose engine records every event and whose first decision blocks until released. */
  @BeforeEach
  void setUp() throws Exception {
    NativeEngine engine = mock(NativeEngine.class);
    doAnswer(inv -> {
      engineLog.add(String.format(Locale.ROOT, "%d %d %d %.3f %d", (int) inv.getArgument(1),
          (int) inv.getArgument(3), (int) inv.getArgument(4), (double) inv.getArgument(5), (long) inv.getArgument(6)));
      return null;
    }).when(engine).event(anyLong(), anyInt(), anyInt(), anyInt(), anyInt(), anyDouble(), anyLong(), anyLong(),
        any(), any());
    doAnswer(inv -> {
      NativeEngine.EventBatch b = inv.getArgument(0);
      batches.add(b.size);
      for (int k = 0; k < b.size; k++) {
        int i = k * NativeEngine.EventBatch.INTS;
        engineLog.add(String.format(Locale.ROOT, "%d %d %d %.3f %d", b.ints[i], b.ints[i + 2], b.ints[i + 3],
            b.progress[k], b.longs[k * NativeEngine.EventBatch.LONGS + 1]));
      }
      b.size = 0;
      return null;
    }).when(engine).events(any());
    doAnswer(inv -> {
      engineLog.add("decide");
      inDecide.countDown();
      assertTrue(releaseDecide.await(30, TimeUnit.SECONDS));
      return new EngineAction[0];
    }).when(engine).decide(anyLong());
    when(engine.records()).thenReturn("");
    when(engine.roi()).thenReturn(new long[5]);

    s = new ReinSpeculator(ShimFixture.conf("rein.policy", "none"), f.context);
    s.init(ShimFixture.conf());
    Field field = ReinSpeculator.class.getDeclaredField("engine");
    field.setAccessible(true);
    field.set(s, engine);
    s.handle(f.jobCreated());
    for (int i = 0; i < 4; i++) {
      s.handle(f.started(i));
    }
    f.now = 5_000;
  }

  @AfterEach
  void tearDown() throws Exception {
    releaseDecide.countDown();
    if (scan != null) {
      scan.join(10_000);
    }
    dispatcher.shutdownNow();
    s.stop();
  }

  /** Starts a scan on its own thread and returns once it is inside decide. */
  private void scanUntilInDecide() throws InterruptedException {
    scan = new Thread(s::scanNow, "test-scan");
    scan.start();
    assertTrue(inDecide.await(10, TimeUnit.SECONDS), "the scan reached decide");
  }

  /** Hands the speculator events on the "dispatcher" thread; fails if that takes 10 s. */
  private void dispatch(List<SpeculatorEvent> events) throws Exception {
    Future<?> done = dispatcher.submit(() -> events.forEach(s::handle));
    done.get(10, TimeUnit.SECONDS);
  }

  private List<String> loggedAfterFirstDecide() {
    synchronized (engineLog) {
      int first = engineLog.indexOf("decide");
      List<String> after = new ArrayList<>(engineLog.subList(first + 1, engineLog.size()));
      after.remove("decide");
      return after;
    }
  }

  private static String statusLine(int task, float progress) {
    return String.format(Locale.ROOT, "%d %d 0 %.3f %d", NativeEngine.EV_ATTEMPT_STATUS, task, (double) progress,
        org.apache.hadoop.mapreduce.v2.api.records.Phase.MAP.ordinal());
  }

  @Test
  void handleReturnsWhileADecisionIsBlocked() throws Exception {
    scanUntilInDecide();
    List<SpeculatorEvent> events = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      events.add(f.status(i % 4, i / 1000f));
    }
    dispatch(events);
    assertTrue(scan.isAlive(), "the decision is still blocked");
    assertEquals(List.of(), loggedAfterFirstDecide(), "nothing reached the engine while it decided");
  }

  @Test
  void eventsHandledDuringADecisionReachTheEngineAfterItAndInOrder() throws Exception {
    scanUntilInDecide();
    List<SpeculatorEvent> events = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      float progress = (i % 97) / 100f;
      events.add(f.status(i % 4, progress));
      expected.add(statusLine(i % 4, progress));
    }
    events.add(new SpeculatorEvent(f.task(2).getID(), 1));
    expected.add(String.format(Locale.ROOT, "%d 2 0 0.000 1", NativeEngine.EV_CONTAINER_NEED));
    dispatch(events);

    releaseDecide.countDown();
    scan.join(10_000);
    s.scanNow();
    assertEquals(expected, loggedAfterFirstDecide());
    assertEquals("decide", engineLog.get(engineLog.size() - 1), "delivered before the next decision");
  }

  /**
   * With the engine idle, the dispatcher crosses into it once per {@link ReinSpeculator#DELIVER_BATCH}
   * events, never for fewer; the scan delivers what is left, in order, before it decides.
   */
  @Test
  void theDispatcherDeliversInFullBatchesAndTheScanTheRest() throws Exception {
    int n = 3 * ReinSpeculator.DELIVER_BATCH + 5;
    List<SpeculatorEvent> events = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      float progress = (i % 97) / 100f;
      events.add(f.status(i % 4, progress));
      expected.add(statusLine(i % 4, progress));
    }
    dispatch(events);
    int b = ReinSpeculator.DELIVER_BATCH;
    // setUp's four starts are queued first (the job's creation is not an engine event); each
    // full batch goes at once.
    assertEquals(List.of(b, b, b), batches, "the dispatcher's crossings");
    releaseDecide.countDown();
    s.scanNow();
    assertEquals(List.of(b, b, b, 4 + n - 3 * b), batches, "the scan's crossing: what was left, in one");
    List<String> statuses;
    synchronized (engineLog) {
      assertEquals("decide", engineLog.get(engineLog.size() - 1), "delivered before the decision");
      statuses = engineLog.stream().filter(e -> e.startsWith(NativeEngine.EV_ATTEMPT_STATUS + " ")).collect(
          java.util.stream.Collectors.toList());
    }
    assertEquals(expected, statuses, "every report, in order");
    long[] scanned = s.scanTime();
    assertEquals(1, scanned[0], "one scan timed, for the AM log's cost line");
    assertTrue(scanned[1] >= scanned[2] && scanned[2] >= 0);
  }

  @Test
  void aFullQueueDropsProgressReportsButNeverAContainerNeedChange() throws Exception {
    scanUntilInDecide();
    List<SpeculatorEvent> events = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < ReinSpeculator.QUEUE_CAPACITY; i++) {
      events.add(f.status(i % 4, 0.5f));
      expected.add(statusLine(i % 4, 0.5f));
    }
    events.add(f.status(0, 0.9f));
    events.add(new SpeculatorEvent(f.task(1).getID(), -1));
    expected.add(String.format(Locale.ROOT, "%d 1 0 0.000 -1", NativeEngine.EV_CONTAINER_NEED));
    events.add(f.status(0, 0.9f));
    dispatch(events);

    releaseDecide.countDown();
    scan.join(10_000);
    s.scanNow();
    assertEquals(expected, loggedAfterFirstDecide());
  }
}
