package io.rein.minicluster;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One embedded cluster for every test class that runs jobs on it ({@code @ExtendWith(SharedCluster.class)}):
 * three NodeManagers of three slots and a job history server. It starts before the first such
 * class and stops when the whole test run ends, so the suite pays for one start and one stop.
 * No test may leave the cluster changed: a test that stops a NodeManager for good belongs on a
 * cluster of its own (the cluster bed's node-loss test).
 */
public final class SharedCluster implements BeforeAllCallback {
  private static ReinCluster cluster;

  @Override
  public void beforeAll(ExtensionContext context) {
    context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL).getOrComputeIfAbsent(SharedCluster.class, k -> {
      cluster = new ReinCluster("rein-it", 3, 3, true);
      return (ExtensionContext.Store.CloseableResource) SharedCluster::stop;
    });
  }

  private static synchronized void stop() {
    if (cluster != null) {
      cluster.close();
      cluster = null;
    }
  }

  /** The running cluster; only valid inside a class extended with this. */
  public static ReinCluster get() {
    if (cluster == null) {
      throw new IllegalStateException("no shared cluster: annotate the test class @ExtendWith(SharedCluster.class)");
    }
    return cluster;
  }
}
