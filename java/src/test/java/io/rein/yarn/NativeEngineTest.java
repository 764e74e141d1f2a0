package io.rein.yarn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class NativeEngineTest {
  @BeforeAll
  static void load() {
    String from = NativeLoader.load(null, null);
    assertTrue(from.startsWith("bundled copy extracted to ") || from.equals("java.library.path"), from);
  }

  @Test
  void abiMatches() {
    assertEquals(NativeEngine.ABI_VERSION, NativeEngine.abiVersion());
  }

  @Test
  void aLibraryOfAnotherAbiIsRefusedSayingBothVersions() {
    NativeLoader.checkAbi("here", 1, 1);
    ReinNativeException ex = assertThrows(ReinNativeException.class, () -> NativeLoader.checkAbi("/opt/librein.so", 2, 1));
    assertTrue(ex.getMessage().contains("/opt/librein.so") && ex.getMessage().contains("ABI 2")
        && ex.getMessage().contains("needs ABI 1"), ex.getMessage());
  }

  @Test
  void theEngineReportsTheBoundOnOneScansCopiesAsItParsedIt() {
    try (NativeEngine e = NativeEngine.create(Map.of("rein.policy", "mantri", "rein.max-copies-per-scan", "0"))) {
      assertEquals(0, e.maxCopiesPerScan());
      assertEquals(0, e.warnings().length);
    }
    try (NativeEngine e = NativeEngine.create(Map.of("rein.policy", "ese", "rein.max-copies-per-scan", "7"))) {
      assertEquals(7, e.maxCopiesPerScan());
    }
  }

  @Test
  void aStragglerIsSpeculatedWithItsReason() {
    try (NativeEngine e = NativeEngine.create(Map.of("rein.policy", "late", "rein.late.min-runtime-ms", "0",
        "rein.late.speculativecap", "0.5"))) {
      assertEquals("late", e.policy());
      assertEquals(1000, e.maxCopiesPerScan(), "the engine's default bound, as it parsed it");
      assertEquals(1, e.warnings().length);
      assertTrue(e.warnings()[0].contains("rein.late.speculativecap"));
      e.event(0, NativeEngine.EV_JOB_CREATED, 0, 0, 0, 0, 4, 0, null, null);
      // The first start names its node as a string; the others by an id named before, as the
      // shim sends them (ABI 8), the straggler among them.
      e.event(0, NativeEngine.EV_ATTEMPT_STARTED, 0, 0, 0, 0, 0, 0, "localhost:4000", "/r1");
      for (int i = 1; i < 4; i++) {
        e.event(0, NativeEngine.EV_NODE_NAMED, 0, 0, 0, 0, 10 + i, 0, "localhost:" + (4000 + i), "/r1");
        e.event(0, NativeEngine.EV_ATTEMPT_STARTED, 0, i, 0, 0, 11 + i, 0, null, null);
      }
      // The ends and the straggler's report in one batch, as the shim delivers its queue (ABI 9).
      NativeEngine.EventBatch batch = new NativeEngine.EventBatch(8);
      for (int i = 0; i < 3; i++) {
        batch.add(10_000, NativeEngine.EV_ATTEMPT_FINISHED, 0, i, 0, 0, NativeEngine.OUTCOME_SUCCEEDED, 0);
      }
      batch.add(20_000, NativeEngine.EV_ATTEMPT_STATUS, 0, 3, 0, 0.1, 1, 0);
      e.events(batch);
      assertEquals(0, batch.size, "the batch is emptied for the next");
      assertArrayEquals(new long[] {12, 9}, e.sent(), "eight events one a call, then four in one");
      EngineAction[] actions = e.decide(20_000);
      assertEquals(1, actions.length);
      EngineAction a = actions[0];
      assertEquals(EngineAction.Verb.SPECULATE, a.verb);
      assertTrue(a.isMap());
      assertEquals(3, a.taskIndex);
      assertEquals(-1, a.attempt);
      assertEquals(1, a.copies);
      assertTrue(a.avoidNodes().contains("localhost:4003"), "the original's node is avoided: " + a.avoidNodes());
      assertTrue(a.reason.startsWith("LATE §4"), a.reason);
      assertEquals(0, e.decide(21_000).length, "one copy per task");
    }
  }

  @Test
  void badConfigNamesKeyValueAndRange() {
    ReinConfigException ex = assertThrows(ReinConfigException.class,
        () -> NativeEngine.create(Map.of("rein.late.slow-task-threshold", "1.5")));
    assertTrue(ex.getMessage().contains("rein.late.slow-task-threshold"), ex.getMessage());
    assertTrue(ex.getMessage().contains("'1.5'") && ex.getMessage().contains("[0, 1]"), ex.getMessage());
    assertThrows(ReinConfigException.class, () -> NativeEngine.create(Map.of("rein.policy", "fastest")));
  }

  @Test
  void badEventsBecomeJavaExceptions() {
    try (NativeEngine e = NativeEngine.create(Map.of())) {
      ReinNativeException ex = assertThrows(ReinNativeException.class,
          () -> e.event(0, 42, 0, 0, 0, 0, 0, 0, null, null));
      assertTrue(ex.getMessage().contains("unknown event kind 42"), ex.getMessage());
      assertThrows(ReinNativeException.class, () -> e.event(0, NativeEngine.EV_ATTEMPT_STARTED, 5, 0, 0, 0, 0, 0,
          null, null));
      ex = assertThrows(ReinNativeException.class,
          () -> e.event(0, NativeEngine.EV_ATTEMPT_STARTED, 0, 0, 0, 0, 8, 0, null, null));
      assertTrue(ex.getMessage().contains("node id 7 was never named"), ex.getMessage());
      NativeEngine.EventBatch batch = new NativeEngine.EventBatch(4);
      batch.add(0, NativeEngine.EV_JOB_CREATED, 0, 0, 0, 0, 2, 0);
      batch.add(0, NativeEngine.EV_ATTEMPT_STATUS, 0, 0, -3, 0.5, 1, 0);
      ex = assertThrows(ReinNativeException.class, () -> e.events(batch));
      assertTrue(ex.getMessage().contains("event 2 of a batch of 2: attempt number -3 < 0"), ex.getMessage());
      assertEquals(0, batch.size, "a refused batch is emptied too");
      assertEquals(0, e.decide(0).length, "the engine still works after a rejected event");
    }
  }

  @Test
  void useAfterCloseFailsAndDoubleCloseIsHarmless() {
    NativeEngine e = NativeEngine.create(Map.of());
    e.close();
    e.close();
    assertThrows(ReinNativeException.class, () -> e.decide(0));
    assertThrows(ReinNativeException.class, () -> e.event(0, NativeEngine.EV_JOB_CREATED, 0, 0, 0, 0, 1, 1, null,
        null));
  }

  @Test
  void manyEnginesComeAndGo() {
    for (int i = 0; i < 2000; i++) {
      try (NativeEngine e = NativeEngine.create(Map.of("rein.policy", "late"))) {
        e.event(i, NativeEngine.EV_JOB_CREATED, 0, 0, 0, 0, 10, 2, null, null);
        e.decide(i);
      }
    }
  }
}
