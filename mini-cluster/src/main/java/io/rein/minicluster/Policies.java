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
    Configuration c = applyBase(conf, baseName(policy));
    for (String[] kv : settings(policy)) {
      c.set(kv[0], kv[1]);
    }
    return c;
  }

  /**
   * A policy's name without its settings: a policy may be written {@code NAME+KEY=VALUE[+KEY=VALUE…]}
   * (e.g. {@code auto+rein.veto.max-per-task=0}), the named policy with those job settings on top,
   * so that a benchmark can set a policy beside a variant of it.
   */
  public static String baseName(String policy) {
    int plus = policy.indexOf('+');
    return plus < 0 ? policy : policy.substring(0, plus);
  }

  /** The {@code KEY=VALUE} settings of a policy written {@code NAME+KEY=VALUE…}; a bad one throws. */
  static java.util.List<String[]> settings(String policy) {
    java.util.List<String[]> out = new java.util.ArrayList<>();
    String[] parts = policy.split("\\+");
    for (int i = 1; i < parts.length; i++) {
      int eq = parts[i].indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("policy '" + policy + "': '" + parts[i] + "' is not KEY=VALUE");
      }
      out.add(new String[] {parts[i].substring(0, eq), parts[i].substring(eq + 1)});
    }
    return out;
  }

  private static Configuration applyBase(Configuration conf, String policy) {
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
    java.util.List<String> args = new java.util.ArrayList<>(cliArgsBase(baseName(policy)));
    for (String[] kv : settings(policy)) {
      args.add("-D" + kv[0] + "=" + kv[1]);
    }
    return args;
  }

  private static java.util.List<String> cliArgsBase(String policy) {
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
