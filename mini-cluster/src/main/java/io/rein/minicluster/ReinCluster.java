package io.rein.minicluster;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;

/**
 * An embedded MiniMRYarnCluster sized for a 2-core machine: a few NodeManagers, each with room
 * for a couple of small task containers. Every NM is {@code localhost}, told apart by port.
 */
public final class ReinCluster implements AutoCloseable {
  /** Memory of one task container, and of the AM's. */
  public static final int CONTAINER_MB = 512;
  /**
   * JVM options of every container: short-lived JVMs on two shared cores spend most of their CPU
   * starting up, so the serial collector and the client compiler only.
   */
  static final String FAST_START_JVM = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData";

  private final MiniMRYarnCluster cluster;
  private final int nodeManagers;

  public ReinCluster(String name, int nodeManagers, int slotsPerNode) {
    this(name, nodeManagers, slotsPerNode, false);
  }

  /** A cluster with the MapReduce job history server running beside it when {@code historyServer}. */
  public ReinCluster(String name, int nodeManagers, int slotsPerNode, boolean historyServer) {
    this.nodeManagers = nodeManagers;
    Configuration conf = new YarnConfiguration();
    conf.setInt("yarn.minicluster.yarn.nodemanager.resource.memory-mb", CONTAINER_MB * slotsPerNode);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setInt(YarnConfiguration.NM_VCORES, 16);
    // MiniMRYarnCluster.MR_HISTORY_MINICLUSTER_ENABLED (Hadoop 3.4+), by name so that the harness also
    // builds against 3.3.x, whose mini cluster always starts its history server.
    conf.setBoolean("mapreduce.jobhistory.minicluster.enabled", historyServer);
    // A stopped NodeManager is declared lost within seconds, not the default ten minutes.
    conf.setLong(YarnConfiguration.RM_NM_EXPIRY_INTERVAL_MS, 8000);
    // Containers are handed out on NodeManager heartbeats: every 250 ms rather than every second.
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 250);
    addOpensBeforeHadoop34(conf);
    cluster = new MiniMRYarnCluster(name, nodeManagers);
    cluster.init(conf);
    cluster.start();
  }

  /**
   * Hadoop 3.4 and later open the JDK's packages to their containers by themselves
   * ({@code mapreduce.jvm.add-opens-as-default}); 3.3.x does not, and its AM dies on JDK 17 (Guice
   * in its web app). The harness then passes the same --add-opens through the admin options, which
   * every job inherits. Users of 3.3.x run it on JDK 8 or 11, where none of this applies.
   */
  private static void addOpensBeforeHadoop34(Configuration conf) {
    String[] v = org.apache.hadoop.util.VersionInfo.getVersion().split("[.-]");
    boolean before34 = v.length >= 2 && v[0].equals("3") && v[1].matches("[0-3]");
    if (!before34 || System.getProperty("java.specification.version").startsWith("1.")) {
      return;
    }
    String opens = String.join(" ", "--add-opens java.base/java.lang=ALL-UNNAMED",
        "--add-opens java.base/java.util=ALL-UNNAMED", "--add-opens java.base/java.io=ALL-UNNAMED",
        "--add-opens java.base/java.nio=ALL-UNNAMED", "--add-opens java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens java.base/java.net=ALL-UNNAMED",
        "--add-opens java.base/java.util.concurrent=ALL-UNNAMED",
        "--add-opens java.base/java.util.concurrent.atomic=ALL-UNNAMED",
        "--add-opens java.base/java.lang.invoke=ALL-UNNAMED");
    conf.set(MRJobConfig.MR_AM_ADMIN_COMMAND_OPTS, conf.get(MRJobConfig.MR_AM_ADMIN_COMMAND_OPTS, "") + " " + opens);
    conf.set(MRJobConfig.MAPRED_MAP_ADMIN_JAVA_OPTS, conf.get(MRJobConfig.MAPRED_MAP_ADMIN_JAVA_OPTS, "") + " " + opens);
    conf.set(MRJobConfig.MAPRED_REDUCE_ADMIN_JAVA_OPTS,
        conf.get(MRJobConfig.MAPRED_REDUCE_ADMIN_JAVA_OPTS, "") + " " + opens);
  }

  /** A job configuration for this cluster: small containers, frequent progress reports. */
  public Configuration jobConf() {
    Configuration conf = new Configuration(cluster.getConfig());
    conf.setInt(MRJobConfig.MAP_MEMORY_MB, CONTAINER_MB);
    conf.setInt(MRJobConfig.REDUCE_MEMORY_MB, CONTAINER_MB);
    conf.set(MRJobConfig.MAP_JAVA_OPTS, "-Xmx256m " + FAST_START_JVM);
    conf.set(MRJobConfig.REDUCE_JAVA_OPTS, "-Xmx256m " + FAST_START_JVM);
    conf.setInt(MRJobConfig.MR_AM_VMEM_MB, CONTAINER_MB);
    conf.set(MRJobConfig.MR_AM_COMMAND_OPTS, "-Xmx320m " + FAST_START_JVM);
    // The AM on another Java than the tests' (rein.it.am-java-home, e.g. a Java 11 runtime): the
    // JVM that loads rein's shim and its native library, as on clusters that run Hadoop on 8 or 11.
    String amJavaHome = System.getProperty("rein.it.am-java-home", "");
    if (!amJavaHome.isEmpty()) {
      conf.set(MRJobConfig.MR_AM_ENV, "JAVA_HOME=" + amJavaHome);
    }
    // The client looks for the job's end every 250 ms, not every 5 s.
    conf.setInt("mapreduce.client.completion.pollinterval", 250);
    conf.setLong(MRJobConfig.TASK_PROGRESS_REPORT_INTERVAL, 1000);
    conf.setInt(MRJobConfig.MR_AM_TO_RM_HEARTBEAT_INTERVAL_MS, 500);
    return conf;
  }

  public int nodeManagers() {
    return nodeManagers;
  }

  /** {@code host:port} of NodeManager {@code i}, as the AM names it. */
  public String nodeId(int i) {
    return cluster.getNodeManager(i).getNMContext().getNodeId().toString();
  }

  public List<String> nodeIds() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < nodeManagers; i++) {
      out.add(nodeId(i));
    }
    return out;
  }

  /** The cluster's work directory (NM local and log directories live under it). */
  public File workDir() {
    return cluster.getTestWorkDir();
  }

  /** Stops NodeManager {@code i}, as a machine failing mid-job; its containers die with it. */
  public void stopNodeManager(int i) {
    cluster.getNodeManager(i).stop();
  }

  /** The syslog of a job's (first) ApplicationMaster, where rein logs its decisions. */
  public java.nio.file.Path amLog(String jobId) throws java.io.IOException {
    return amLog(jobId, 1);
  }

  /** The lines of a job's (first) ApplicationMaster syslog that contain {@code needle}. */
  public List<String> amLogLines(String jobId, String needle) throws java.io.IOException {
    try (java.util.stream.Stream<String> lines =
        java.nio.file.Files.lines(amLog(jobId), java.nio.charset.StandardCharsets.UTF_8)) {
      return lines.filter(l -> l.contains(needle)).collect(java.util.stream.Collectors.toList());
    }
  }

  /** The syslog of a job's ApplicationMaster attempt {@code attempt} (1, 2, …). */
  public java.nio.file.Path amLog(String jobId, int attempt) throws java.io.IOException {
    String app = jobId.replace("job_", "application_");
    String container = String.format("_%02d_000001", attempt);
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(workDir().toPath())) {
      return files.filter(p -> p.getFileName().toString().equals("syslog"))
          .filter(p -> p.getParent().getFileName().toString().endsWith(container))
          .filter(p -> p.getParent().getParent().getFileName().toString().equals(app))
          .findFirst()
          .orElseThrow(() -> new java.io.FileNotFoundException("no AM log of " + jobId + " under " + workDir()));
    }
  }

  @Override
  public void close() {
    // Each NodeManager's stop waits about ten seconds for its log handler's pending deletions;
    // the cluster would stop them one after another, so stop them side by side first.
    List<Thread> stops = new ArrayList<>();
    for (int i = 0; i < nodeManagers; i++) {
      NodeManager nm = cluster.getNodeManager(i);
      Thread t = new Thread(nm::stop, "stop-nm-" + i);
      t.start();
      stops.add(t);
    }
    for (Thread t : stops) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    cluster.stop();
  }
}
