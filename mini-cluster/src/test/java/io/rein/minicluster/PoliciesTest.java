package io.rein.minicluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** A benchmark policy written NAME+KEY=VALUE is the named policy with those job settings on top. */
class PoliciesTest {
  @Test
  void aVariantIsItsPolicyWithItsSettingsOnTop() {
    Configuration c = Policies.apply(new Configuration(false), "auto+rein.veto.max-per-task=0+rein.grass.startup-ms=900");
    assertEquals("auto", c.get("rein.policy"));
    assertEquals(Policies.REIN_SPECULATOR, c.get("yarn.app.mapreduce.am.job.speculator.class"));
    assertEquals("0", c.get("rein.veto.max-per-task"));
    assertEquals("900", c.get("rein.grass.startup-ms"));
    assertEquals("auto", Policies.baseName("auto+rein.veto.max-per-task=0"));
    assertEquals("late", Policies.baseName("late"));

    List<String> args = Policies.cliArgs("stock+mapreduce.job.speculative.speculative-cap-running-tasks=0.2");
    assertEquals("-Dmapreduce.job.speculative.speculative-cap-running-tasks=0.2", args.get(args.size() - 1));
    assertEquals(Policies.cliArgs("stock"), args.subList(0, args.size() - 1));
  }

  @Test
  void aSettingWithoutAValueIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Policies.cliArgs("late+rein.late.cap"));
    assertEquals("policy 'late+rein.late.cap': 'rein.late.cap' is not KEY=VALUE", e.getMessage());
  }
}
