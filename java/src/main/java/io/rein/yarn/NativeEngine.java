package io.rein.yarn;

import java.util.Map;

/**
 * One rein engine (one job) in librein, behind an opaque handle.
 *
 * <p>Every method is synchronized with {@link #close()}, which zeroes the handle before freeing
 * it, so use after close fails with a {@link ReinNativeException} and a second close does
 * nothing. Native failures arrive as {@link ReinNativeException}; a bad configuration value as
 * {@link ReinConfigException}.
 */
final class NativeEngine implements AutoCloseable {
  /** The ABI this class speaks; {@code rust/jni/src/glue.rs} defines the same number. */
  static final int ABI_VERSION = 9;

  static final int EV_JOB_CREATED = 1;
  static final int EV_TASK_INPUT = 2;
  static final int EV_CONTAINER_NEED = 3;
  static final int EV_ATTEMPT_STARTED = 4;
  static final int EV_ATTEMPT_STATUS = 5;
  static final int EV_ATTEMPT_FINISHED = 6;
  static final int EV_CAPACITY = 7;
  static final int EV_NODE_LOST = 8;
  static final int EV_COPY_DROPPED = 9;
  static final int EV_TASK_OUTPUT = 10;
  static final int EV_KILL_DROPPED = 11;
  /** A node's name and rack for an id (value); a start then names the node by id + 1 (ABI 8). */
  static final int EV_NODE_NAMED = 12;

  static final int OUTCOME_SUCCEEDED = 0;
  static final int OUTCOME_FAILED = 1;
  static final int OUTCOME_KILLED = 2;

  private long handle;
  /** Events given to the engine and the calls that carried them, for the AM log's cost line. */
  private long eventsSent;
  private long calls;
  private final String policy;
  private final long maxCopiesPerScan;
  private final String[] warnings;

  private NativeEngine(long handle) {
    this.handle = handle;
    String[] lines = describe(handle).split("\n", -1);
    this.policy = lines[0];
    this.maxCopiesPerScan = Long.parseLong(lines[1]);
    this.warnings = java.util.Arrays.copyOfRange(lines, 2, lines.length);
  }

  /** Creates an engine from {@code rein.*} keys; the library must be loaded. */
  static NativeEngine create(Map<String, String> config) {
    String[] keys = config.keySet().toArray(new String[0]);
    String[] values = new String[keys.length];
    for (int i = 0; i < keys.length; i++) {
      values[i] = config.get(keys[i]);
    }
    long h = create(keys, values);
    if (h == 0) {
      throw new ReinNativeException("librein returned no engine");
    }
    try {
      return new NativeEngine(h);
    } catch (RuntimeException e) {
      close(h);
      throw e;
    }
  }

  String policy() {
    return policy;
  }

  /** The engine's {@code rein.max-copies-per-scan}, as it parsed it (0: no bound). */
  long maxCopiesPerScan() {
    return maxCopiesPerScan;
  }

  String[] warnings() {
    return warnings.clone();
  }

  synchronized void event(long nowMs, int kind, int taskKind, int taskIndex, int attempt,
      double progress, long value, long value2, String node, String rack) {
    long h = open();
    eventsSent++;
    calls++;
    event(h, nowMs, kind, taskKind, taskIndex, attempt, progress, value, value2, node, rack);
  }

  /** {events given to the engine, the calls that carried them} so far. */
  synchronized long[] sent() {
    return new long[] {eventsSent, calls};
  }

  /**
   * Gives the engine the batch's events in one call, in order, and empties the batch (ABI 9). At
   * the first event the engine cannot read it throws, naming it; those before it were taken.
   */
  synchronized void events(EventBatch batch) {
    try {
      if (batch.size > 0) {
        long h = open();
        eventsSent += batch.size;
        calls++;
        events(h, batch.size, batch.ints, batch.longs, batch.progress);
      }
    } finally {
      batch.size = 0;
    }
  }

  /**
   * Events without strings, packed for one crossing into the engine ({@link #events}): a
   * progress report's own crossing cost about as much as the engine's work on it, several times
   * over. Not thread-safe; the shim fills and sends one under its engine lock.
   */
  static final class EventBatch {
    /** Ints per event: kind, task kind, task index, attempt ({@code glue::BATCH_INTS}). */
    static final int INTS = 4;
    /** Longs per event: time, value, value2 ({@code glue::BATCH_LONGS}). */
    static final int LONGS = 3;
    final int[] ints;
    final long[] longs;
    final double[] progress;
    int size;

    EventBatch(int capacity) {
      ints = new int[capacity * INTS];
      longs = new long[capacity * LONGS];
      progress = new double[capacity];
    }

    boolean isFull() {
      return size == progress.length;
    }

    void add(long at, int kind, int taskKind, int taskIndex, int attempt, double p, long value, long value2) {
      int i = size * INTS;
      int l = size * LONGS;
      ints[i] = kind;
      ints[i + 1] = taskKind;
      ints[i + 2] = taskIndex;
      ints[i + 3] = attempt;
      longs[l] = at;
      longs[l + 1] = value;
      longs[l + 2] = value2;
      progress[size++] = p;
    }
  }

  /** The engine's actions at {@code nowMs}, decoded from its typed records. */
  synchronized EngineAction[] decide(long nowMs) {
    return EngineAction.decode(decide(open(), nowMs));
  }

  /** The decision log's records since the last call, one JSON object a line; empty when off. */
  synchronized String records() {
    String out = records(open());
    return out == null ? "" : out;
  }

  /** The decision log's summary record at {@code nowMs}. */
  synchronized String summary(long nowMs) {
    return summary(open(), nowMs);
  }

  /**
   * Return on investment so far: copies asked, launched, won, container milliseconds of copies
   * and killed attempts, estimated job milliseconds saved.
   */
  synchronized long[] roi() {
    String[] f = roi(open()).split("\t");
    long[] out = new long[f.length];
    for (int i = 0; i < f.length; i++) {
      out[i] = Long.parseLong(f[i]);
    }
    return out;
  }

  @Override
  public synchronized void close() {
    if (handle != 0) {
      long h = handle;
      handle = 0;
      close(h);
    }
  }

  private long open() {
    if (handle == 0) {
      throw new ReinNativeException("the rein engine is closed");
    }
    return handle;
  }

  static native int abiVersion();

  private static native long create(String[] keys, String[] values);

  private static native String describe(long handle);

  private static native void event(long handle, long nowMs, int kind, int taskKind, int taskIndex,
      int attempt, double progress, long value, long value2, String node, String rack);

  private static native void events(long handle, int count, int[] ints, long[] longs, double[] progress);

  /** {@code {int[] records, String[] strings}}: see {@link EngineAction#decode}. */
  private static native Object[] decide(long handle, long nowMs);

  private static native String records(long handle);

  private static native String summary(long handle, long nowMs);

  private static native String roi(long handle);

  private static native void close(long handle);
}
