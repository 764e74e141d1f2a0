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
        int d = 20_000;
        for (int i = 0; i < d; i++) {
          e.decide(10_000);
        }
        long t2 = System.nanoTime();
        System.out.printf(Locale.ROOT, "round %d: event %.0f ns/call, decide (%d tasks, no action) %.1f us/call%n",
            round, (t1 - t0) / (double) n, tasks, (t2 - t1) / 1000.0 / d);
      }
    }
  }
}
