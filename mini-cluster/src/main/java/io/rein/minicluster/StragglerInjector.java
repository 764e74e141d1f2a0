package io.rein.minicluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
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

  /** Task JVMs of each slowed NM, found through /proc. */
  private Map<Integer, List<Long>> taskJvmsByNode() {
    Map<Integer, List<Long>> out = new TreeMap<>();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Paths.get("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        String cmd;
        try {
          cmd = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8);
        } catch (IOException gone) {
          continue;
        }
        if (!cmd.contains("org.apache.hadoop.mapred.YarnChild")) {
          continue;
        }
        for (Integer nm : factors.keySet()) {
          if (cmd.contains("-logDir-nm-" + nm + "_")) {
            out.computeIfAbsent(nm, k -> new ArrayList<>()).add(Long.parseLong(proc.getFileName().toString()));
          }
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list /proc", e);
    }
    return out;
  }

  private static void signal(String sig, List<Long> pids) {
    if (pids.isEmpty()) {
      return;
    }
    List<String> cmd = new ArrayList<>();
    cmd.add("kill");
    cmd.add(sig);
    for (Long p : pids) {
      cmd.add(Long.toString(p));
    }
    try {
      // A process that exited meanwhile makes kill complain; that is expected.
      new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start().waitFor();
    } catch (IOException e) {
      throw new IllegalStateException("cannot run kill", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.interrupt();
    thread.join(5_000);
    resumeAll();
  }
}
