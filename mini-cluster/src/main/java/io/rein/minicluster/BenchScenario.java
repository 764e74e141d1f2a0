package io.rein.minicluster;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The straggler scenarios of the A/B benchmark (EVALUATION.md). A scenario says which nodes are
 * slow and by how much, whether the slowdown comes and goes, whether a node is lost, whether the
 * input is skewed, and whether the "job" is a stream of small jobs.
 *
 * <p>Slow nodes are made slow for the CPU-bound jobs by {@link StragglerInjector} (their task
 * JVMs stopped part of the time) and for the sleep job by its per-node sleep factors.
 */
enum BenchScenario {
  HEALTHY("healthy", "nothing injected", Map.of(), List.of("sort", "grep", "wordcount", "sleep")),
  SLOW_NODE("slow-node", "one node slowed 6x (on the cluster bed: at 1/6 of its CPU share)", Map.of(1, 6.0),
      List.of("sort", "grep", "wordcount", "sleep")),
  HETEROGENEOUS("heterogeneous", "NMs at 1x, 1.5x, 2x and 3x", Map.of(0, 1.0, 1, 1.5, 2, 2.0, 3, 3.0),
      List.of("wordcount", "sleep")),
  SKEW("skew", "one map with 4x its siblings' input, all nodes healthy", Map.of(), List.of("wordcount", "sort")),
  TRANSIENT("transient", "NM 1 slowed 10x from 10 s to 30 s after submission", Map.of(1, 10.0),
      List.of("wordcount", "sort")),
  NODE_LOSS("node-loss", "a NodeManager (never the AM's) stopped at 30% map progress; a fresh cluster per run",
      Map.of(), List.of("wordcount")),
  SMALL_JOBS("small-jobs", "a stream of 2-, 4-, 6- and 8-map jobs, NM 1 slowed 4x", Map.of(1, 4.0),
      List.of("sleep", "wordcount"));

  /** The transient scenario's window, from submission. */
  static final long TRANSIENT_FROM_MS = 10_000;
  static final long TRANSIENT_TO_MS = 30_000;
  /** Map progress at which the node-loss scenario stops a NodeManager. */
  static final float LOSS_AT_MAP_PROGRESS = 0.3f;
  /** The map counts of the small-jobs stream, run one after the other. */
  static final int[] SMALL_JOB_MAPS = {2, 4, 6, 8};

  final String id;
  final String description;
  /** NM index → slowdown factor. */
  final Map<Integer, Double> slow;
  final List<String> defaultJobs;

  BenchScenario(String id, String description, Map<Integer, Double> slow, List<String> defaultJobs) {
    this.id = id;
    this.description = description;
    this.slow = slow;
    this.defaultJobs = defaultJobs;
  }

  static BenchScenario named(String id) {
    for (BenchScenario s : values()) {
      if (s.id.equals(id)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown scenario '" + id + "'; known: " + ids());
  }

  static String ids() {
    StringBuilder b = new StringBuilder();
    for (BenchScenario s : values()) {
      b.append(b.length() == 0 ? "" : ", ").append(s.id);
    }
    return b.toString();
  }

  /** The slowdown of each existing NM that is slowed (factor above 1), by index. */
  Map<Integer, Double> slowNodes(int nodeManagers) {
    Map<Integer, Double> out = new LinkedHashMap<>();
    slow.forEach((nm, f) -> {
      if (nm < nodeManagers && f > 1.0) {
        out.put(nm, f);
      }
    });
    return out;
  }

  boolean skewed() {
    return this == SKEW;
  }

  boolean transientSlowdown() {
    return this == TRANSIENT;
  }

  boolean losesNode() {
    return this == NODE_LOSS;
  }

  boolean smallJobs() {
    return this == SMALL_JOBS;
  }
}
