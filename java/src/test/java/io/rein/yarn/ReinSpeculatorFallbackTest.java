package io.rein.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** Runs in its own JVM: the library is made unloadable for the whole class loader. */
class ReinSpeculatorFallbackTest {
  @Test
  void anUnloadableLibraryHandsTheJobToTheStockSpeculator() {
    ShimFixture f = new ShimFixture(2);
    Configuration conf = ShimFixture.conf("rein.native.library", "/nonexistent/librein.so");
    ReinSpeculator s = new ReinSpeculator(conf, f.context);
    assertFalse(s.isActive());
    s.init(conf);
    s.start();
    s.handle(f.jobCreated());
    s.handle(f.started(0));
    s.handle(f.status(0, 0.5f));
    assertEquals(1, f.counter(ReinCounters.FALLBACK));
    s.stop();
  }

  @Test
  void aBadShimKeyFallsBackInsteadOfFailingTheAm() {
    ShimFixture f = new ShimFixture(1);
    ReinSpeculator s = new ReinSpeculator(ShimFixture.conf("rein.scan-interval-ms", "-5"), f.context);
    assertFalse(s.isActive());
    s.init(new Configuration(false));
    s.start();
    s.handle(f.jobCreated());
    s.stop();
  }
}
