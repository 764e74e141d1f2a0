package io.rein.yarn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.when;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.v2.api.records.TaskType;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.proto.YarnServiceProtos.SchedulerResourceTypes;
import org.junit.jupiter.api.Test;

/** The shim tells the engine what Hadoop knows: capacity, switches, re-runs, lost nodes. */
class ReinSpeculatorTruthTest {
  /** Stands for Hadoop's RMContainerAllocator: the three methods the shim reads. */
  static final class FakeAllocator {
    Resource limit = Resource.newInstance(8192, 8);
    Resource headroom = Resource.newInstance(3072, 3);

    public Resource getResourceLimit() {
      return limit;
    }

    protected Resource getAvailableResources() {
      return headroom;
    }

    public EnumSet<SchedulerResourceTypes> getSchedulerResourceTypes() {
      return EnumSet.of(SchedulerResourceTypes.MEMORY);
    }
  }

  private static ReinSpeculator started(ShimFixture f, Configuration conf) {
    ReinSpeculator s = new ReinSpeculator(conf, f.context);
    s.init(conf);
    s.handle(f.jobCreated());
    for (int i = 0; i < f.tasks.size(); i++) {
      s.handle(f.started(i));
    }
    return s;
  }

  @Test
  void containersAreSizedAsHadoopSizesThemOnStockConfigs() {
    // mapred-default.xml: mapreduce.{map,reduce}.memory.mb = -1, cpu.vcores = 1.
    Configuration stock = new Configuration(false);
    stock.set("mapreduce.map.memory.mb", "-1");
    stock.set("mapreduce.reduce.memory.mb", "-1");
    assertEquals(Resource.newInstance(1024, 1), AmIntrospection.container(stock, TaskType.MAP));
    assertEquals(Resource.newInstance(1024, 1), AmIntrospection.container(stock, TaskType.REDUCE));
    stock.set("mapreduce.reduce.memory.mb", "3072");
    stock.set("mapreduce.reduce.cpu.vcores", "2");
    assertEquals(Resource.newInstance(3072, 2), AmIntrospection.container(stock, TaskType.REDUCE));
  }

  @Test
  void capacityIsReportedOnStockConfigsOnceTheAllocatorExists() throws Exception {
    ShimFixture f = new ShimFixture(4);
    Configuration conf = ShimFixture.conf("rein.policy", "none", "mapreduce.map.memory.mb", "-1");
    ReinSpeculator s = started(f, conf);
    EngineRecorder engine = new EngineRecorder().into(s);
    List<Object> allocators = new ArrayList<>();
    allocators.add(null); // the allocator starts after the speculator
    allocators.add(new FakeAllocator());
    s.allocatorLookup = c -> allocators.size() > 1 ? allocators.remove(0) : allocators.get(0);
    s.scanNow();
    assertEquals(List.of(), engine.ofKind(NativeEngine.EV_CAPACITY));
    s.scanNow();
    assertArrayEquals(new long[] {8, 3}, s.reportedCapacity(), "8 GB limit, 3 GB headroom, 1 GB containers");
    assertEquals(List.of("7 0 0 0 8 3 null"), engine.ofKind(NativeEngine.EV_CAPACITY));
    s.stop();
  }

  @Test
  void aFailingAllocatorLookupIsRetriedAndNeverFailsTheScan() throws Exception {
    ShimFixture f = new ShimFixture(2);
    ReinSpeculator s = started(f, ShimFixture.conf("rein.policy", "none"));
    EngineRecorder engine = new EngineRecorder().into(s);
    int[] calls = {0};
    s.allocatorLookup = c -> {
      if (calls[0]++ < 2) {
        throw new IllegalStateException("no this$0 in a mock");
      }
      return new FakeAllocator();
    };
    s.scanNow();
    s.scanNow();
    s.scanNow();
    assertEquals(true, s.isActive());
    assertEquals(1, engine.ofKind(NativeEngine.EV_CAPACITY).size());
    s.stop();
  }

  @Test
  void theSwitchesReachTheEngineAndMapsAreToldOfWithMapSpeculationOff() throws Exception {
    Configuration conf = ShimFixture.conf("rein.policy", "none", "mapreduce.map.speculative", "false");
    Map<String, String> keys = ReinSpeculator.engineKeys(conf);
    assertEquals("false", keys.get("mapreduce.map.speculative"));
    assertEquals("true", keys.get("mapreduce.reduce.speculative"));
    ShimFixture f = new ShimFixture(2);
    ReinSpeculator s = started(f, conf);
    EngineRecorder engine = new EngineRecorder().into(s);
    s.scanNow();
    // Each node is named once, by id; each start names its node by that id plus one, no string.
    List<String> named = engine.ofKind(NativeEngine.EV_NODE_NAMED);
    assertEquals(2, named.stream().filter(e -> e.endsWith(":4000") || e.endsWith(":4001")).count(),
        engine.events.toString());
    Set<Long> refs = new HashSet<>();
    for (String n : named) {
      refs.add(Long.parseLong(n.split(" ")[4]) + 1);
    }
    // The dispatcher's starts (queued since before the recorder came in) know no node yet.
    List<String> starts = new ArrayList<>();
    for (String start : engine.ofKind(NativeEngine.EV_ATTEMPT_STARTED)) {
      String[] fields = start.split(" ");
      assertEquals("null", fields[6], start);
      if (!"0".equals(fields[4])) {
        starts.add(start);
      }
    }
    assertEquals(2, starts.size(), engine.events.toString());
    for (String start : starts) {
      String[] fields = start.split(" ");
      assertEquals("null", fields[6], start);
      assertTrue(refs.remove(Long.parseLong(fields[4])), start + " names a node never named: " + engine.events);
    }
    s.scanNow();
    assertEquals(2, engine.ofKind(NativeEngine.EV_NODE_NAMED).size(), "a node is named once: " + engine.events);
    s.stop();
  }

  @Test
  void aSucceededMapKilledForItsLostNodeReopensAndReportsTheNode() throws Exception {
    ShimFixture f = new ShimFixture(2);
    ReinSpeculator s = started(f, ShimFixture.conf("rein.policy", "none"));
    EngineRecorder engine = new EngineRecorder().into(s);
    f.now = 5_000;
    f.succeed(0);
    s.scanNow();
    assertEquals(List.of("6 0 0 0 0 0 null"), engine.ofKind(NativeEngine.EV_ATTEMPT_FINISHED));
    // JobImpl.actOnUnusableNode kills the succeeded map so that it re-runs.
    f.now = 9_000;
    f.killForUnusableNode(0);
    s.scanNow();
    s.scanNow();
    assertEquals(List.of("6 0 0 0 0 0 null", "6 0 0 0 2 0 null"), engine.ofKind(NativeEngine.EV_ATTEMPT_FINISHED));
    assertEquals(List.of("8 0 0 0 0 0 localhost:4000"), engine.ofKind(NativeEngine.EV_NODE_LOST));
    s.stop();
  }

  @Test
  void anUnknownPhaseCodeDoesNotFailTheEngine() {
    NativeLoader.load(null, null);
    try (NativeEngine e = NativeEngine.create(Map.of())) {
      e.event(0, NativeEngine.EV_JOB_CREATED, 0, 0, 0, 0, 1, 0, null, null);
      e.event(0, NativeEngine.EV_ATTEMPT_STARTED, 0, 0, 0, 0, 0, 0, "n:1", null);
      e.event(1_000, NativeEngine.EV_ATTEMPT_STATUS, 0, 0, 0, 0.5, 42, 0, null, null);
      e.decide(2_000);
    }
  }

  @Test
  void serviceStopReturnsWhileTheEngineIsStuck() throws Exception {
    ShimFixture f = new ShimFixture(2);
    ReinSpeculator s = started(f, ShimFixture.conf("rein.policy", "none"));
    s.start();
    java.lang.reflect.Field lockField = ReinSpeculator.class.getDeclaredField("engineLock");
    lockField.setAccessible(true);
    ReentrantLock lock = (ReentrantLock) lockField.get(s);
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread stuck = new Thread(() -> {
      lock.lock();
      held.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        lock.unlock();
      }
    });
    stuck.start();
    held.await();
    try {
      assertTimeoutPreemptively(Duration.ofMillis(3 * ReinSpeculator.STOP_WAIT_MS), s::stop);
    } finally {
      release.countDown();
      stuck.join();
    }
  }
}
