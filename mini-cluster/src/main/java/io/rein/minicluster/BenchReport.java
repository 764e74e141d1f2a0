package io.rein.minicluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The benchmark's report, rewritten after every run so that an interrupted benchmark keeps what
 * it finished: {@code results.json} (one object per run), {@code summary.md} (median and min–max
 * per scenario, job and policy; speedup over stock paired by repetition) and two SVG plots.
 */
final class BenchReport {
  private final Path dir;
  private final String header;
  private final List<String> policies;

  BenchReport(Path dir, String header, List<String> policies) {
    this.dir = dir;
    this.header = header;
    this.policies = policies;
  }

  void write(List<BenchRecord> runs) throws IOException {
    StringBuilder json = new StringBuilder("[\n");
    for (int i = 0; i < runs.size(); i++) {
      json.append("  ").append(runs.get(i).toJson()).append(i + 1 < runs.size() ? ",\n" : "\n");
    }
    writeAtomically("results.json", json.append("]\n").toString());
    writeAtomically("summary.md", summary(runs));
    writeAtomically("job_seconds.svg", plot(runs, "job seconds", r -> r.jobSeconds));
    writeAtomically("wasted_container_seconds.svg", plot(runs, "wasted container-seconds",
        r -> r.wastedContainerSeconds));
  }

  private void writeAtomically(String name, String text) throws IOException {
    Path tmp = dir.resolve(name + ".tmp");
    Files.write(tmp, text.getBytes(StandardCharsets.UTF_8));
    Files.move(tmp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Runs grouped by "scenario / job", in the order they ran. */
  static Map<String, List<BenchRecord>> cells(List<BenchRecord> runs) {
    return runs.stream().collect(Collectors.groupingBy(r -> r.scenario + " / " + r.job, LinkedHashMap::new,
        Collectors.toList()));
  }

  static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    s.sort(Double::compare);
    int n = s.size();
    return n == 0 ? Double.NaN : n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  private static List<Double> values(List<BenchRecord> runs, ToDoubleFunction<BenchRecord> f) {
    return runs.stream().filter(BenchRecord::measured).map(r -> f.applyAsDouble(r)).collect(Collectors.toList());
  }

  /** The baseline's job time over the policy's, per repetition where both were measured. */
  static List<Double> speedups(List<BenchRecord> cell, String policy, String baseline) {
    List<Double> out = new ArrayList<>();
    for (BenchRecord r : cell) {
      if (!r.policy.equals(policy) || !r.measured()) {
        continue;
      }
      for (BenchRecord s : cell) {
        if (s.policy.equals(baseline) && s.rep == r.rep && s.measured()) {
          out.add(s.jobSeconds / r.jobSeconds);
        }
      }
    }
    return out;
  }

  /**
   * Job seconds saved against the baseline per wasted container-second, per repetition where
   * both were measured and the policy wasted something: what each container-second a policy
   * spent on copies and kills bought.
   */
  static List<Double> savedPerWasted(List<BenchRecord> cell, String policy, String baseline) {
    List<Double> out = new ArrayList<>();
    for (BenchRecord r : cell) {
      if (!r.policy.equals(policy) || !r.measured() || r.wastedContainerSeconds <= 0) {
        continue;
      }
      for (BenchRecord s : cell) {
        if (s.policy.equals(baseline) && s.rep == r.rep && s.measured()) {
          out.add((s.jobSeconds - r.jobSeconds) / r.wastedContainerSeconds);
        }
      }
    }
    return out;
  }

  /** Wasted container-seconds over copies won, summed over a policy's runs in a cell. */
  static String wastePerWin(List<BenchRecord> runs) {
    double wasted = values(runs, r -> r.wastedContainerSeconds).stream().mapToDouble(Double::doubleValue).sum();
    double won = values(runs, r -> r.speculativeWon).stream().mapToDouble(Double::doubleValue).sum();
    return won == 0 ? "–" : String.format(Locale.ROOT, "%.1f", wasted / won);
  }

  static String spread(List<Double> xs, String fmt) {
    if (xs.isEmpty()) {
      return "–";
    }
    double lo = xs.stream().mapToDouble(Double::doubleValue).min().getAsDouble();
    double hi = xs.stream().mapToDouble(Double::doubleValue).max().getAsDouble();
    String m = String.format(Locale.ROOT, fmt, median(xs));
    return xs.size() == 1 ? m : m + " (" + String.format(Locale.ROOT, fmt, lo) + "–"
        + String.format(Locale.ROOT, fmt, hi) + ")";
  }

  private static String med(List<Double> xs) {
    return xs.isEmpty() ? "–" : String.format(Locale.ROOT, "%.1f", median(xs)).replace(".0", "");
  }

  String summary(List<BenchRecord> runs) {
    StringBuilder md = new StringBuilder("# rein A/B benchmark\n\n").append(header).append("\n\n");
    md.append("Medians over repetitions, with min–max in brackets. `speedup_vs_stock` is stock's job time over the ")
        .append("policy's in the same repetition (above 1: faster than stock), `speedup_vs_none` the same against ")
        .append("no speculation. Counts are medians per run; `output ok` counts runs whose output matched the ")
        .append("`none` run.\n\n");
    Map<String, List<BenchRecord>> cells = cells(runs);
    String glance = policies.contains("stock") ? "stock" : "none";
    md.append("## At a glance: median speedup_vs_").append(glance).append("\n\n| scenario / job |");
    for (String p : policies) {
      md.append(' ').append(p).append(" |");
    }
    md.append("\n|---|").append("---:|".repeat(policies.size())).append('\n');
    cells.forEach((name, cell) -> {
      md.append("| ").append(name).append(" |");
      for (String p : policies) {
        List<Double> s = speedups(cell, p, glance);
        md.append(' ').append(s.isEmpty() ? "–" : String.format(Locale.ROOT, "%.2f", median(s))).append(" |");
      }
      md.append('\n');
    });
    cells.forEach((name, cell) -> {
      md.append("\n## ").append(name).append("\n\n");
      md.append("| policy | runs | job s | speedup_vs_stock | speedup_vs_none | copies launched | copies won | ")
          .append("restarts | clones | vetoes | container-s | wasted container-s | wasted per copy won | ")
          .append("s saved vs stock per wasted container-s | output ok |\n");
      md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      for (String p : policies) {
        List<BenchRecord> rs = cell.stream().filter(r -> r.policy.equals(p)).collect(Collectors.toList());
        if (rs.isEmpty()) {
          continue;
        }
        long ok = rs.stream().filter(r -> r.outputOk).count();
        md.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d/%d |%n",
            p, rs.size(), spread(values(rs, r -> r.jobSeconds), "%.1f"), spread(speedups(cell, p, "stock"), "%.2f"),
            spread(speedups(cell, p, "none"), "%.2f"),
            med(values(rs, r -> r.speculativeLaunched)), med(values(rs, r -> r.speculativeWon)),
            med(values(rs, r -> r.restarts)), med(values(rs, r -> r.clones)), med(values(rs, r -> r.vetoes)),
            spread(values(rs, r -> r.containerSeconds), "%.0f"),
            spread(values(rs, r -> r.wastedContainerSeconds), "%.0f"), wastePerWin(rs),
            p.equals("stock") ? "–" : spread(savedPerWasted(cell, p, "stock"), "%.2f"), ok, rs.size()));
      }
      cell.stream().filter(r -> r.error != null).forEach(r -> md.append("\n- ").append(r.policy).append(" rep ")
          .append(r.rep).append(": ").append(r.error));
      md.append('\n');
    });
    return md.toString();
  }

  /** One panel per scenario / job: each run a dot, the median a bar, min–max a line, per policy. */
  String plot(List<BenchRecord> runs, String what, ToDoubleFunction<BenchRecord> f) {
    int width = 720;
    int left = 110;
    int right = 30;
    int row = 18;
    StringBuilder body = new StringBuilder();
    int y = 30;
    for (Map.Entry<String, List<BenchRecord>> e : cells(runs).entrySet()) {
      List<BenchRecord> cell = e.getValue();
      double max = 1;
      for (BenchRecord r : cell) {
        if (r.measured()) {
          max = Math.max(max, f.applyAsDouble(r));
        }
      }
      max = niceCeiling(max * 1.05);
      double scale = (width - left - right) / max;
      body.append(text(10, y + 14, e.getKey(), "bold"));
      y += 22;
      int top = y;
      for (String p : policies) {
        List<Double> xs = values(cell.stream().filter(r -> r.policy.equals(p)).collect(Collectors.toList()), f);
        if (xs.isEmpty()) {
          continue;
        }
        int cy = y + row / 2;
        body.append(text(left - 8, cy + 4, p, "end"));
        double lo = xs.stream().mapToDouble(Double::doubleValue).min().getAsDouble();
        double hi = xs.stream().mapToDouble(Double::doubleValue).max().getAsDouble();
        body.append(String.format(Locale.ROOT, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#888'/>%n",
            left + lo * scale, cy, left + hi * scale, cy));
        for (double x : xs) {
          body.append(String.format(Locale.ROOT, "<circle cx='%.1f' cy='%d' r='3' fill='%s' fill-opacity='0.6'/>%n",
              left + x * scale, cy, color(p)));
        }
        double m = median(xs);
        body.append(String.format(Locale.ROOT, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='black' "
            + "stroke-width='2'/>%n", left + m * scale, cy - 6, left + m * scale, cy + 6));
        y += row;
      }
      body.append(String.format(Locale.ROOT, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>%n", left, y,
          width - right, y));
      for (int i = 0; i <= 4; i++) {
        double v = max * i / 4;
        double x = left + v * scale;
        body.append(String.format(Locale.ROOT, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#ddd'/>%n", x,
            top, x, y));
        body.append(text((int) x, y + 14, String.format(Locale.ROOT, "%.0f", v), "middle"));
      }
      y += 34;
    }
    return String.format(Locale.ROOT, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
        + "font-family='sans-serif' font-size='11'>%n<rect width='100%%' height='100%%' fill='white'/>%n", width, y)
        + text(10, 16, what + " per policy: dots are runs, the bar the median, the line min–max", "bold") + body
        + "</svg>\n";
  }

  private static double niceCeiling(double v) {
    double step = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * step >= v) {
        return m * step;
      }
    }
    return 10 * step;
  }

  private static String color(String policy) {
    switch (policy) {
      case "none":
        return "#777777";
      case "stock":
      case "stock-exp":
        return "#d62728";
      default:
        return "#1f77b4";
    }
  }

  private static String text(int x, int y, String s, String style) {
    String anchor = style.equals("end") || style.equals("middle") ? " text-anchor='" + style + "'" : "";
    String weight = style.equals("bold") ? " font-weight='bold'" : "";
    return String.format(Locale.ROOT, "<text x='%d' y='%d'%s%s>%s</text>%n", x, y, anchor, weight,
        s.replace("&", "&amp;").replace("<", "&lt;"));
  }
}
