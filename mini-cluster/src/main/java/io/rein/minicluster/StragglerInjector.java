package io.rein.minicluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Slows every task container of chosen NodeManagers by a factor.
 *
 * <p>Mechanism: a duty cycle of SIGSTOP/SIGCONT. In each period every task JVM on a slowed NM
 * runs for {@code period / factor} and is stopped for the rest, so all of its work — CPU, disk,
 * JVM start-up — takes about {@code factor} times as long in wall-clock time, as on a sick or
 * overloaded machine. Task JVMs are found by their command line ({@code YarnChild} with the NM's
 * own log directory); the ApplicationMaster is never slowed, nor is the NM itself (the shuffle
 * server of a slow node stays healthy, as a busy CPU would not stop it serving files).
 */
public final class StragglerInjector implements AutoCloseable {
  private final Map<Integer, Double> factors;
  private final long periodMs;
  private final Thread thread;
  private final List<Long> stopped = new ArrayList<>();
  private volatile boolean running = true;

  /** @param factors NM index → slowdown factor (≥ 1) */
  public StragglerInjector(Map<Integer, Double> factors, long periodMs) {
    for (Map.Entry<Integer, Double> e : factors.entrySet()) {
      if (!(e.getValue() >= 1.0)) {
        throw new IllegalArgumentException("slowdown factor for NM " + e.getKey() + " must be >= 1: " + e.getValue());
      }
    }
    this.factors = new TreeMap<>(factors);
    this.periodMs = periodMs;
    this.thread = new Thread(this::loop, "straggler-injector");
    this.thread.setDaemon(true);
    Runtime.getRuntime().addShutdownHook(new Thread(this::resumeAll));
    this.thread.start();
  }

  private void loop() {
    try {
      while (running) {
        long cycleStart = System.nanoTime();
        Map<Integer, List<Long>> pids = taskJvmsByNode();
        // Stop each slowed node's tasks once its share of the period has passed.
        List<Map.Entry<Integer, Double>> order = new ArrayList<>(factors.entrySet());
        order.sort(Map.Entry.comparingByValue((a, b) -> Double.compare(b, a)));
        for (Map.Entry<Integer, Double> e : order) {
          long runFor = (long) (periodMs / e.getValue());
          sleepUntil(cycleStart, runFor);
          List<Long> p = pids.getOrDefault(e.getKey(), List.of());
          signal("-STOP", p);
          synchronized (stopped) {
            stopped.addAll(p);
          }
        }
        sleepUntil(cycleStart, periodMs);
        resumeAll();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      resumeAll();
    }
  }

  private static void sleepUntil(long cycleStart, long offsetMs) throws InterruptedException {
    long waitMs = offsetMs - (System.nanoTime() - cycleStart) / 1_000_000;
    if (waitMs > 0) {
      Thread.sleep(waitMs);
    }
  }

  private void resumeAll() {
    List<Long> p;
    synchronized (stopped) {
      p = new ArrayList<>(stopped);
      stopped.clear();
    }
    signal("-CONT", p);
  }

  /** Task JVMs of each slowed NM. */
  private Map<Integer, List<Long>> taskJvmsByNode() {
    Map<Integer, List<Long>> out = new TreeMap<>();
    for (Processes.Proc p : Processes.taskJvms()) {
      int nm = p.nodeManager();
      if (factors.containsKey(nm)) {
        out.computeIfAbsent(nm, k -> new ArrayList<>()).add(p.pid);
      }
    }
    return out;
  }

  private static void signal(String sig, List<Long> pids) {
    Processes.signal(sig, pids);
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.interrupt();
    thread.join(5_000);
    resumeAll();
  }
}
