package io.rein.minicluster;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The demo: WordCount on a cluster with one slow node, under Hadoop's stock speculation and under
 * rein, interleaved over several repetitions; every output checked word by word; per policy the
 * median job time with its range, the copies, the waste, and rein's speed-up over stock.
 *
 * <p>Two beds. {@code cluster} (default where cgroups work): the multi-process cluster of
 * {@code scripts/cluster.sh}, rein installed as the README says, jobs submitted through the
 * examples jar's command line, the slow node at a fraction of its CPU share. {@code embedded}:
 * a MiniMRYarnCluster whose slow node's tasks are slowed by SIGSTOP duty cycles.
 *
 * <p>Arguments: {@code OUT_DIR [--bed cluster|embedded] [--reps N] [--policy P] [--slow F]}.
 * Writes {@code OUT_DIR/summary.json} and, per run, {@code OUT_DIR/<policy>-r<rep>/} with the
 * job's history file, the AM's log and the client's output.
 */
public final class Demo {
  static final int NODES = 4;
  static final int SLOTS = 2;
  static final int MAPS = 7;
  static final long BYTES_PER_MAP = 1L << 20;

  private Demo() {}

  /** What the demo runs. */
  static final class Options {
    File out = new File("target/demo");
    String bed = ClusterBed.cgroupsUsable() ? "cluster" : "embedded";
    String bedReason = ClusterBed.cgroupsUsable() ? "cgroups are writable"
        : "the cgroup v1 CPU controller is not writable here, so nodes cannot be given CPU budgets";
    int reps = 3;
    /** rein's policies, each run beside stock: rein's default, auto (more with --policies auto,late). */
    List<String> policies = List.of("auto");
    /** The slow node's CPU, as a fraction of its share (cluster bed); its slowdown is 1 / this. */
    double slow = 1.0 / 6;
  }

  public static void main(String[] args) throws Exception {
    Options o;
    try {
      o = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    o.out.mkdirs();
    log("bed: " + o.bed + " (" + o.bedReason + "); " + o.reps + " repetitions of stock and "
        + String.join(", ", o.policies) + ", interleaved; WordCount, " + MAPS + " maps; one node slowed " + String.format(Locale.ROOT, "%.1f", 1 / o.slow)
        + "x");
    List<Run> runs = o.bed.equals("cluster") ? onCluster(o) : onEmbedded(o);
    System.out.println();
    System.out.println(table(runs, o.policies));
    String json = runs.stream().map(r -> "  " + r.result.toJson(String.format(Locale.ROOT,
            "\"rep\": %d, \"bed\": \"%s\", \"injector\": \"%s\", \"slow_node\": \"%s\", ", r.rep, r.bed, r.injector,
            r.slowNode)))
        .collect(Collectors.joining(",\n", "[\n", "\n]\n"));
    Files.write(new File(o.out, "summary.json").toPath(), json.getBytes(StandardCharsets.UTF_8));
    log("wrote " + new File(o.out, "summary.json") + "; per run: job history, AM log, client output under " + o.out);
    boolean ok = runs.size() == (1 + o.policies.size()) * o.reps && runs.stream().allMatch(r -> r.result.outputOk && r.result.succeeded);
    System.exit(ok ? 0 : 1);
  }

  static Options parse(String[] args) {
    Options o = new Options();
    List<String> a = new ArrayList<>(Arrays.asList(args));
    if (!a.isEmpty() && !a.get(0).startsWith("--")) {
      o.out = new File(a.remove(0));
    }
    for (int i = 0; i < a.size(); i += 2) {
      String key = a.get(i);
      String v = i + 1 < a.size() ? a.get(i + 1) : null;
      if (v == null) {
        throw new IllegalArgumentException("demo: " + key + " needs a value");
      }
      switch (key) {
        case "--bed":
          if (!v.equals("cluster") && !v.equals("embedded")) {
            throw new IllegalArgumentException("demo: --bed must be cluster or embedded: " + v);
          }
          if (v.equals("cluster") && !ClusterBed.cgroupsUsable()) {
            log("WARNING: --bed cluster without writable cgroups: nodes share the whole CPU and the slow node is "
                + "slowed by SIGSTOP duty cycles");
          }
          o.bed = v;
          o.bedReason = "asked for";
          break;
        case "--reps":
          o.reps = v.matches("[1-9][0-9]{0,2}") ? Integer.parseInt(v) : 0;
          if (o.reps < 1) {
            throw new IllegalArgumentException("demo: --reps must be >= 1: " + v);
          }
          break;
        case "--policy":
        case "--policies":
          o.policies = List.of(v.split("\\s*,\\s*"));
          for (String p : o.policies) {
            if (!Bench.REIN_POLICIES.contains(p) && !p.equals("none")) {
              throw new IllegalArgumentException("demo: unknown rein policy '" + p + "'; known: "
                  + String.join(", ", Bench.REIN_POLICIES));
            }
          }
          break;
        case "--slow":
          try {
            o.slow = Double.parseDouble(v);
          } catch (NumberFormatException e) {
            o.slow = Double.NaN;
          }
          if (!(o.slow > 0 && o.slow <= 1)) {
            throw new IllegalArgumentException("demo: --slow (the slow node's CPU fraction) must be in (0, 1]: " + v);
          }
          break;
        default:
          throw new IllegalArgumentException("demo: unknown option " + key
              + " (OUT_DIR [--bed cluster|embedded] [--reps N] [--policies P,Q] [--slow FRACTION])");
      }
    }
    return o;
  }

  /** One run: its policy, repetition, where it ran and what it measured. */
  static final class Run {
    final String policy;
    final int rep;
    final String bed;
    final String injector;
    final String slowNode;
    final RunResult result;

    Run(String policy, int rep, String bed, String injector, String slowNode, RunResult result) {
      this.policy = policy;
      this.rep = rep;
      this.bed = bed;
      this.injector = injector;
      this.slowNode = slowNode;
      this.result = result;
    }
  }

  /** The order of the policies in repetition {@code rep}: rotated by one each time, so none always goes first. */
  static List<String> order(List<String> policies, int rep) {
    List<String> all = new ArrayList<>(List.of("stock"));
    all.addAll(policies);
    List<String> out = new ArrayList<>();
    for (int k = 0; k < all.size(); k++) {
      out.add(all.get((k + rep - 1) % all.size()));
    }
    return out;
  }

  private static List<Run> onCluster(Options o) throws Exception {
    File repo = new File(".").getCanonicalFile();
    File jar = reinJar(repo);
    List<Run> runs = new ArrayList<>();
    log("starting the cluster: " + NODES + " nodes x " + SLOTS + " containers (scripts/cluster.sh up; about a minute)");
    try (ClusterBed bed = ClusterBed.up(repo, NODES, SLOTS, new File(o.out, "cluster.log"))) {
      Runtime.getRuntime().addShutdownHook(new Thread(bed::close));
      log("cluster up in " + bed.upSeconds() + " s; injector " + bed.injector() + "; installing " + jar.getName()
          + " as the README says (copied into share/hadoop/mapreduce/lib, speculator key in mapred-site.xml)");
      bed.installRein(jar, "lib");
      Configuration conf = bed.conf();
      WordCountWorkload wc = new WordCountWorkload(conf, new Path("/demo/input"), MAPS, BYTES_PER_MAP, 42);
      for (int rep = 1; rep <= o.reps; rep++) {
        for (String policy : order(o.policies, rep)) {
          runs.add(clusterRun(bed, conf, wc, o, policy, rep));
        }
      }
    }
    return runs;
  }

  private static Run clusterRun(ClusterBed bed, Configuration conf, WordCountWorkload wc, Options o, String policy,
      int rep) throws Exception {
    File dir = new File(o.out, policy + "-r" + rep);
    dir.mkdirs();
    String output = "/demo/output-" + policy + "-r" + rep;
    List<String> args = new ArrayList<>(List.of("examples", "wordcount",
        "-Dmapreduce.job.name=demo wordcount " + policy + " rep " + rep,
        // one map per input file
        "-Dmapreduce.input.fileinputformat.split.minsize=1099511627776"));
    args.addAll(Policies.cliArgs(policy));
    args.addAll(List.of("/demo/input", output));
    log("rep " + rep + ": " + policy + " ... (client: cluster.sh run " + String.join(" ", args) + ")");
    long t0 = System.nanoTime();
    Process client = bed.start(args, new File(dir, "client.log"));
    int slowNode = -1;
    try {
      String jobId = ClusterBed.awaitJobId(client, new File(dir, "client.log"), 120);
      // The slow node: the first of nodes 2, 3, … that is not running the job's AM (a slow AM
      // would slow every policy's decisions alike and hide what the policies do).
      int am = bed.awaitAmNode(jobId, 120);
      slowNode = am == 2 ? 3 : 2;
      bed.slow(slowNode, o.slow);
      if (!client.waitFor(900, java.util.concurrent.TimeUnit.SECONDS)) {
        client.destroyForcibly();
        throw new java.util.concurrent.TimeoutException(jobId + " ran over 900 s");
      }
      bed.slow(slowNode, 1);
      boolean ok = client.exitValue() == 0 && wc.verify(conf, new Path(output));
      Path hist = bed.fetchHistory(jobId, new File(dir, jobId + ".jhist"));
      bed.keepAmLog(jobId, new File(dir, "am-syslog"));
      bed.fetchDecisionLog(jobId, new File(dir, "decisions.jsonl"));
      RunResult r = RunResult.fromHistory(policy, "wordcount", conf, hist, ok);
      log(String.format(Locale.ROOT, "  %s rep %d: %.1f s (client %.1f s), copies %d (won %d), wasted %.1f container-s,"
              + " output %s; AM on node %d, node %d slowed", policy, rep, r.jobSeconds,
          (System.nanoTime() - t0) / 1e9, r.speculativeLaunched, r.speculativeWon, r.wastedContainerSeconds,
          ok ? "verified" : "WRONG", am, slowNode));
      new Path(output).getFileSystem(conf).delete(new Path(output), true);
      return new Run(policy, rep, "cluster", bed.injector(), ClusterBed.host(slowNode), r);
    } finally {
      if (client.isAlive()) {
        client.destroyForcibly();
      }
      if (slowNode > 0) {
        bed.slow(slowNode, 1);
      }
    }
  }

  /** The rein-yarn jar a user installs, as built by Maven. */
  static File reinJar(File repo) {
    File[] jars = new File(repo, "java/target").listFiles((d, n) -> n.matches("rein-yarn-[0-9.]+(-SNAPSHOT)?\\.jar"));
    if (jars == null || jars.length == 0) {
      throw new IllegalStateException("no rein-yarn jar under java/target: build it with mvn -B install -DskipTests");
    }
    return jars[0];
  }

  private static List<Run> onEmbedded(Options o) throws Exception {
    List<Run> runs = new ArrayList<>();
    try (ReinCluster cluster = new ReinCluster("rein-demo", NODES, SLOTS)) {
      Configuration base = Bench.baseConf(cluster);
      double factor = 1 / o.slow;
      log("embedded cluster up: NodeManagers " + cluster.nodeIds() + "; NM 1 (" + cluster.nodeId(1) + ") slowed "
          + String.format(Locale.ROOT, "%.1f", factor) + "x by SIGSTOP duty cycles");
      Path input = new Path(new File(o.out, "input").getAbsolutePath());
      WordCountWorkload wc = new WordCountWorkload(base, input, MAPS, BYTES_PER_MAP, 42);
      try (StragglerInjector slow = new StragglerInjector(Map.of(1, factor), 500)) {
        for (int rep = 1; rep <= o.reps; rep++) {
          for (String policy : order(o.policies, rep)) {
            log("rep " + rep + ": " + policy + " ...");
            Path output = new Path(new File(o.out, "output-" + policy).getAbsolutePath());
            RunResult r = Runs.wordCount(Policies.apply(base, policy), wc, output, policy);
            File dir = new File(o.out, policy + "-r" + rep);
            dir.mkdirs();
            Files.copy(new File(r.history.toUri().getPath()).toPath(), new File(dir, r.jobId + ".jhist").toPath(),
                StandardCopyOption.REPLACE_EXISTING);
            try {
              Files.copy(cluster.amLog(r.jobId), new File(dir, "am-syslog").toPath(),
                  StandardCopyOption.REPLACE_EXISTING);
            } catch (java.io.IOException e) {
              log("  (no AM log kept: " + e.getMessage() + ")");
            }
            log(String.format(Locale.ROOT, "  %s rep %d: %.1f s, copies %d (won %d), output %s", policy, rep,
                r.jobSeconds, r.speculativeLaunched, r.speculativeWon, r.outputOk ? "verified" : "WRONG"));
            runs.add(new Run(policy, rep, "embedded", "sigstop", cluster.nodeId(1), r));
          }
        }
      }
    }
    return runs;
  }

  /** Per policy: median job time (min–max), copies, waste, and the speed-up over stock per repetition. */
  static String table(List<Run> runs, List<String> policies) {
    StringBuilder t = new StringBuilder();
    t.append(String.format(Locale.ROOT, "%-8s %-5s %-24s %-14s %-14s %-18s %-22s %s%n", "policy", "runs",
        "job_seconds med (min-max)", "copies (won)", "wasted cont-s", "container-s", "speedup_vs_stock", "outputs"));
    List<String> rows = new ArrayList<>(List.of("stock"));
    rows.addAll(policies);
    for (String p : rows) {
      List<Run> mine = runs.stream().filter(r -> r.policy.equals(p)).collect(Collectors.toList());
      if (mine.isEmpty()) {
        continue;
      }
      List<Double> speedups = new ArrayList<>();
      for (Run r : mine) {
        runs.stream().filter(s -> s.policy.equals("stock") && s.rep == r.rep).findFirst()
            .ifPresent(s -> speedups.add(s.result.jobSeconds / r.result.jobSeconds));
      }
      t.append(String.format(Locale.ROOT, "%-8s %-5d %-24s %-14s %-14s %-18s %-22s %d/%d verified%n", p, mine.size(),
          BenchReport.spread(mine.stream().map(r -> r.result.jobSeconds).collect(Collectors.toList()), "%.1f"),
          String.format(Locale.ROOT, "%d (%d)", mine.stream().mapToInt(r -> r.result.speculativeLaunched).sum(),
              mine.stream().mapToInt(r -> r.result.speculativeWon).sum()),
          BenchReport.spread(mine.stream().map(r -> r.result.wastedContainerSeconds).collect(Collectors.toList()), "%.0f"),
          BenchReport.spread(mine.stream().map(r -> r.result.containerSeconds).collect(Collectors.toList()), "%.0f"),
          BenchReport.spread(speedups, "%.2f"),
          mine.stream().filter(r -> r.result.outputOk && r.result.succeeded).count(), mine.size()));
    }
    t.append("copies (won): summed over the runs; the rest: median (min-max) over the runs; speedup_vs_stock is "
        + "stock's job time over the policy's in the same repetition.");
    return t.toString();
  }

  private static void log(String msg) {
    System.err.println("[demo] " + msg);
  }
}
