package io.rein.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Faults in and around the native engine: panics, use after a panic, two class loaders. */
class NativeFaultsTest {

  @Test
  void aPanicBecomesAJavaExceptionAndTheEngineStaysClosedToUse() {
    NativeLoader.load(null, null);
    NativeEngine e = NativeEngine.create(Map.of("rein.test.panic-on", "decide"));
    ReinNativeException first = assertThrows(ReinNativeException.class, () -> e.decide(0));
    assertTrue(first.getMessage().contains("injected panic") && first.getMessage().contains("engine.rs"),
        "the panic's message and location reach Java: " + first.getMessage());
    ReinNativeException again = assertThrows(ReinNativeException.class, () -> e.decide(1));
    assertTrue(again.getMessage().contains("unusable after an earlier panic"), again.getMessage());
    e.close();
    e.close();
  }

  @Test
  void aPanicOnAnEventHandsTheJobToTheStockSpeculator() {
    ShimFixture f = new ShimFixture(2);
    ReinSpeculator s = new ReinSpeculator(ShimFixture.conf("rein.test.panic-on", "event"), f.context);
    s.init(ShimFixture.conf());
    s.start();
    assertTrue(s.isActive());
    s.handle(f.jobCreated());
    s.handle(f.started(0));
    // The dispatcher hands the engine its events a batch at a time: the panic comes with the first.
    for (int i = 1; i < ReinSpeculator.DELIVER_BATCH; i++) {
      s.handle(f.status(0, i / 100f));
    }
    assertFalse(s.isActive(), "the panic made rein step aside");
    s.handle(f.status(0, 0.5f));
    s.handle(f.started(1));
    assertEquals(1, f.counter(ReinCounters.FALLBACK), "counted once");
    s.stop();
  }

  @Test
  void aPanicOnADecisionHandsTheJobToTheStockSpeculator() {
    ShimFixture f = new ShimFixture(2);
    ReinSpeculator s = new ReinSpeculator(ShimFixture.conf("rein.test.panic-on", "decide"), f.context);
    s.init(ShimFixture.conf());
    s.handle(f.jobCreated());
    s.handle(f.started(0));
    s.scanNow();
    assertFalse(s.isActive());
    s.scanNow();
    assertEquals(1, f.counter(ReinCounters.FALLBACK));
    s.stop();
  }

  @Test
  void twoClassLoadersEachLoadTheLibrary(@TempDir Path dir) throws Exception {
    URL classes = NativeEngine.class.getProtectionDomain().getCodeSource().getLocation();
    URLClassLoader a = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader());
    URLClassLoader b = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader());
    try {
      for (URLClassLoader cl : new URLClassLoader[] {a, b}) {
        Method load = cl.loadClass("io.rein.yarn.NativeLoader").getDeclaredMethod("load", String.class, String.class);
        load.setAccessible(true);
        String from = (String) load.invoke(null, null, dir.toString());
        assertTrue(from.startsWith("bundled copy extracted to " + dir), from);
        Method abi = cl.loadClass("io.rein.yarn.NativeEngine").getDeclaredMethod("abiVersion");
        abi.setAccessible(true);
        assertEquals(NativeEngine.ABI_VERSION, abi.invoke(null));
      }
      try (var left = Files.list(dir)) {
        assertEquals(0, left.count(), "nothing is left behind in the extraction directory");
      }
    } finally {
      a.close();
      b.close();
    }
  }
}
