package io.rein.minicluster;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;

/**
 * The A/B benchmark: Hadoop's Sort, Grep, WordCount and a node-factor sleep job on an embedded
 * YARN cluster, under no speculation, Hadoop's stock speculator (two estimators) and each rein
 * policy, interleaved repetition by repetition, in the straggler scenarios of EVALUATION.md.
 * Every run's output is checked against the {@code none} run; the report under the output
 * directory is rewritten after each run. See {@link #usage()} and {@code scripts/bench.sh}.
 */
public final class Bench {
  static final List<String> ALL_POLICIES = List.of("none", "stock", "stock-exp", "auto", "late", "mantri", "dolly", "sca",
      "ese");
  static final List<String> REIN_POLICIES = List.of("auto", "late", "mantri", "dolly", "sca", "ese", "hadoop", "mapreduce",
      "dryad");

  /** What to run; see {@link #usage()}. */
  static final class Options {
    List<BenchScenario> scenarios = Arrays.asList(BenchScenario.values());
    List<String> jobs;
    List<String> policies = ALL_POLICIES;
    int reps = 3;
    int nodes = 4;
    int slots = 2;
    long timeoutSeconds = 900;
    File out = new File("target/bench");
    final BenchJob.Sizes sizes = new BenchJob.Sizes();
    String profile = "full";
    /** {@code cluster}: scripts/cluster.sh's multi-process bed (default where cgroups work); {@code embedded}. */
    String bed = ClusterBed.cgroupsUsable() ? "cluster" : "embedded";
    String bedWhy = ClusterBed.cgroupsUsable() ? "cgroups are writable"
        : "the cgroup v1 CPU controller is not writable here, so nodes cannot have CPU budgets";
  }

  private final Options o;
  private final List<BenchRecord> records = new ArrayList<>();
  private final Map<String, String> references = new HashMap<>();
  /** Reference key → the scenario whose none run gave it. */
  private final Map<String, String> referenceOwners = new HashMap<>();
  private final Map<String, Path> inputs = new HashMap<>();
  private ReinCluster shared;
  /** False when the embedded cluster was handed in: whoever started it stops it. */
  private final boolean ownsShared;
  private ClusterBed bed;
  private BenchReport report;
  private long startNanos;
  private int done;
  private int total;

  Bench(Options o) {
    this.o = o;
    this.ownsShared = true;
  }

  /** Runs the embedded bed's jobs on {@code cluster}, already running, and leaves it running. */
  Bench(Options o, ReinCluster cluster) {
    this.o = o;
    this.shared = cluster;
    this.ownsShared = false;
    o.nodes = cluster.nodeManagers();
  }

  public static void main(String[] args) throws Exception {
    Options o;
    try {
      o = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("bench: " + e.getMessage());
      System.err.println(usage());
      System.exit(2);
      return;
    }
    int failed = new Bench(o).run();
    System.exit(failed == 0 ? 0 : 1);
  }

  static String usage() {
    return String.join("\n",
        "usage: scripts/bench.sh [--quick | --smoke] [--bed cluster|embedded] [--scenario LIST] [--jobs LIST]",
        "                        [--policies LIST] [--reps N] [--nodes N] [--slots N] [--maps N] [--timeout-s N]",
        "                        [--out DIR]",
        "  --bed       cluster: the multi-process cluster of scripts/cluster.sh, each node in its own CPU",
        "              cgroup, rein installed as the README says, jobs submitted with the examples jar's",
        "              command line (default where cgroups are writable; sleep runs on embedded only);",
        "              embedded: a MiniMRYarnCluster, slow nodes by SIGSTOP duty cycles",
        "  --scenario  comma-separated, from: " + BenchScenario.ids() + " (default: all)",
        "  --jobs      comma-separated, from: sort, grep, wordcount, sleep (default: each scenario's own)",
        "  --policies  none, stock, stock-exp and rein's " + String.join(", ", REIN_POLICIES),
        "              (default: " + String.join(",", ALL_POLICIES) + "; none is always run: it is the reference",
        "              for output checks); NAME+KEY=VALUE[+KEY=VALUE] runs a policy with job settings on",
        "              top, beside the plain one (e.g. auto,auto+rein.veto.max-per-task=0)",
        "  --reps      repetitions; policies run interleaved within each (default 3)",
        "  --quick     healthy, slow-node, skew, small-jobs; 7 maps; none,stock,auto,late,mantri,dolly,sca,ese",
        "              (none in slow-node only where it gives the reference output); 3 reps. cluster:",
        "              wordcount (93 runs, 1 h 50 min on an idle 2-core machine; --scenario healthy,slow-node",
        "              alone about 28 min); embedded: sleep on healthy and small-jobs, sleep and wordcount",
        "              on slow-node, wordcount on skew",
        "  --smoke     one sleep job of 4 maps on slow-node under none and late, 1 rep (for CI)",
        "  --nodes/--slots  NodeManagers and task slots per NM (default 4 x 2)",
        "  --maps      maps per job (default 12); --timeout-s: per job (default 900)",
        "  --skew-text-mb  MB of text per even map in skew, whose big map has 4x (default: as the",
        "              other scenarios; --quick on the cluster bed: 3)",
        "  --out       report directory (default target/bench)");
  }

  static Options parse(String[] args) {
    Options o = new Options();
    List<String> explicitScenarios = null;
    List<String> explicitPolicies = null;
    Integer explicitReps = null;
    Integer explicitMaps = null;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--quick":
          o.profile = "quick";
          break;
        case "--smoke":
          o.profile = "smoke";
          break;
        case "--help":
        case "-h":
          System.out.println(usage());
          System.exit(0);
          break;
        default:
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException("unknown option or missing value: " + a);
          }
          String v = args[++i];
          switch (a) {
            case "--scenario":
              explicitScenarios = list(v);
              break;
            case "--jobs":
              o.jobs = list(v);
              o.jobs.forEach(j -> BenchJob.named(j, o.sizes));
              break;
            case "--policies":
              explicitPolicies = list(v);
              break;
            case "--reps":
              explicitReps = positive(a, v);
              break;
            case "--nodes":
              o.nodes = positive(a, v);
              break;
            case "--slots":
              o.slots = positive(a, v);
              break;
            case "--maps":
              explicitMaps = positive(a, v);
              break;
            case "--skew-text-mb":
              o.sizes.skewTextBytesPerMap = (long) positive(a, v) << 20;
              break;
            case "--timeout-s":
              o.timeoutSeconds = positive(a, v);
              break;
            case "--out":
              o.out = new File(v);
              break;
            case "--bed":
              if (!v.equals("cluster") && !v.equals("embedded")) {
                throw new IllegalArgumentException("--bed must be cluster or embedded: '" + v + "'");
              }
              o.bed = v;
              o.bedWhy = "asked for";
              break;
            default:
              throw new IllegalArgumentException("unknown option: " + a);
          }
      }
    }
    if (o.profile.equals("quick")) {
      // The four scenarios of the A/B's targets, every rein policy beside stock and none.
      o.scenarios = List.of(BenchScenario.HEALTHY, BenchScenario.SLOW_NODE, BenchScenario.SKEW,
          BenchScenario.SMALL_JOBS);
      o.policies = List.of("none", "stock", "auto", "late", "mantri", "dolly", "sca", "ese");
      o.reps = 3;
      // One wave: the default 4 NMs x 2 slots, less the AM's.
      o.sizes.maps = 7;
      // On the cluster bed a node has half a core: 1 MB of text per map keeps a run near a minute.
      o.sizes.textBytesPerMap = o.bed.equals("cluster") ? 1L << 20 : 2L << 20;
      // Skew's big map must run long past its siblings for a blind speculator to copy it: 4 x 3 MB.
      if (o.sizes.skewTextBytesPerMap == 0 && o.bed.equals("cluster")) {
        o.sizes.skewTextBytesPerMap = 3L << 20;
      }
      o.sizes.sleepMapMs = 4_000;
      o.sizes.sleepReduceMs = 2_000;
    } else if (o.profile.equals("smoke")) {
      o.scenarios = List.of(BenchScenario.SLOW_NODE);
      o.jobs = List.of("sleep");
      o.policies = List.of("none", "late");
      o.reps = 1;
      o.sizes.maps = 4;
      o.sizes.reduces = 1;
      o.sizes.sleepMapMs = 2_000;
      o.sizes.sleepReduceMs = 1_000;
    }
    if (explicitScenarios != null) {
      o.scenarios = explicitScenarios.stream().map(BenchScenario::named).collect(Collectors.toList());
    }
    if (explicitPolicies != null) {
      for (String p : explicitPolicies) {
        String name = Policies.baseName(p);
        if (!name.equals("none") && !name.equals("stock") && !name.equals("stock-exp") && !REIN_POLICIES.contains(name)) {
          throw new IllegalArgumentException("unknown policy '" + name + "'; known: none, stock, stock-exp, "
              + String.join(", ", REIN_POLICIES));
        }
        if (name.equals("none") && !p.equals("none")) {
          throw new IllegalArgumentException("policy 'none' is the reference run and takes no settings: " + p);
        }
        Policies.settings(p); // throws on a setting that is not KEY=VALUE
      }
      o.policies = explicitPolicies;
    }
    if (explicitReps != null) {
      o.reps = explicitReps;
    }
    if (explicitMaps != null) {
      o.sizes.maps = explicitMaps;
    }
    List<String> ps = new ArrayList<>(o.policies);
    ps.remove("none");
    ps.add(0, "none");
    o.policies = List.copyOf(ps);
    if (o.nodes < 3) {
      throw new IllegalArgumentException("--nodes must be at least 3 (one to slow, one to lose, one healthy): " + o.nodes);
    }
    for (BenchScenario s : o.scenarios) {
      if (jobsOf(o, s).isEmpty()) {
        throw new IllegalArgumentException("scenario " + s.id + " runs none of the jobs asked for (" + o.jobs
            + "): the sleep job has no input to skew and a fixed slowdown per node, so it cannot run in skew "
            + "or transient, nor on the cluster bed (its nodes are slowed by CPU; use --bed embedded)");
      }
      if (s.skewed() && o.sizes.maps < 5) {
        throw new IllegalArgumentException("scenario skew needs --maps of at least 5: " + o.sizes.maps);
      }
    }
    return o;
  }

  private static List<String> list(String v) {
    return new ArrayList<>(Arrays.asList(v.split("\\s*,\\s*")));
  }

  private static int positive(String key, String v) {
    try {
      int n = Integer.parseInt(v);
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // falls through to the error below
    }
    throw new IllegalArgumentException(key + " must be a whole number >= 1: '" + v + "'");
  }

  static List<String> jobsOf(Options o, BenchScenario s) {
    List<String> jobs;
    if (o.jobs == null && o.profile.equals("quick")) {
      jobs = o.bed.equals("cluster") || s == BenchScenario.SKEW ? List.of("wordcount")
          : s == BenchScenario.HEALTHY || s == BenchScenario.SMALL_JOBS ? List.of("sleep")
          : List.of("sleep", "wordcount");
    } else if (o.jobs == null) {
      jobs = s.defaultJobs;
    } else {
      jobs = o.jobs.stream().filter(j -> !(j.equals("sleep") && (s.transientSlowdown() || s.skewed()))).collect(Collectors.toList());
    }
    // The sleep job's slowdown is a per-node sleep factor fixed at submission, not CPU; on the cgroup bed
    // the slow node is chosen after the AM is placed, and jobs go through the examples jar's command line.
    return o.bed.equals("cluster") ? jobs.stream().filter(j -> !j.equals("sleep")).collect(Collectors.toList()) : jobs;
  }

  /**
   * The output every policy's run must match: none's on the same input. Scenarios without skew
   * share their input (and so their reference); a skewed input is a different one.
   */
  private static String referenceKey(BenchScenario s, String jobName, int maps) {
    return (s.skewed() ? "skew" : "even") + "/" + jobName + "/" + maps;
  }

  /**
   * The quick profile runs none only in the scenario whose none run gives the reference output:
   * after the healthy scenario, none on a slow node (three times the others' run time) would only
   * re-check it.
   */
  private boolean skipsNone(BenchScenario s, BenchJob job) {
    String owner = referenceOwners.get(referenceKey(s, job.name, o.sizes.maps));
    return quickSkipsNone(s) && owner != null && !owner.equals(s.id);
  }

  private boolean quickSkipsNone(BenchScenario s) {
    return o.profile.equals("quick") && !s.smallJobs();
  }

  /** Runs everything; returns how many runs failed or gave wrong output. */
  int run() throws Exception {
    o.out.mkdirs();
    new File(o.out, "jhist").mkdirs();
    for (String stale : new String[] {"results.json", "summary.md", "job_seconds.svg",
        "wasted_container_seconds.svg"}) {
      Files.deleteIfExists(new File(o.out, stale).toPath());
    }
    Set<String> referenced = new HashSet<>();
    for (BenchScenario s : o.scenarios) {
      for (String jobName : jobsOf(o, s)) {
        String key = referenceKey(s, jobName, o.sizes.maps);
        boolean none = o.policies.contains("none") && !(quickSkipsNone(s) && referenced.contains(key));
        total += o.reps * (o.policies.size() - (o.policies.contains("none") && !none ? 1 : 0));
        referenced.add(key);
      }
    }
    report = new BenchReport(o.out.toPath(), header(), o.policies);
    Runtime.getRuntime().addShutdownHook(new Thread(this::closeShared));
    Runtime.getRuntime().addShutdownHook(new Thread(this::closeBed));
    startNanos = System.nanoTime();
    log(String.format(Locale.ROOT, "%d runs: scenarios %s; policies %s; %d reps; %d NMs x %d slots; report in %s",
        total, o.scenarios.stream().map(s -> s.id).collect(Collectors.toList()), o.policies, o.reps, o.nodes, o.slots, o.out));
    log("bed: " + o.bed + " (" + o.bedWhy + ")");
    for (BenchScenario s : o.scenarios) {
      log("scenario " + s.id + ": " + s.description);
      for (String jobName : jobsOf(o, s)) {
        BenchJob job = BenchJob.named(jobName, o.sizes);
        for (int rep = 1; rep <= o.reps; rep++) {
          // Interleaved: every policy once per repetition, each repetition starting one later, so
          // that no policy always runs first on a freshly warmed cluster.
          for (int k = 0; k < o.policies.size(); k++) {
            // none comes first in the first, so every later run has its reference output.
            String policy = o.policies.get((k + rep - 1) % o.policies.size());
            if (skipsNone(s, job) && policy.equals("none")) {
              continue;
            }
            runOnce(s, job, policy, rep);
          }
        }
      }
    }
    closeShared();
    closeBed();
    long bad = records.stream().filter(r -> !r.outputOk).count();
    log(String.format(Locale.ROOT, "done: %d runs in %s, %d failed or wrong; summary: %s", records.size(),
        minutes(System.nanoTime() - startNanos), bad, new File(o.out, "summary.md")));
    return (int) bad;
  }

  private void runOnce(BenchScenario s, BenchJob job, String policy, int rep) throws Exception {
    BenchRecord rec = new BenchRecord(s.id, job.name, policy, rep);
    int[] mapsPerJob = s.smallJobs() ? BenchScenario.SMALL_JOB_MAPS : new int[] {o.sizes.maps};
    try {
      for (int maps : mapsPerJob) {
        if (o.bed.equals("cluster")) {
          rec.bed = "cluster";
          rec.injector = bed().injector();
          clusterJob(s, job, policy, rep, maps, rec);
        } else if (s.losesNode()) {
          try (ReinCluster fresh = new ReinCluster("rein-bench-loss", o.nodes, o.slots)) {
            runJob(fresh, s, job, policy, rep, maps, rec);
          }
        } else {
          runJob(shared(), s, job, policy, rep, maps, rec);
        }
      }
    } catch (Exception e) {
      rec.fail(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    records.add(rec);
    done++;
    report.write(records);
    long elapsed = System.nanoTime() - startNanos;
    String outcome = rec.error != null ? "FAILED: " + rec.error : String.format(Locale.ROOT,
        "%.1f s, copies %d (won %d), restarts %d, clones %d, vetoes %d, wasted %.0f container-s, output %s",
        rec.jobSeconds, rec.speculativeLaunched, rec.speculativeWon, rec.restarts, rec.clones, rec.vetoes,
        rec.wastedContainerSeconds, rec.outputOk ? "ok" : "WRONG");
    log(String.format(Locale.ROOT, "[%d/%d] %s %s %s rep %d: %s | %s elapsed, about %s left", done, total, s.id,
        job.name, policy, rep, outcome, minutes(elapsed), minutes(elapsed / done * (total - done))));
  }

  private void runJob(ReinCluster cluster, BenchScenario s, BenchJob job, String policy, int rep, int maps,
      BenchRecord rec) throws Exception {
    Configuration base = baseConf(cluster);
    Path inputsDir = new Path(new File(o.out, "inputs").getAbsolutePath());
    String inputKey = job.name + "/" + maps + "/" + s.skewed();
    Path input = inputs.get(inputKey);
    if (input == null && !job.name.equals("sleep")) {
      log("  generating input for " + job.name + " (" + maps + " maps" + (s.skewed() ? ", skewed" : "")
          + ") with Hadoop's generator, unless already under " + inputsDir);
      input = job.input(Policies.apply(base, "none"), inputsDir, maps, s.skewed());
      inputs.put(inputKey, input);
    }
    Map<Integer, Double> slow = s.slowNodes(cluster.nodeManagers());
    Map<Integer, Double> sleepFactors = new LinkedHashMap<>();
    slow.forEach((nm, f) -> sleepFactors.put(port(cluster.nodeId(nm)), f));
    Path output = new Path(new File(o.out, "output/" + s.id + "-" + job.name).getAbsolutePath());
    Configuration conf = Policies.apply(base, policy);
    output.getFileSystem(conf).delete(output, true);
    Job j = job.job(conf, input, output, maps, sleepFactors);
    j.setJobName(String.format(Locale.ROOT, "%s %s %s rep %d", s.id, job.name, policy, rep));

    boolean cpuSlowdown = !slow.isEmpty() && !job.name.equals("sleep") && !s.transientSlowdown();
    RunResult r;
    try (StragglerInjector injector = cpuSlowdown ? new StragglerInjector(slow, 500) : null) {
      r = submitAndWait(cluster, s, j, policy, job.name);
    }
    String digest = job.digest(conf, output, j);
    String refKey = referenceKey(s, job.name, maps);
    if (policy.equals("none") && r.succeeded) {
      references.putIfAbsent(refKey, digest);
      referenceOwners.putIfAbsent(refKey, s.id);
    }
    String ref = references.get(refKey);
    String jhistName = String.format(Locale.ROOT, "%s-%s-%s-r%d%s.jhist", s.id, job.name, policy, rep,
        s.smallJobs() ? "-m" + maps : "");
    File kept = new File(o.out, "jhist/" + jhistName);
    Files.copy(new File(r.history.toUri().getPath()).toPath(), kept.toPath(), StandardCopyOption.REPLACE_EXISTING);
    rec.add(r, ref != null && ref.equals(digest), "jhist/" + jhistName);
    output.getFileSystem(conf).delete(output, true);
  }

  private RunResult submitAndWait(ReinCluster cluster, BenchScenario s, Job j, String policy, String jobName)
      throws Exception {
    long start = System.nanoTime();
    j.submit();
    Thread window = null;
    if (s.transientSlowdown()) {
      window = new Thread(() -> transientSlowdown(s.slowNodes(cluster.nodeManagers())), "bench-transient");
      window.setDaemon(true);
      window.start();
    }
    boolean lost = !s.losesNode();
    try {
      while (!j.isComplete()) {
        if (!lost && j.mapProgress() >= BenchScenario.LOSS_AT_MAP_PROGRESS) {
          String app = j.getJobID().toString().replace("job_", "application_");
          List<Processes.Proc> ams = Processes.appMasters(app);
          int amNode = ams.isEmpty() ? -1 : ams.get(0).nodeManager();
          int victim = amNode == 1 ? 2 : 1;
          log("  stopping NodeManager " + victim + " (" + cluster.nodeId(victim) + "); the AM is on NM " + amNode);
          cluster.stopNodeManager(victim);
          lost = true;
        }
        if (System.nanoTime() - start > o.timeoutSeconds * 1_000_000_000L) {
          j.killJob();
          throw new java.util.concurrent.TimeoutException("job " + j.getJobID() + " ran over " + o.timeoutSeconds
              + " s and was killed");
        }
        Thread.sleep(250);
      }
    } finally {
      if (window != null) {
        window.interrupt();
        window.join(10_000);
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return RunResult.of(policy, jobName, j, seconds, true);
  }

  /** Slows the scenario's nodes between the transient window's start and end. */
  private static void transientSlowdown(Map<Integer, Double> slow) {
    try {
      Thread.sleep(BenchScenario.TRANSIENT_FROM_MS);
      try (StragglerInjector injector = new StragglerInjector(slow, 500)) {
        Thread.sleep(BenchScenario.TRANSIENT_TO_MS - BenchScenario.TRANSIENT_FROM_MS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The cluster's job settings, with the papers' time constants scaled to jobs of a minute: LATE's
   * minimum run time to 5 s, Mantri's Δ to 5 s and its re-copy wait to 15 s.
   */
  static Configuration baseConf(ReinCluster cluster) {
    Configuration base = cluster.jobConf();
    base.set("rein.late.min-runtime-ms", "5000");
    base.set("rein.mantri.delta-ms", "5000");
    base.set("rein.mantri.recopy-after-ms", "15000");
    return base;
  }

  /** The multi-process cluster bed, started on first use, with rein copied into share/hadoop/mapreduce/lib. */
  private ClusterBed bed() throws Exception {
    if (bed == null) {
      File repo = new File(".").getCanonicalFile();
      log("starting the cluster bed (scripts/cluster.sh up): " + o.nodes + " nodes x " + o.slots + " containers");
      bed = ClusterBed.up(repo, o.nodes, o.slots, new File(o.out, "cluster-bed.log"));
      bed.installRein(Demo.reinJar(repo), "lib");
      log("cluster bed up in " + bed.upSeconds() + " s; injector " + bed.injector());
    }
    return bed;
  }

  private synchronized void closeBed() {
    if (bed != null) {
      bed.close();
      bed = null;
    }
  }

  /**
   * One job on the cluster bed, submitted through the examples jar's command line. Slow nodes are
   * chosen once the job's AM is placed, among the other nodes (a slow AM would slow every policy's
   * decisions alike); the transient window and the node loss are timed as on the embedded bed.
   */
  private void clusterJob(BenchScenario s, BenchJob job, String policy, int rep, int maps, BenchRecord rec)
      throws Exception {
    ClusterBed b = bed();
    Configuration conf = b.conf();
    String inputKey = job.name + "/" + maps + "/" + s.skewed();
    Path input = inputs.get(inputKey);
    if (input == null) {
      log("  generating input for " + job.name + " (" + maps + " maps" + (s.skewed() ? ", skewed" : "")
          + ") with Hadoop's generator on the cluster");
      input = job.input(Policies.apply(conf, "none"), new Path("/bench/inputs"), maps, s.skewed());
      inputs.put(inputKey, input);
    }
    Path output = new Path("/bench/output/" + s.id + "-" + job.name);
    output.getFileSystem(conf).delete(output, true);
    String name = String.format(Locale.ROOT, "%s-%s-%s-r%d%s", s.id, job.name, policy, rep,
        s.smallJobs() ? "-m" + maps : "");
    List<String> args = new ArrayList<>(List.of("examples", job.name));
    args.add(String.format(Locale.ROOT, "-Dmapreduce.job.name=%s %s %s rep %d", s.id, job.name, policy, rep));
    args.add("-Dmapreduce.input.fileinputformat.split.minsize=" + (1L << 40));
    args.addAll(Policies.cliArgs(policy));
    args.addAll(job.cli(input, output));
    File client = new File(o.out, "clients/" + name + ".log");
    Process p = b.start(args, client);
    List<Integer> slowed = new ArrayList<>();
    Thread window = null;
    try {
      String jobId = ClusterBed.awaitJobId(p, client, 300);
      int am = b.awaitAmNode(jobId, 300);
      List<Integer> others = new ArrayList<>();
      for (int n = 2; n <= b.nodes() + 1; n++) {
        int node = (n - 1) % b.nodes() + 1;
        if (node != am) {
          others.add(node);
        }
      }
      Map<Integer, Double> plan = new LinkedHashMap<>();
      int k = 0;
      for (double f : s.slowNodes(b.nodes()).values()) {
        if (k < others.size()) {
          plan.put(others.get(k++), f);
        }
      }
      if (s.transientSlowdown()) {
        window = new Thread(() -> clusterWindow(b, plan, slowed), "bench-transient");
        window.setDaemon(true);
        window.start();
      } else {
        for (Map.Entry<Integer, Double> e : plan.entrySet()) {
          b.slow(e.getKey(), 1 / e.getValue());
          slowed.add(e.getKey());
        }
      }
      boolean lost = !s.losesNode();
      long deadline = System.nanoTime() + o.timeoutSeconds * 1_000_000_000L;
      while (p.isAlive()) {
        if (!lost && mapProgress(client) >= BenchScenario.LOSS_AT_MAP_PROGRESS * 100) {
          int victim = others.get(0);
          log("  killing node " + victim + " (" + ClusterBed.host(victim) + "); the AM is on node " + am);
          b.killNode(victim);
          lost = true;
        }
        if (System.nanoTime() > deadline) {
          b.run(List.of("job", "-kill", jobId), new File(o.out, "clients/" + name + "-kill.log"), 120);
          throw new java.util.concurrent.TimeoutException("job " + jobId + " ran over " + o.timeoutSeconds
              + " s and was killed");
        }
        Thread.sleep(250);
      }
      if (p.exitValue() != 0) {
        throw new java.io.IOException("the client exited " + p.exitValue() + ":\n" + ClusterBed.tail(client, 12));
      }
      Path hist = b.fetchHistory(jobId, new File(o.out, "jhist/" + name + ".jhist"));
      b.keepAmLog(jobId, new File(o.out, "amlogs/" + name + ".syslog"));
      b.fetchDecisionLog(jobId, new File(o.out, "decisions/" + name + ".jsonl"));
      RunResult r = RunResult.fromHistory(policy, job.name, conf, hist, true);
      String digest = job.digest(conf, output, null);
      String refKey = referenceKey(s, job.name, maps);
      if (policy.equals("none") && r.succeeded) {
        references.putIfAbsent(refKey, digest);
        referenceOwners.putIfAbsent(refKey, s.id);
      }
      String ref = references.get(refKey);
      rec.add(r, ref != null && ref.equals(digest), "jhist/" + name + ".jhist");
      output.getFileSystem(conf).delete(output, true);
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
      }
      if (window != null) {
        window.interrupt();
        window.join(10_000);
      }
      synchronized (slowed) {
        for (int n : slowed) {
          b.slow(n, 1);
        }
        slowed.clear();
      }
      if (s.losesNode()) {
        log("  a node was lost: the next run gets a fresh cluster");
        closeBed();
      }
    }
  }

  /** The transient scenario on the cluster bed: the plan's nodes slowed from 10 s to 30 s after submission. */
  private static void clusterWindow(ClusterBed b, Map<Integer, Double> plan, List<Integer> slowed) {
    try {
      Thread.sleep(BenchScenario.TRANSIENT_FROM_MS);
      synchronized (slowed) {
        for (Map.Entry<Integer, Double> e : plan.entrySet()) {
          b.slow(e.getKey(), 1 / e.getValue());
          slowed.add(e.getKey());
        }
      }
      Thread.sleep(BenchScenario.TRANSIENT_TO_MS - BenchScenario.TRANSIENT_FROM_MS);
      synchronized (slowed) {
        for (int n : slowed) {
          b.slow(n, 1);
        }
        slowed.clear();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      log("  WARNING: the transient slowdown failed: " + e.getMessage());
    }
  }

  private static final java.util.regex.Pattern MAP_PROGRESS = java.util.regex.Pattern.compile(" map (\\d+)% reduce");

  /** The latest map progress (percent) the client printed. */
  private static int mapProgress(File client) throws java.io.IOException {
    int last = 0;
    for (String line : Files.readAllLines(client.toPath(), java.nio.charset.StandardCharsets.UTF_8)) {
      java.util.regex.Matcher m = MAP_PROGRESS.matcher(line);
      if (m.find()) {
        last = Integer.parseInt(m.group(1));
      }
    }
    return last;
  }

  private ReinCluster shared() {
    if (shared == null) {
      log("starting the embedded cluster: " + o.nodes + " NodeManagers x " + o.slots + " slots of "
          + ReinCluster.CONTAINER_MB + " MB");
      shared = new ReinCluster("rein-bench", o.nodes, o.slots);
    }
    return shared;
  }

  private synchronized void closeShared() {
    if (shared != null && ownsShared) {
      shared.close();
      shared = null;
    }
  }

  private static int port(String nodeId) {
    return Integer.parseInt(nodeId.substring(nodeId.lastIndexOf(':') + 1));
  }

  private String header() {
    BenchJob.Sizes z = o.sizes;
    return String.join("\n",
        "- profile: " + o.profile + "; started " + Instant.now() + " on " + Runtime.getRuntime().availableProcessors()
            + " cores",
        "- bed: " + (o.bed.equals("cluster")
            ? "cluster (scripts/cluster.sh: separate daemons, " + o.nodes + " nodes x " + o.slots + " containers of "
                + ReinCluster.CONTAINER_MB + " MB, each node its own host and CPU cgroup; injector "
                + (bed != null ? bed.injector() : ClusterBed.cgroupsUsable() ? "cgroup" : "sigstop")
                + "; jobs submitted with the examples jar's command line)"
            : "embedded (MiniMRYarnCluster, " + o.nodes + " NodeManagers x " + o.slots + " containers of "
                + ReinCluster.CONTAINER_MB + " MB; injector sigstop)") + "; " + o.reps
            + " repetition(s), policies interleaved",
        "- jobs: " + z.maps + " maps, " + z.reduces + " reduces; sort " + (z.sortBytesPerMap >> 20)
            + " MB/map (RandomWriter), grep and wordcount " + (z.textBytesPerMap >> 20)
            + (z.skewTextBytesPerMap > 0 ? " (in skew " + (z.skewTextBytesPerMap >> 20) + ")" : "")
            + " MB/map (RandomTextWriter), sleep " + z.sleepMapMs / 1000.0 + " s/map and " + z.sleepReduceMs / 1000.0
            + " s/reduce at 1x",
        "- rein's time constants scaled to minute-long jobs: rein.late.min-runtime-ms=5000, "
            + "rein.mantri.delta-ms=5000, rein.mantri.recopy-after-ms=15000",
        "- scenarios: " + String.join("; ", o.scenarios.stream().map(s -> s.id + " (" + s.description + ")").collect(Collectors.toList())));
  }

  private static String minutes(long nanos) {
    long s = nanos / 1_000_000_000L;
    return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
  }

  static void log(String msg) {
    System.err.println("[bench] " + msg);
  }
}
