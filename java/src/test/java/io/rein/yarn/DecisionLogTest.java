package io.rein.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptState;
import org.apache.hadoop.mapreduce.v2.app.job.TaskAttempt;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEventType;
import org.apache.hadoop.mapreduce.v2.app.speculate.DefaultSpeculator;
import org.apache.hadoop.mapreduce.v2.util.MRBuilderUtils;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The decision log, the ROI counters, shadow mode and the safety keys, on the mocked AM. */
class DecisionLogTest {
  @TempDir Path dir;

  private Configuration conf(String... more) {
    String[] base = {"rein.policy", "late", "rein.late.min-runtime-ms", "0",
        DecisionLog.KEY, dir.resolve("decisions.jsonl").toString()};
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return ShimFixture.conf(all);
  }

  /** Adds attempt 1 of map 3, started now on another node. */
  private static TaskAttempt copyOfMap3(ShimFixture f) {
    TaskAttemptId id = MRBuilderUtils.newTaskAttemptId(f.task(3).getID(), 1);
    TaskAttempt copy = mock(TaskAttempt.class);
    when(copy.getID()).thenReturn(id);
    when(copy.getNodeId()).thenReturn(NodeId.newInstance("localhost", 4999));
    when(copy.getState()).thenReturn(TaskAttemptState.RUNNING);
    when(copy.getLaunchTime()).thenReturn(f.now);
    Map<TaskAttemptId, TaskAttempt> both = new LinkedHashMap<>(f.task(3).getAttempts());
    both.put(id, copy);
    when(f.task(3).getAttempts()).thenReturn(both);
    when(f.task(3).getAttempt(id)).thenReturn(copy);
    return copy;
  }

  private List<String> lines() throws IOException {
    return Files.readAllLines(dir.resolve("decisions.jsonl"), StandardCharsets.UTF_8);
  }

  private static List<String> records(List<String> lines, String kind) {
    return lines.stream().filter(l -> l.startsWith("{\"record\":\"" + kind + "\"")).collect(Collectors.toList());
  }

  private static long specAttempts(ShimFixture f) {
    return f.sent.stream().filter(e -> e instanceof TaskEvent)
        .filter(e -> ((TaskEvent) e).getType() == TaskEventType.T_ADD_SPEC_ATTEMPT).count();
  }

  @Test
  void aCopyThatWinsIsLoggedWithItsOutcomeCountedAndSummed() throws IOException {
    ShimFixture f = new ShimFixture(4);
    ReinSpeculator s = f.straggler(conf());
    s.scanNow();
    assertEquals(1, specAttempts(f));
    List<String> lines = lines();
    assertTrue(lines.get(0).startsWith("{\"record\":\"job\",\"job\":\"" + f.jobId + "\",\"policy\":\"late\",\"mode\":\"act\""),
        lines.get(0));
    String decision = records(lines, "decision").get(0);
    assertTrue(decision.contains("\"action\":\"copy\",\"task\":\"m_000003\",\"attempt\":0,\"node\":\"localhost:4003\""),
        decision);
    assertTrue(decision.contains("\"reason\":{") && decision.contains("\"kind\":\"late\""), decision);

    f.now = 21_000;
    TaskAttempt copy = copyOfMap3(f);
    s.scanNow();
    f.now = 31_000;
    when(copy.getState()).thenReturn(TaskAttemptState.SUCCEEDED);
    when(copy.getFinishTime()).thenReturn(f.now);
    when(f.attempt(3).getState()).thenReturn(TaskAttemptState.KILLED);
    when(f.attempt(3).getFinishTime()).thenReturn(f.now);
    s.scanNow();
    String outcome = records(lines(), "outcome").get(0);
    assertTrue(outcome.contains("\"action\":\"copy\",\"task\":\"m_000003\",\"attempt\":1,\"node\":\"localhost:4999\","
        + "\"result\":\"won\",\"container_s\":10"), outcome);
    assertEquals(1, f.counter(ReinCounters.COPIES_STARTED));
    assertEquals(1, f.counter(ReinCounters.COPIES_WON));
    assertEquals(10, f.counter(ReinCounters.COPY_CONTAINER_SECONDS));
    // 10% in 20 s: the original would have ended at 200 s; the copy ended the job at 31 s.
    assertEquals(169, f.counter(ReinCounters.ESTIMATED_SECONDS_SAVED));

    s.stop();
    List<String> summary = records(lines(), "summary");
    assertEquals(1, summary.size());
    assertTrue(summary.get(0).contains("\"copies_won\":1,\"copy_container_s\":10,\"estimated_job_s_saved\":169,"
        + "\"saved_per_container_s\":16.9"), summary.get(0));
  }

  @Test
  void inShadowModeStockRunsTheJobAndReinOnlyLogs() throws IOException {
    ShimFixture f = new ShimFixture(4);
    ReinSpeculator s = f.straggler(conf(ReinSpeculator.KEY_MODE, "shadow"));
    assertTrue(s.shadowSpeculator() instanceof DefaultSpeculator);
    s.scanNow();
    assertEquals(0, specAttempts(f), "rein never acts in shadow mode");
    assertEquals(1, f.counter(ReinCounters.SHADOW_ACTIONS));
    assertEquals(0, f.counter(ReinCounters.SPECULATIVE_LAUNCHED));
    assertTrue(lines().get(0).contains("\"mode\":\"shadow\""));
    String decision = records(lines(), "decision").get(0);
    assertTrue(decision.contains("\"shadow\":true"), decision);

    f.now = 100_000;
    when(f.attempt(3).getState()).thenReturn(TaskAttemptState.SUCCEEDED);
    when(f.attempt(3).getFinishTime()).thenReturn(f.now);
    s.scanNow();
    String outcome = records(lines(), "outcome").get(0);
    // A copy started at 20 s taking the 10 s the other maps took would have ended at 30 s.
    assertTrue(outcome.contains("\"result\":\"not-acted\",\"copy_est_end_ms\":30000,\"would_save_s\":70"), outcome);
    assertEquals(70, f.counter(ReinCounters.SHADOW_ESTIMATED_SECONDS_SAVED));
    assertEquals(0, f.counter(ReinCounters.ESTIMATED_SECONDS_SAVED));
    s.stop();
    assertTrue(records(lines(), "summary").get(0).contains("\"estimated_job_s_rein_would_save\":70"));
  }

  @Test
  void aJobThatOptsOutRunsUnderStockWithoutCountingAFallback() {
    ShimFixture f = new ShimFixture(4);
    Configuration conf = conf(ReinSpeculator.KEY_ENABLED, "false");
    ReinSpeculator s = new ReinSpeculator(conf, f.context);
    s.init(conf);
    s.handle(f.jobCreated());
    assertFalse(s.isActive());
    assertEquals(0, f.counter(ReinCounters.FALLBACK));
    s.stop();
    assertFalse(Files.exists(dir.resolve("decisions.jsonl")));
  }

  @Test
  void aBadModeIsAConfigurationErrorAndTheJobFallsBack() {
    ShimFixture f = new ShimFixture(4);
    ReinSpeculator s = new ReinSpeculator(conf(ReinSpeculator.KEY_MODE, "ghost"), f.context);
    s.handle(f.jobCreated());
    assertFalse(s.isActive());
    assertEquals(1, f.counter(ReinCounters.FALLBACK));
  }

  @Test
  void outputFormatsWithSideEffectsSwitchOffCopiesOfTheWritingTasks() {
    Configuration c = ShimFixture.conf(MRJobConfig.OUTPUT_FORMAT_CLASS_ATTR,
        "org.apache.hadoop.mapreduce.lib.db.DBOutputFormat", MRJobConfig.NUM_REDUCES, "2");
    assertEquals("org.apache.hadoop.mapreduce.lib.db.DBOutputFormat", ReinSpeculator.sideEffectWriter(c));
    Map<String, String> keys = ReinSpeculator.engineKeys(c);
    assertEquals("false", keys.get(MRJobConfig.REDUCE_SPECULATIVE));
    assertEquals("true", keys.get(MRJobConfig.MAP_SPECULATIVE), "maps write only intermediate output");

    Configuration mapOnly = ShimFixture.conf("mapred.output.committer.class", "com.example.Upserting",
        ReinSpeculator.KEY_NEVER_COPY_COMMITTERS, "com.example.Upserting", MRJobConfig.NUM_REDUCES, "0");
    assertEquals("false", ReinSpeculator.engineKeys(mapOnly).get(MRJobConfig.MAP_SPECULATIVE));

    Configuration plain = ShimFixture.conf(MRJobConfig.OUTPUT_FORMAT_CLASS_ATTR,
        "org.apache.hadoop.mapreduce.lib.output.TextOutputFormat");
    assertNull(ReinSpeculator.sideEffectWriter(plain));
    assertEquals("true", ReinSpeculator.engineKeys(plain).get(MRJobConfig.REDUCE_SPECULATIVE));
  }

  @Test
  void defaultSpeculatorKeysAndTheLogSwitchReachTheEngine() {
    Configuration c = ShimFixture.conf("mapreduce.job.speculative.minimum-allowed-tasks", "3");
    Map<String, String> keys = ReinSpeculator.engineKeys(c);
    assertEquals("3", keys.get("mapreduce.job.speculative.minimum-allowed-tasks"));
    assertEquals("off", keys.get(DecisionLog.KEY));
    assertEquals("auto", ReinSpeculator.engineKeys(new Configuration(false)).get(DecisionLog.KEY));
  }

  @Test
  void theLogIsBoundedButKeepsItsSummary() throws IOException {
    Configuration c = ShimFixture.conf(DecisionLog.KEY, dir.toString(), DecisionLog.KEY_MAX_BYTES, "4096");
    ShimFixture f = new ShimFixture(1);
    DecisionLog log = DecisionLog.forJob(c, f.jobId);
    assertEquals(dir.resolve(f.jobId + ".rein-decisions.jsonl").toString(), log.path().toUri().getPath());
    String big = "{\"record\":\"decision\",\"pad\":\"" + new String(new char[1000]).replace('\0', 'x') + "\"}";
    for (int i = 0; i < 10; i++) {
      log.write(big);
    }
    log.writeAlways("{\"record\":\"summary\"}");
    log.close();
    List<String> lines = Files.readAllLines(dir.resolve(f.jobId + ".rein-decisions.jsonl"));
    // Three lines of 1,031 bytes fit in 4,096; the fourth would not.
    assertEquals(List.of("decision", "decision", "decision", "truncated", "summary"),
        lines.stream().map(l -> l.substring(11, l.indexOf('"', 11))).collect(Collectors.toList()));
  }
}
