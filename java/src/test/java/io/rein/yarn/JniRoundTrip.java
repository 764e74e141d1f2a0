package io.rein.yarn;

import java.util.Locale;
import java.util.Map;

/**
 * A benchmark, not a test: the cost of one event and one decision across JNI, repeated.
 * Run after `mvn -pl java test-compile`:
 * {@code java -cp java/target/classes:java/target/test-classes io.rein.yarn.JniRoundTrip}
 */
public final class JniRoundTrip {
  private JniRoundTrip() {}

  public static void main(String[] args) {
    NativeLoader.load(null, null);
    int tasks = 1000;
    try (NativeEngine e = NativeEngine.create(Map.of("rein.policy", "late"))) {
      e.event(0, NativeEngine.EV_JOB_CREATED, 0, 0, 0, 0, tasks, 0, null, null);
      for (int i = 0; i < tasks; i++) {
        e.event(0, NativeEngine.EV_ATTEMPT_STARTED, 0, i, 0, 0, 0, 0, "node" + (i % 10) + ":1", null);
      }
      for (int round = 0; round < 5; round++) {
        int n = 2_000_000;
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
          e.event(1000 + i, NativeEngine.EV_ATTEMPT_STATUS, 0, i % tasks, 0, 0.3, 1, 0, null, null);
        }
        long t1 = System.nanoTime();
        NativeEngine.EventBatch batch = new NativeEngine.EventBatch(ReinSpeculator.DELIVER_BATCH);
        for (int i = 0; i < n; i++) {
          batch.add(1000 + n + i, NativeEngine.EV_ATTEMPT_STATUS, 0, i % tasks, 0, 0.3, 1, 0);
          if (batch.isFull()) {
            e.events(batch);
          }
        }
        e.events(batch);
        long tb = System.nanoTime();
        System.out.printf(Locale.ROOT, "round %d: the same events in batches of %d, %.0f ns/event%n", round,
            ReinSpeculator.DELIVER_BATCH, (tb - t1) / (double) n);
        t1 = System.nanoTime();
        int d = 20_000;
        for (int i = 0; i < d; i++) {
          e.decide(10_000);
        }
        long t2 = System.nanoTime();
        System.out.printf(Locale.ROOT, "round %d: event %.0f ns/call, decide (%d tasks, no action) %.1f us/call%n",
            round, (t1 - t0) / (double) n, tasks, (t2 - t1) / 1000.0 / d);
      }
    }
    starts();
    scatteredReports();
  }

  /**
   * A progress report on an engine of 100K running maps, the maps reached in a scattered order
   * (a stride prime to the task count), so that each report's task records are out of the caches
   * as a big job's are: one by one ({@code event}) and in the shim's batches ({@code events}),
   * alternated, five rounds of 100K reports each.
   */
  private static void scatteredReports() {
    int tasks = 100_000;
    try (NativeEngine e = NativeEngine.create(Map.of("rein.policy", "late"))) {
      e.event(0, NativeEngine.EV_JOB_CREATED, 0, 0, 0, 0, tasks, 0, null, null);
      for (int n = 0; n < 1000; n++) {
        e.event(0, NativeEngine.EV_NODE_NAMED, 0, 0, 0, 0, n, 0, "host" + n + ".example.com:8041", "/default-rack");
      }
      for (int i = 0; i < tasks; i++) {
        e.event(1000, NativeEngine.EV_ATTEMPT_STARTED, 0, i, 0, 0, i % 1000 + 1, 0, null, null);
      }
      NativeEngine.EventBatch batch = new NativeEngine.EventBatch(ReinSpeculator.DELIVER_BATCH);
      long now = 2000;
      for (int round = 0; round < 5; round++) {
        for (boolean batched : new boolean[] {false, true}) {
          now += 3000;
          double progress = 0.1 + round * 0.1 + (batched ? 0.05 : 0);
          long t0 = System.nanoTime();
          for (int k = 0; k < tasks; k++) {
            int i = (int) ((k * 7919L) % tasks);
            if (!batched) {
              e.event(now, NativeEngine.EV_ATTEMPT_STATUS, 0, i, 0, progress, 1, 0, null, null);
              continue;
            }
            batch.add(now, NativeEngine.EV_ATTEMPT_STATUS, 0, i, 0, progress, 1, 0);
            if (batch.isFull()) {
              e.events(batch);
            }
          }
          e.events(batch);
          long t1 = System.nanoTime();
          System.out.printf(Locale.ROOT, "round %d: a report on 100K running maps in a scattered order, %s, %.0f ns/report%n",
              round, batched ? "in batches of " + ReinSpeculator.DELIVER_BATCH : "one by one", (t1 - t0) / (double) tasks);
        }
      }
    }
  }

  /**
   * An attempt's start on a fresh engine of 100K maps per round, the tasks started in a scattered
   * order (a stride prime to the task count), on 1,000 nodes ({@code host:port}, rack
   * {@code /default-rack}): its node named by strings at every start (as the shim sent it before
   * ABI 8), and by an id told once per node with its name and rack (as it sends it now; the
   * naming events are timed too). The strings are made before the clock.
   */
  private static void starts() {
    int tasks = 100_000;
    String[] nodes = new String[1000];
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = "host" + i + ".example.com:8041";
    }
    for (int round = 0; round < 5; round++) {
      for (boolean byId : new boolean[] {false, true}) {
        try (NativeEngine e = NativeEngine.create(Map.of("rein.policy", "late"))) {
          e.event(0, NativeEngine.EV_JOB_CREATED, 0, 0, 0, 0, tasks, 0, null, null);
          boolean[] named = new boolean[nodes.length];
          long t0 = System.nanoTime();
          for (int k = 0; k < tasks; k++) {
            int i = (int) ((k * 7919L) % tasks);
            int n = i % nodes.length;
            if (!byId) {
              e.event(1000, NativeEngine.EV_ATTEMPT_STARTED, 0, i, 0, 0, 0, 0, nodes[n], "/default-rack");
              continue;
            }
            if (!named[n]) {
              e.event(1000, NativeEngine.EV_NODE_NAMED, 0, 0, 0, 0, n, 0, nodes[n], "/default-rack");
              named[n] = true;
            }
            e.event(1000, NativeEngine.EV_ATTEMPT_STARTED, 0, i, 0, 0, n + 1, 0, null, null);
          }
          long t1 = System.nanoTime();
          System.out.printf(Locale.ROOT, "round %d: start, node %s, %.0f ns/start (%d maps)%n",
              round, byId ? "by id" : "and rack as strings", (t1 - t0) / (double) tasks, tasks);
        }
      }
    }
  }
}
