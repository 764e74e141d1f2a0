package io.rein.yarn;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a burst of actions costs the ApplicationMaster at the JNI boundary: {@code decide} over
 * JNI (the engine's decision, its typed records, the Java strings, the decoding) on the job of
 * {@code rust/bench/src/lib.rs}'s {@code job()} (N running maps, every one late, a million
 * slots, and {@code rein.max-copies-per-scan=0}, no bound on a decision's copies: most policies
 * copy all N, the biggest burst the shim can be handed), with {@code rein.log.copies-per-scan} at its default (a
 * reason text for the first 100 copies only) and at its maximum (a reason for every copy, as
 * before the key), and with the decision log on as an ApplicationMaster has it by default
 * ({@code rein.decision-log=auto}, 16 MB): then the decision and the records the shim takes
 * after it ({@code records()}, across JNI). Thread CPU time; a fresh engine per round, rounds
 * alternated between the three settings. Not a test: {@code scripts/bench.sh --overhead} runs
 * it.
 *
 * <p>{@code BurstBench [RUNNING [ROUNDS [POLICIES]]]}, defaults 100000, 5, every policy.
 */
public final class BurstBench {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private BurstBench() {}

  public static void main(String[] args) {
    int running = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    String[] policies = (args.length > 2 ? args[2] : "auto,late,mantri,dolly,sca,ese,hadoop").split(",");
    NativeLoader.load(null, null);
    System.out.printf(Locale.ROOT, "decide over JNI, first decision on %d running maps, all late; thread CPU ms, "
        + "median (min-max) of %d rounds%n", running, rounds);
    for (String policy : policies) {
      List<Double> capped = new ArrayList<>();
      List<Double> every = new ArrayList<>();
      List<Double> logged = new ArrayList<>();
      List<List<Double>> bySetting = List.of(capped, every, logged);
      int actions = 0;
      long logChars = 0;
      for (int r = 0; r < rounds; r++) {
        for (int setting = 0; setting < 3; setting++) {
          try (NativeEngine e = job(policy, running, setting == 1 ? "1000000" : null, setting == 2)) {
            long t0 = THREADS.getCurrentThreadCpuTime();
            EngineAction[] out = e.decide(40_000);
            if (setting == 2) {
              logChars = e.records().length();
            }
            double ms = (THREADS.getCurrentThreadCpuTime() - t0) / 1e6;
            bySetting.get(setting).add(ms);
            actions = out.length;
          }
        }
      }
      System.out.printf(Locale.ROOT, "%-7s %6d actions: copies-per-scan 100: %s; every reason: %s; "
          + "decision log on (%.1f MB of records): %s%n", policy, actions, spread(capped), spread(every),
          logChars / 1048576.0, spread(logged));
    }
  }

  /** The same job as {@code rein_bench::job}, fed through JNI. */
  private static NativeEngine job(String policy, int running, String copiesPerScan, boolean decisionLog) {
    Map<String, String> conf = new HashMap<>();
    conf.put("rein.policy", policy);
    conf.put("rein.late.min-runtime-ms", "0");
    conf.put("rein.ese.expected-task-ms", "20000");
    conf.put("rein.cluster.slots", "1000000");
    conf.put("rein.max-copies-per-scan", "0");
    if (copiesPerScan != null) {
      conf.put("rein.log.copies-per-scan", copiesPerScan);
    }
    if (decisionLog) {
      conf.put("rein.decision-log", "auto");
    }
    NativeEngine e = NativeEngine.create(conf);
    int done = Math.max(running / 10, 5);
    e.event(0, NativeEngine.EV_JOB_CREATED, 0, 0, 0, 0, running + done, 0, null, null);
    for (int i = 0; i < running + done; i++) {
      e.event(0, NativeEngine.EV_TASK_INPUT, 0, i, 0, 0, 128L << 20, 0, null, null);
      e.event(0, NativeEngine.EV_ATTEMPT_STARTED, 0, i, 0, 0, 0, 0, "n" + (i % 1000) + ":1", null);
    }
    for (int i = 0; i < done; i++) {
      e.event(20_000 + i, NativeEngine.EV_ATTEMPT_FINISHED, 0, running + i, 0, 0, NativeEngine.OUTCOME_SUCCEEDED, 0,
          null, null);
    }
    for (int k = 1; k <= 2; k++) {
      for (int i = 0; i < running; i++) {
        double p = Math.min(k * 0.1 / (1 + i % 7), 0.9);
        e.event(k == 1 ? 10_000 : 30_000, NativeEngine.EV_ATTEMPT_STATUS, 0, i, 0, p, 1, 0, null, null);
      }
    }
    return e;
  }

  private static String spread(List<Double> ms) {
    double[] v = ms.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(v);
    return String.format(Locale.ROOT, "%.1f (%.1f-%.1f)", v[v.length / 2], v[0], v[v.length - 1]);
  }
}
