package io.rein.yarn;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyDouble;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * A mocked engine put in a speculator's place: it records every event, alone or in a batch, as
 * "kind task-kind task attempt value value2 node" and decides nothing.
 */
final class EngineRecorder {
  final NativeEngine engine = mock(NativeEngine.class);
  final List<String> events = new CopyOnWriteArrayList<>();

  EngineRecorder() {
    doAnswer(inv -> {
      events.add(String.format(Locale.ROOT, "%d %d %d %d %d %d %s", (int) inv.getArgument(1),
          (int) inv.getArgument(2), (int) inv.getArgument(3), (int) inv.getArgument(4),
          (long) inv.getArgument(6), (long) inv.getArgument(7), (String) inv.getArgument(8)));
      return null;
    }).when(engine).event(anyLong(), anyInt(), anyInt(), anyInt(), anyInt(), anyDouble(), anyLong(), anyLong(),
        any(), any());
    doAnswer(inv -> {
      NativeEngine.EventBatch b = inv.getArgument(0);
      for (int k = 0; k < b.size; k++) {
        int i = k * NativeEngine.EventBatch.INTS;
        int l = k * NativeEngine.EventBatch.LONGS;
        events.add(String.format(Locale.ROOT, "%d %d %d %d %d %d %s", b.ints[i], b.ints[i + 1], b.ints[i + 2],
            b.ints[i + 3], b.longs[l + 1], b.longs[l + 2], null));
      }
      b.size = 0;
      return null;
    }).when(engine).events(any());
    when(engine.decide(anyLong())).thenReturn(new EngineAction[0]);
    when(engine.records()).thenReturn("");
    when(engine.roi()).thenReturn(new long[5]);
  }

  /** Puts this engine into {@code s} in place of the one it created. */
  EngineRecorder into(ReinSpeculator s) throws ReflectiveOperationException {
    Field field = ReinSpeculator.class.getDeclaredField("engine");
    field.setAccessible(true);
    field.set(s, engine);
    return this;
  }

  List<String> ofKind(int kind) {
    return events.stream().filter(e -> e.startsWith(kind + " ")).collect(Collectors.toList());
  }
}
