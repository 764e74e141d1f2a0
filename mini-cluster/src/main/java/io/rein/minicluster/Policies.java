package io.rein.minicluster;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRJobConfig;

/** Job settings that select a speculation policy: none, Hadoop's stock speculator, or rein's. */
public final class Policies {
  public static final String REIN_SPECULATOR = "io.rein.yarn.ReinSpeculator";
  private static final String ESTIMATORS = "org.apache.hadoop.mapreduce.v2.app.speculate.";
  static final String LEGACY_ESTIMATOR = ESTIMATORS + "LegacyTaskRuntimeEstimator";
  static final String EXPONENTIAL_ESTIMATOR = ESTIMATORS + "SimpleExponentialTaskRuntimeEstimator";

  private Policies() {}

  /**
   * Applies {@code policy} to a job configuration: {@code none} (speculation off), {@code stock}
   * (Hadoop's DefaultSpeculator with its Legacy estimator), {@code stock-exp} (DefaultSpeculator
   * with the SimpleExponential estimator), or a rein policy name run by {@link #rein}.
   */
  public static Configuration apply(Configuration conf, String policy) {
    switch (policy) {
      case "none": {
        Configuration c = new Configuration(conf);
        c.setBoolean(MRJobConfig.MAP_SPECULATIVE, false);
        c.setBoolean(MRJobConfig.REDUCE_SPECULATIVE, false);
        return c;
      }
      case "stock":
      case "stock-exp": {
        Configuration c = new Configuration(conf);
        c.setBoolean(MRJobConfig.MAP_SPECULATIVE, true);
        c.setBoolean(MRJobConfig.REDUCE_SPECULATIVE, true);
        c.set(MRJobConfig.MR_AM_TASK_ESTIMATOR, policy.equals("stock") ? LEGACY_ESTIMATOR : EXPONENTIAL_ESTIMATOR);
        return c;
      }
      default:
        return rein(conf, policy);
    }
  }

  /**
   * The same choice as {@link #apply}, as {@code -D} options on a job's command line, for a cluster
   * where rein is installed cluster-wide (its speculator key in mapred-site.xml): {@code none} turns
   * speculation off, {@code stock} names Hadoop's speculator, a rein policy sets {@code rein.policy}
   * with the papers' time constants scaled to minute-long jobs (as the benchmark does).
   */
  public static java.util.List<String> cliArgs(String policy) {
    String stockSpeculator = "-D" + MRJobConfig.MR_AM_JOB_SPECULATOR
        + "=org.apache.hadoop.mapreduce.v2.app.speculate.DefaultSpeculator";
    switch (policy) {
      case "none":
        return java.util.List.of("-D" + MRJobConfig.MAP_SPECULATIVE + "=false",
            "-D" + MRJobConfig.REDUCE_SPECULATIVE + "=false");
      case "stock":
        return java.util.List.of(stockSpeculator, "-D" + MRJobConfig.MR_AM_TASK_ESTIMATOR + "=" + LEGACY_ESTIMATOR);
      case "stock-exp":
        return java.util.List.of(stockSpeculator,
            "-D" + MRJobConfig.MR_AM_TASK_ESTIMATOR + "=" + EXPONENTIAL_ESTIMATOR);
      default:
        return java.util.List.of("-D" + MRJobConfig.MR_AM_JOB_SPECULATOR + "=" + REIN_SPECULATOR,
            "-Drein.policy=" + policy, "-Drein.late.min-runtime-ms=5000", "-Drein.mantri.delta-ms=5000",
            "-Drein.mantri.recopy-after-ms=15000");
    }
  }

  /** rein's speculator with {@code rein.policy=reinPolicy} (which may itself be {@code none}). */
  public static Configuration rein(Configuration conf, String reinPolicy) {
    Configuration c = new Configuration(conf);
    c.setBoolean(MRJobConfig.MAP_SPECULATIVE, true);
    c.setBoolean(MRJobConfig.REDUCE_SPECULATIVE, true);
    c.set(MRJobConfig.MR_AM_JOB_SPECULATOR, REIN_SPECULATOR);
    c.set("rein.policy", reinPolicy);
    return c;
  }
}
