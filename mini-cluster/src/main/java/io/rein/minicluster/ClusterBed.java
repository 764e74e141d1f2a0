package io.rein.minicluster;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.v2.jobhistory.JobHistoryUtils;

/**
 * The multi-process cluster bed of {@code scripts/cluster.sh}, driven from Java: separate
 * NameNode, ResourceManager, JobHistoryServer, and per node a DataNode and a NodeManager on the
 * node's own loopback address and in its own CPU cgroup. Jobs are submitted by the script's
 * client ({@code cluster.sh run examples …}, what {@code yarn jar hadoop-mapreduce-examples.jar}
 * runs) in a child process; their results are read back from the job-history files on HDFS.
 */
public final class ClusterBed implements AutoCloseable {
  private static final Pattern JOB_ID = Pattern.compile("Running job: (job_\\d+_\\d+)");
  private static final Pattern AM_HOST = Pattern.compile("\"amHostHttpAddress\"\\s*:\\s*\"127\\.0\\.1\\.(\\d+):");

  private final File repo;
  private final File dir;
  private final File log;
  private final Map<String, String> state = new TreeMap<>();
  private final Configuration conf;
  /** Client processes started and maybe still running: stopped on close. */
  private final List<Process> clients = new ArrayList<>();
  private boolean closed;

  private ClusterBed(File repo, File log) throws IOException {
    this.repo = repo;
    this.dir = new File(repo, "target/cluster");
    this.log = log;
    for (String line : Files.readAllLines(new File(dir, "state.env").toPath(), StandardCharsets.UTF_8)) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        state.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    conf = new Configuration();
    for (String site : new String[] {"core-site.xml", "hdfs-site.xml", "yarn-site.xml", "mapred-site.xml"}) {
      conf.addResource(new Path(new File(dir, "etc/hadoop/" + site).getAbsolutePath()));
    }
  }

  /** True where the cgroup v1 CPU controller is writable, so that a node can be a machine. */
  public static boolean cgroupsUsable() {
    File probe = new File("/sys/fs/cgroup/cpu/rein-probe-" + ProcessHandle.current().pid());
    boolean ok = probe.mkdir() && new File(probe, "cpu.cfs_quota_us").canWrite();
    probe.delete();
    return ok;
  }

  /**
   * Starts the cluster ({@code cluster.sh up}), waiting until every NodeManager runs and HDFS has
   * left safe mode. Everything the script prints goes to {@code log}.
   */
  public static ClusterBed up(File repo, int nodes, int slots, File log) throws IOException, InterruptedException {
    script(repo, log, 600, "up", "--nodes", String.valueOf(nodes), "--slots", String.valueOf(slots));
    return new ClusterBed(repo, log);
  }

  /** The client configuration of the running cluster (HDFS, YARN and history server addresses). */
  public Configuration conf() {
    return new Configuration(conf);
  }

  public int nodes() {
    return Integer.parseInt(state.get("NODES"));
  }

  /** {@code cgroup} where each node has its own CPU quota, else {@code sigstop}. */
  public String injector() {
    return state.getOrDefault("INJECTOR", "sigstop");
  }

  /** Seconds {@code cluster.sh up} took to bring the cluster up. */
  public int upSeconds() {
    return Integer.parseInt(state.getOrDefault("UP_SECONDS", "-1"));
  }

  /** The loopback address of node {@code n} (1-based): YARN's and HDFS's host name for it. */
  public static String host(int n) {
    return "127.0.1." + n;
  }

  /** Installs rein as the README tells a user ({@code lib}: into share/hadoop/mapreduce/lib). */
  public void installRein(File jar, String route) throws IOException, InterruptedException {
    script(repo, log, 60, "install-rein", jar.getAbsolutePath(), "--route", route);
  }

  public void uninstallRein() throws IOException, InterruptedException {
    script(repo, log, 60, "uninstall-rein");
  }

  /** Node {@code n} gets {@code fraction} of its CPU share (1 restores it). */
  public void slow(int n, double fraction) throws IOException, InterruptedException {
    script(repo, log, 60, "slow", String.valueOf(n), String.valueOf(fraction));
  }

  /** Kills node {@code n}'s DataNode, NodeManager and containers, as a machine failing. */
  public void killNode(int n) throws IOException, InterruptedException {
    script(repo, log, 60, "kill-node", String.valueOf(n));
  }

  /** The client command {@code cluster.sh run ARGS…} as a child process writing to {@code out}. */
  public Process start(List<String> args, File out) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("bash", new File(repo, "scripts/cluster.sh").getPath(), "run"));
    cmd.addAll(args);
    out.getParentFile().mkdirs();
    Process p = new ProcessBuilder(cmd).directory(repo).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.to(out)).start();
    synchronized (clients) {
      clients.removeIf(c -> !c.isAlive());
      clients.add(p);
    }
    return p;
  }

  /** Runs a client command to its end; fails with the tail of its output when it exits non-zero. */
  public void run(List<String> args, File out, long timeoutSeconds) throws IOException, InterruptedException {
    Process p = start(args, out);
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("cluster.sh run " + args + " ran over " + timeoutSeconds + " s; output: " + out);
    }
    if (p.exitValue() != 0) {
      throw new IOException("cluster.sh run " + args + " exited " + p.exitValue() + ":\n" + tail(out, 15));
    }
  }

  /** The id of the job a client process submitted, once it has printed it. */
  public static String awaitJobId(Process p, File out, long timeoutSeconds) throws IOException, InterruptedException,
      TimeoutException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (System.nanoTime() < deadline) {
      List<String> jobs = jobIds(out);
      if (!jobs.isEmpty()) {
        return jobs.get(0);
      }
      if (!p.isAlive()) {
        throw new IOException("the client exited " + p.exitValue() + " before submitting a job:\n" + tail(out, 15));
      }
      Thread.sleep(100);
    }
    throw new TimeoutException("no job submitted within " + timeoutSeconds + " s; see " + out);
  }

  /** Every job id the client printed, in order. */
  public static List<String> jobIds(File out) throws IOException {
    List<String> ids = new ArrayList<>();
    for (String line : Files.readAllLines(out.toPath(), StandardCharsets.UTF_8)) {
      Matcher m = JOB_ID.matcher(line);
      if (m.find()) {
        ids.add(m.group(1));
      }
    }
    return ids;
  }

  /** The node (1-based) running a job's ApplicationMaster, once YARN has placed it; -1 before. */
  public int amNode(String jobId) throws IOException {
    String app = jobId.replace("job_", "application_");
    String body = http("http://127.0.0.1:" + conf.get("yarn.resourcemanager.webapp.address").replaceAll(".*:", "")
        + "/ws/v1/cluster/apps/" + app);
    Matcher m = AM_HOST.matcher(body);
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  /** Waits until a job's AM has a node; returns it. */
  public int awaitAmNode(String jobId, long timeoutSeconds) throws IOException, InterruptedException,
      TimeoutException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (System.nanoTime() < deadline) {
      int n = amNode(jobId);
      if (n > 0) {
        return n;
      }
      Thread.sleep(100);
    }
    throw new TimeoutException("the AM of " + jobId + " was not placed within " + timeoutSeconds + " s");
  }

  /**
   * Copies a finished job's history file from HDFS (the AM's intermediate done directory, or the
   * history server's done directory once it has moved it) to {@code to}; waits up to a minute.
   */
  public Path fetchHistory(String jobId, File to) throws IOException, InterruptedException {
    Path intermediate = new Path(JobHistoryUtils.getConfiguredHistoryIntermediateDoneDirPrefix(conf));
    Path done = new Path(JobHistoryUtils.getConfiguredHistoryServerDoneDirPrefix(conf));
    FileSystem fs = intermediate.getFileSystem(conf);
    String name = jobId + "-*.jhist";
    for (int i = 0; i < 600; i++) {
      for (Path glob : new Path[] {new Path(intermediate, "*/" + name), new Path(done, "*/*/*/*/" + name)}) {
        FileStatus[] found = fs.globStatus(glob);
        if (found != null && found.length > 0) {
          try {
            to.getParentFile().mkdirs();
            fs.copyToLocalFile(false, found[0].getPath(), new Path(to.getAbsolutePath()), true);
            return new Path(to.getAbsoluteFile().toURI());
          } catch (java.io.FileNotFoundException movedMeanwhile) {
            // the history server moved it between the listing and the copy: look again
          }
        }
      }
      Thread.sleep(100);
    }
    throw new IOException("no history file for " + jobId + " under " + intermediate + " or " + done);
  }

  /**
   * Copies rein's decision log of a job ({@code JOBID.rein-decisions.jsonl}, which the AM writes
   * beside the job history in the intermediate done directory) to {@code to}; false when the job
   * has none (stock or no speculation).
   */
  public boolean fetchDecisionLog(String jobId, File to) throws IOException {
    Path intermediate = new Path(JobHistoryUtils.getConfiguredHistoryIntermediateDoneDirPrefix(conf));
    FileSystem fs = intermediate.getFileSystem(conf);
    FileStatus[] found = fs.globStatus(new Path(intermediate, "*/" + jobId + ".rein-decisions.jsonl"));
    if (found == null || found.length == 0) {
      return false;
    }
    to.getParentFile().mkdirs();
    fs.copyToLocalFile(false, found[0].getPath(), new Path(to.getAbsolutePath()), true);
    return true;
  }

  /** The syslog of a job's first ApplicationMaster attempt, where rein logs its decisions. */
  public File amLog(String jobId) throws IOException {
    String app = jobId.replace("job_", "application_");
    try (Stream<java.nio.file.Path> files = Files.walk(new File(dir, "nodes").toPath())) {
      return files.filter(p -> p.getFileName().toString().equals("syslog"))
          .filter(p -> p.getParent().getFileName().toString().endsWith("_01_000001"))
          .filter(p -> p.getParent().getParent().getFileName().toString().equals(app))
          .findFirst()
          .map(java.nio.file.Path::toFile)
          .orElseThrow(() -> new java.io.FileNotFoundException("no AM log of " + jobId + " under " + dir));
    }
  }

  /** Copies a job's AM syslog to {@code to}, if there is one. */
  public void keepAmLog(String jobId, File to) {
    try {
      to.getParentFile().mkdirs();
      Files.copy(amLog(jobId).toPath(), to.toPath(), StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      to.delete();
    }
  }

  /** Stops every process of the cluster ({@code cluster.sh down}); safe to call twice. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    synchronized (clients) {
      for (Process c : clients) {
        c.descendants().forEach(ProcessHandle::destroyForcibly);
        c.destroyForcibly();
      }
    }
    try {
      script(repo, log, 180, "down");
    } catch (IOException | InterruptedException e) {
      System.err.println("[cluster] WARNING: cluster.sh down failed: " + e.getMessage());
    }
  }

  /** Runs {@code cluster.sh ARGS…}, appending its output to {@code log} and echoing its progress lines. */
  static void script(File repo, File log, long timeoutSeconds, String... args) throws IOException,
      InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("bash", new File(repo, "scripts/cluster.sh").getPath()));
    cmd.addAll(List.of(args));
    log.getParentFile().mkdirs();
    long from = log.length();
    Process p = new ProcessBuilder(cmd).directory(repo).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
    boolean ended = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly();
    }
    List<String> lines = newLines(log, from);
    lines.stream().filter(l -> l.startsWith("[cluster]")).forEach(System.err::println);
    if (!ended || p.exitValue() != 0) {
      throw new IOException("cluster.sh " + String.join(" ", args) + (ended ? " exited " + p.exitValue()
          : " ran over " + timeoutSeconds + " s") + "; its output (" + log + "):\n"
          + lines.stream().skip(Math.max(0, lines.size() - 25)).collect(Collectors.joining("\n")));
    }
  }

  private static List<String> newLines(File log, long from) throws IOException {
    byte[] all = Files.readAllBytes(log.toPath());
    String text = new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from),
        StandardCharsets.UTF_8);
    return text.isEmpty() ? List.of() : List.of(text.split("\n"));
  }

  static String tail(File f, int n) throws IOException {
    List<String> lines = Files.readAllLines(f.toPath(), StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
  }

  private static String http(String url) throws IOException {
    HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
    c.setConnectTimeout(5000);
    c.setReadTimeout(5000);
    c.setRequestProperty("Accept", "application/json");
    try (InputStream in = c.getResponseCode() == 200 ? c.getInputStream() : null) {
      return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      c.disconnect();
    }
  }
}
