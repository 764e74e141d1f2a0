package io.rein.minicluster;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The demo: an embedded cluster with one slow NodeManager runs WordCount under Hadoop's stock
 * speculation and under rein (LATE), checks both outputs, and prints the two side by side.
 *
 * <p>Arguments: {@code OUT_DIR [SLOW_FACTOR]}. Writes {@code OUT_DIR/summary.json}.
 */
public final class Demo {
  private Demo() {}

  public static void main(String[] args) throws Exception {
    File out = new File(args.length > 0 ? args[0] : "target/demo");
    double factor = args.length > 1 ? Double.parseDouble(args[1]) : 6.0;
    out.mkdirs();
    int nodes = 3;
    List<RunResult> results = new ArrayList<>();
    try (ReinCluster cluster = new ReinCluster("rein-demo", nodes, 3)) {
      Configuration base = cluster.jobConf();
      // The demo's jobs last a minute or two, so LATE's 1-minute minimum run time is scaled down.
      base.set("rein.late.min-runtime-ms", "5000");
      log("cluster up: NodeManagers " + cluster.nodeIds() + "; NM 1 (" + cluster.nodeId(1) + ") slowed "
          + factor + "x");
      Path input = new Path(new File(out, "input").getAbsolutePath());
      WordCountWorkload wc = new WordCountWorkload(base, input, 12, 6L << 20, 42);
      try (StragglerInjector slow = new StragglerInjector(Map.of(1, factor), 500)) {
        for (String policy : new String[] {"stock", "late"}) {
          log("running WordCount under " + policy + " ...");
          Path output = new Path(new File(out, "output-" + policy).getAbsolutePath());
          RunResult r = Runs.wordCount(Policies.apply(base, policy), wc, output, policy);
          log(String.format(Locale.ROOT, "  %s: %.1f s, output %s", policy, r.jobSeconds,
              r.outputOk ? "verified" : "WRONG"));
          results.add(r);
        }
      }
    }
    System.out.println();
    System.out.println(table(results));
    StringBuilder json = new StringBuilder("[\n");
    for (int i = 0; i < results.size(); i++) {
      json.append("  ").append(results.get(i).toJson()).append(i + 1 < results.size() ? ",\n" : "\n");
    }
    json.append("]\n");
    Files.write(new File(out, "summary.json").toPath(), json.toString().getBytes(StandardCharsets.UTF_8));
    log("wrote " + new File(out, "summary.json"));
    boolean ok = results.stream().allMatch(r -> r.outputOk && r.succeeded);
    System.exit(ok ? 0 : 1);
  }

  static String table(List<RunResult> results) {
    StringBuilder t = new StringBuilder();
    t.append(String.format(Locale.ROOT, "%-8s %-10s %12s %13s %11s %16s %10s%n", "policy", "job", "job_seconds",
        "spec_launched", "spec_won", "wasted_cont_sec", "output_ok"));
    for (RunResult r : results) {
      t.append(String.format(Locale.ROOT, "%-8s %-10s %12.1f %13d %11d %16.1f %10s%n", r.policy, r.job, r.jobSeconds,
          r.speculativeLaunched, r.speculativeWon, r.wastedContainerSeconds, r.outputOk && r.succeeded));
    }
    return t.toString();
  }

  private static void log(String msg) {
    System.err.println("[demo] " + msg);
  }
}
