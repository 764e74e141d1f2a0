package io.rein.minicluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The benchmark's smoke run (one sleep job on a slow node, none and late, one repetition) on a
 * real embedded cluster: every run is recorded with the metrics of EVALUATION.md, outputs are
 * verified, and the summary, plots and job histories are written. Speed is not asserted.
 */
@ExtendWith(SharedCluster.class)
class BenchSmokeTest {
  private static final List<String> METRICS = List.of("scenario", "job", "policy", "rep", "job_seconds",
      "speculative_launched", "speculative_won", "restarts", "clones", "vetoes", "container_seconds",
      "wasted_container_seconds", "output_ok", "jhist");

  @Test
  void theSmokeBenchmarkWritesACompleteReport() throws Exception {
    File out = new File("target/bench-smoke").getAbsoluteFile();
    Bench.Options o = Bench.parse(new String[] {"--smoke", "--bed", "embedded", "--out", out.getPath()});
    int failed = new Bench(o, SharedCluster.get()).run();
    assertEquals(0, failed, "every run succeeded with verified output");

    JsonNode runs = new ObjectMapper().readTree(new File(out, "results.json"));
    assertEquals(2, runs.size(), "one run per policy: " + runs);
    Set<String> policies = new TreeSet<>();
    for (JsonNode r : runs) {
      for (String m : METRICS) {
        assertTrue(r.has(m), "run has " + m + ": " + r);
      }
      assertEquals("slow-node", r.get("scenario").asText());
      assertEquals("sleep", r.get("job").asText());
      assertTrue(r.get("output_ok").asBoolean(), "output verified: " + r);
      assertTrue(r.get("job_seconds").asDouble() > 0);
      assertTrue(r.get("container_seconds").asDouble() > 0);
      assertTrue(new File(out, r.get("jhist").get(0).asText()).length() > 0, "the job history is kept");
      policies.add(r.get("policy").asText());
    }
    assertEquals(Set.of("late", "none"), policies);
    JsonNode none = runs.get(0);
    assertEquals("none", none.get("policy").asText(), "none runs first: it is the reference output");
    assertEquals(0, none.get("speculative_launched").asInt(), "no speculation launches no copy");

    String summary = Files.readString(new File(out, "summary.md").toPath(), StandardCharsets.UTF_8);
    assertTrue(summary.contains("## slow-node / sleep"), summary);
    assertTrue(summary.contains("| late | 1 |") && summary.contains("| none | 1 |"), summary);
    assertTrue(summary.contains("| wasted per copy won |") && summary.contains("per wasted container-s |"), summary);
    for (String svg : new String[] {"job_seconds.svg", "wasted_container_seconds.svg"}) {
      String text = Files.readString(new File(out, svg).toPath(), StandardCharsets.UTF_8);
      assertTrue(text.startsWith("<svg") && text.contains("slow-node / sleep") && text.trim().endsWith("</svg>"));
    }
  }

  @Test
  void quickProfileRunsTheFourTargetScenariosAndKeepsExplicitSizes() {
    Bench.Options o = Bench.parse(new String[] {"--quick", "--bed", "cluster", "--maps", "9", "--skew-text-mb", "5"});
    assertEquals(List.of(BenchScenario.HEALTHY, BenchScenario.SLOW_NODE, BenchScenario.SKEW,
        BenchScenario.SMALL_JOBS), o.scenarios);
    assertEquals(List.of("none", "stock", "auto", "late", "mantri", "dolly", "sca", "ese"), o.policies);
    assertEquals(3, o.reps);
    assertEquals(9, o.sizes.maps);
    assertEquals(5L << 20, o.sizes.skewTextBytesPerMap);
    for (BenchScenario s : o.scenarios) {
      assertEquals(List.of("wordcount"), Bench.jobsOf(o, s), s.id);
    }
    Bench.Options quick = Bench.parse(new String[] {"--quick", "--bed", "cluster"});
    assertEquals(7, quick.sizes.maps);
    assertEquals(3L << 20, quick.sizes.skewTextBytesPerMap);
  }

  @Test
  void badArgumentsNameTheOptionAndTheValue() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Bench.parse(new String[] {"--reps", "0"}));
    assertTrue(e.getMessage().contains("--reps") && e.getMessage().contains("'0'"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Bench.parse(new String[] {"--policies", "fast"}));
    assertTrue(e.getMessage().contains("'fast'") && e.getMessage().contains("late"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Bench.parse(new String[] {"--scenario", "slow"}));
    assertTrue(e.getMessage().contains("slow-node"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> Bench.parse(new String[] {"--scenario", "skew", "--jobs", "sleep"}));
    assertTrue(e.getMessage().contains("sleep"), e.getMessage());
  }
}
