package io.rein.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.when;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEventType;
import org.apache.hadoop.mapreduce.v2.app.speculate.SpeculatorEvent;
import org.junit.jupiter.api.Test;

/**
 * When the engine fails mid-job, Hadoop's DefaultSpeculator takes over and speculates as if it
 * had run from the start: it needs the job, every type's container-need count (it only looks at
 * a type it has had such an event for) and the attempts' starts, ends and progress.
 */
class MidJobFallbackTest {
  @Test
  void theStockSpeculatorCopiesAStragglerAfterANativeFailure() throws Exception {
    int maps = 20;
    ShimFixture f = new ShimFixture(maps);
    Configuration conf = ShimFixture.conf("rein.policy", "late", "rein.test.panic-on", "decide",
        "rein.scan-interval-ms", "600000");
    ReinSpeculator s = new ReinSpeculator(conf, f.context);
    s.init(conf);
    s.start();
    assertTrue(s.isActive());
    f.now = 1_000;
    s.handle(f.jobCreated());
    for (int i = 0; i < maps; i++) {
      s.handle(new SpeculatorEvent(f.task(i).getID(), 1));
    }
    for (int i = 0; i < maps; i++) {
      s.handle(new SpeculatorEvent(f.task(i).getID(), -1));
      s.handle(f.started(i));
    }
    // Nineteen maps take 10 s; the last is at 5% after 20 s.
    f.now = 11_000;
    for (int i = 0; i < maps - 1; i++) {
      s.handle(f.status(i, 1.0f));
      f.succeed(i);
    }
    f.now = 21_000;
    s.handle(f.status(maps - 1, 0.05f));
    when(f.attempt(maps - 1).getProgress()).thenReturn(0.05f);

    s.scanNow(); // the engine panics: DefaultSpeculator takes the job over
    assertFalse(s.isActive());
    long deadline = System.currentTimeMillis() + 15_000;
    boolean copied = false;
    while (!copied && System.currentTimeMillis() < deadline) {
      copied = f.sent.stream().anyMatch(e -> e instanceof TaskEvent
          && ((TaskEvent) e).getType() == TaskEventType.T_ADD_SPEC_ATTEMPT
          && ((TaskEvent) e).getTaskID().equals(f.task(maps - 1).getID()));
      Thread.sleep(100);
    }
    s.stop();
    assertTrue(copied, "DefaultSpeculator launched a copy of the straggler");
  }

  /**
   * Container-need events that arrive while rein switches to the fallback reach it exactly once:
   * through the replay or after it. The "dispatcher" sends +1/-1 pairs throughout the switch; a
   * lost or doubled event would leave the stock speculator's count off zero, and a positive
   * count stops it speculating maps for the rest of the job.
   */
  @Test
  void noContainerNeedEventIsLostOrDoubledAcrossTheSwitch() throws Exception {
    ShimFixture f = new ShimFixture(4);
    Configuration conf = ShimFixture.conf("rein.policy", "none", "rein.test.panic-on", "decide",
        "rein.scan-interval-ms", "600000");
    ReinSpeculator s = new ReinSpeculator(conf, f.context);
    s.init(conf);
    s.start();
    s.handle(f.jobCreated());
    java.util.concurrent.atomic.AtomicBoolean go = new java.util.concurrent.atomic.AtomicBoolean(true);
    Thread dispatcher = new Thread(() -> {
      for (int i = 0; go.get() || i < 10_000; i++) {
        s.handle(new SpeculatorEvent(f.task(i % 4).getID(), 1));
        s.handle(new SpeculatorEvent(f.task(i % 4).getID(), -1));
      }
    });
    dispatcher.start();
    Thread.sleep(20);
    s.scanNow(); // panics: the switch happens while events stream in
    go.set(false);
    dispatcher.join(30_000);
    assertFalse(s.isActive());
    java.lang.reflect.Field fb = ReinSpeculator.class.getDeclaredField("fallback");
    fb.setAccessible(true);
    Object stock = fb.get(s);
    java.lang.reflect.Field needs = stock.getClass().getDeclaredField("mapContainerNeeds");
    needs.setAccessible(true);
    assertEquals("{" + f.jobId + "=0}", needs.get(stock).toString());
    s.stop();
  }
}
