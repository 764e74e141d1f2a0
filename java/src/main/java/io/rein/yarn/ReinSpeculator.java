package io.rein.yarn;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.v2.api.records.JobId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptCompletionEvent;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptState;
import org.apache.hadoop.mapreduce.v2.api.records.TaskId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskState;
import org.apache.hadoop.mapreduce.v2.api.records.TaskType;
import org.apache.hadoop.mapreduce.v2.app.AppContext;
import org.apache.hadoop.mapreduce.v2.app.job.Job;
import org.apache.hadoop.mapreduce.v2.app.job.Task;
import org.apache.hadoop.mapreduce.v2.app.job.TaskAttempt;
import org.apache.hadoop.mapreduce.v2.app.job.event.JobCounterUpdateEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskAttemptKillEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskAttemptStatusUpdateEvent.TaskAttemptStatus;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEventType;
import org.apache.hadoop.mapreduce.v2.app.rm.ContainerFailedEvent;
import org.apache.hadoop.mapreduce.v2.app.speculate.DefaultSpeculator;
import org.apache.hadoop.mapreduce.v2.app.speculate.Speculator;
import org.apache.hadoop.mapreduce.v2.app.speculate.SpeculatorEvent;
import org.apache.hadoop.mapreduce.v2.util.MRBuilderUtils;
import org.apache.hadoop.service.AbstractService;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.util.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hadoop's {@link Speculator} backed by the rein engine (librein).
 *
 * <p>Enable with {@code yarn.app.mapreduce.am.job.speculator.class=io.rein.yarn.ReinSpeculator}
 * and choose a policy with {@code rein.policy}. The shim holds no policy logic: {@link #handle}
 * copies an event's fields into a queue, and a scan thread hands the queued events to the engine,
 * learns what Hadoop sends no event for (an attempt's node, its end) from the attempts those
 * events and the job's completion feed name (see {@link #observeChanges}), asks the engine to
 * decide, re-checks each action against the job's current state and carries it out.
 *
 * <p>{@link #handle} runs on the AM's only dispatcher thread, so it never waits for the engine:
 * every call into the engine is made under {@code engineLock}, which a scan holds from start to
 * end, and {@link #handle} only takes it when it is free ({@code tryLock}), to deliver a few
 * queued events early. Events reach the engine in the order {@link #handle} received them.
 *
 * <p>Nothing here may fail the job: if the library cannot load, the configuration is bad, or the
 * engine fails later, the cause is logged once and the job continues under Hadoop's
 * {@link DefaultSpeculator} ({@code rein.fallback=stock}, the default) or without speculation
 * ({@code rein.fallback=none}).
 */
public class ReinSpeculator extends AbstractService implements Speculator {
  private static final Logger LOG = LoggerFactory.getLogger(ReinSpeculator.class);

  static final String KEY_FALLBACK = "rein.fallback";
  static final String KEY_NATIVE_LIBRARY = "rein.native.library";
  static final String KEY_EXTRACT_DIR = "rein.native.extract-dir";
  static final String KEY_SCAN_INTERVAL = "rein.scan-interval-ms";
  /** Read by the engine (which sends a reason for that many copies a scan); named in the log. */
  static final String KEY_LOG_COPIES = "rein.log.copies-per-scan";
  /** Read by the engine (the copies of stragglers one scan asks for at most), which reports it; named in the log. */
  static final String KEY_MAX_COPIES = "rein.max-copies-per-scan";
  static final String KEY_ENABLED = "rein.enabled";
  static final String KEY_MODE = "rein.mode";
  static final String KEY_NEVER_COPY_FORMATS = "rein.never-copy.output-formats";
  static final String KEY_NEVER_COPY_COMMITTERS = "rein.never-copy.committers";
  /** Output formats known to write outside the job's output directory (config.rs has the same). */
  static final String[] SIDE_EFFECT_FORMATS = {
    "org.apache.hadoop.mapreduce.lib.db.DBOutputFormat",
    "org.apache.hadoop.mapred.lib.db.DBOutputFormat",
    "org.apache.hadoop.hbase.mapreduce.TableOutputFormat",
  };

  /**
   * Events the queue holds before it drops progress reports. It fills only while a scan holds
   * the engine, and even a scan of 100,000 tasks (a fraction of a second) sees far fewer
   * reports than this: an attempt reports every 3 s.
   */
  static final int QUEUE_CAPACITY = 1 << 16;
  /**
   * Events a delivery gives the engine in one call. {@link #handle} delivers only once this many
   * are queued, so that the dispatcher crosses into the engine once for that many events (a
   * progress report's crossing alone cost several times the engine's work on it); a scan
   * delivers whatever is queued before it decides, so a decision sees the same events as before.
   */
  static final int DELIVER_BATCH = 64;

  private final Configuration conf;
  private final AppContext context;
  private final Clock clock;
  private final boolean fallbackToStock;
  private final long scanIntervalMs;
  /** {@link #KEY_MAX_COPIES} as the engine parsed it (0: no bound, or no engine), for the log line of a scan that reaches it. */
  private final long maxCopiesPerScan;
  /**
   * Shadow mode: Hadoop's DefaultSpeculator, which runs the job while rein only decides and
   * logs; it gets every event first. Null when rein acts.
   */
  private final Speculator shadowStock;
  /** rein.enabled=false: the job runs under DefaultSpeculator by choice, not as a fallback. */
  private final boolean optedOut;

  /** The engine rein created, if any; closed in serviceStop. */
  private final NativeEngine created;
  /** The engine in use: {@link #created}, or null once rein has handed the job to the fallback. */
  private volatile NativeEngine engine;
  /** Held for every call into the engine after construction. */
  private final ReentrantLock engineLock = new ReentrantLock();
  /** During a scan's actions (scan thread, engine lock held): counts to send as one update. */
  private long[] scanTally;
  /** Copies of the current scan carried out (or, in shadow mode, logged) without their own line. */
  private long copiesUnlogged;
  /** The queued events being handed over, one crossing's worth; used under {@link #engineLock}. */
  private final NativeEngine.EventBatch batch = new NativeEngine.EventBatch(DELIVER_BATCH);
  /** Events from {@link #handle} not yet given to the engine, oldest first. */
  private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
  /** The queue's length ({@code ConcurrentLinkedQueue.size()} walks the queue). */
  private final AtomicInteger pendingCount = new AtomicInteger();
  private final AtomicLong droppedReports = new AtomicLong();
  /** Hadoop's DefaultSpeculator after a fallback to stock; null otherwise. */
  private volatile Speculator fallback;
  private volatile boolean fellBack;
  private volatile boolean fallbackCounted;
  private volatile JobId jobId;
  private volatile boolean stopped;
  private Thread scanner;

  /**
   * Held while {@link #handle} routes an event (to the engine's queue or to the fallback) and
   * while {@link #fallBack} switches: every event is either counted below and queued before the
   * switch, or handed to the fallback after its replay. Uncontended but for the switch itself.
   */
  private final Object switchLock = new Object();
  /** Net containers wanted per task type (map, reduce) from the events seen, for the replay. */
  private final int[] containerNeeds = new int[2];
  /** A task of each type that a container-need event named, null until one did. */
  private final TaskId[] containerNeedTask = new TaskId[2];

  /**
   * A full walk of the job's attempts is made on the first scan and then once every this many
   * scans (once a minute at the default interval), as a safety net for what neither an event
   * nor the job's completion feed named (see {@link #scanOnce}). Every scan walks the job when
   * the job offers no completion feed.
   */
  static final int RECONCILE_EVERY_SCANS = 60;
  /** Completion events read from the job at a time. */
  static final int COMPLETIONS_PER_CALL = 1024;

  /** Scan-thread state: the last state of each attempt the engine has been told of. */
  private final Map<TaskAttemptId, TaskAttemptState> told = new HashMap<>();
  /**
   * Scan-thread state: the id the engine knows each node by, and the rack it was named with
   * (see {@link #nodeRef}).
   */
  private final Map<NodeId, NamedNode> nodeIds = new HashMap<>();

  /** A node's id for the engine and the rack it was last named with. */
  private static final class NamedNode {
    final int id;
    final String rack;

    NamedNode(int id, String rack) {
      this.id = id;
      this.rack = rack;
    }
  }
  /**
   * Attempts named by an event or a completion since the last scan, which the next scan looks
   * at (its node, its end); guarded by {@link #engineLock}.
   */
  private final Set<TaskAttemptId> touched = new LinkedHashSet<>();
  /** Started attempts whose node Hadoop had not set yet: looked at again on each scan. */
  private final Set<TaskAttemptId> unplaced = new LinkedHashSet<>();
  /** The next index into the job's attempt-completion events. */
  private int completionCursor;
  /** False once the job has shown it keeps no completion feed: every scan then walks the job. */
  private boolean completionFeed = true;
  private long scans;
  /** Attempts looked at by scans so far (for tests and benchmarks). */
  private long attemptsLookedAt;
  /**
   * What rein's scans cost this AM, logged when it stops with the engine's count of events and
   * calls: scans made, the scan thread's time in them in all and in the slowest (CPU time, or
   * wall time where the JVM cannot tell a thread's). Under {@link #engineLock}.
   */
  private long scansTimed;
  private long scanNanos;
  private long slowestScanNanos;
  /** Nodes reported lost to the engine. */
  private final Set<String> lostNodes = new HashSet<>();
  private boolean jobAnnounced;
  /** Whether the job was seen to run as an uber job (logged once; rein then stands aside). */
  private boolean uberNoted;
  /** How the scan finds the container allocator; tests give their own. */
  Function<AppContext, Object> allocatorLookup = c -> {
    try {
      return AmIntrospection.findAllocator(c);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e.toString(), e);
    }
  };
  private AmIntrospection introspection;
  private boolean introspectionWarned;
  private final Resource mapContainer;
  private final Resource reduceContainer;
  private long lastTotalSlots = -1;
  private long lastFreeSlots = -1;
  /** Scan-thread state: the decision log (null when off or not yet opened). */
  private DecisionLog log;
  private boolean logOpened;
  /** The engine's return on investment as last counted into the job counters. */
  private final long[] roiCounted = new long[5];

  public ReinSpeculator(Configuration conf, AppContext context) {
    super(ReinSpeculator.class.getName());
    this.conf = conf;
    this.context = context;
    this.clock = context.getClock();
    this.mapContainer = AmIntrospection.container(conf, TaskType.MAP);
    this.reduceContainer = AmIntrospection.container(conf, TaskType.REDUCE);

    boolean toStock = true;
    long interval = 1000;
    boolean on = true;
    boolean shadowMode = false;
    NativeEngine made = null;
    Throwable cause = null;
    try {
      toStock = parseFallback(conf.get(KEY_FALLBACK, "stock"));
      interval = parseLong(KEY_SCAN_INTERVAL, conf.get(KEY_SCAN_INTERVAL, "1000"), 10, 600_000);
      on = parseChoice(KEY_ENABLED, conf.get(KEY_ENABLED, "true"), "true", "false");
      shadowMode = !parseChoice(KEY_MODE, conf.get(KEY_MODE, "act"), "act", "shadow");
      if (on) {
        String from = NativeLoader.load(conf.get(KEY_NATIVE_LIBRARY), conf.get(KEY_EXTRACT_DIR));
        made = NativeEngine.create(engineKeys(conf));
        LOG.info("rein: policy {}{} (librein from {})", made.policy(),
            shadowMode ? ", shadow mode: Hadoop's DefaultSpeculator runs the job" : "", from);
        for (String w : made.warnings()) {
          LOG.warn("rein: {}", w);
        }
      }
    } catch (Throwable t) {
      cause = t;
    }
    this.fallbackToStock = toStock;
    this.scanIntervalMs = interval;
    this.maxCopiesPerScan = made == null ? 0 : made.maxCopiesPerScan();
    this.created = made;
    this.engine = made;
    this.optedOut = cause == null && !on;
    this.shadowStock = made != null && shadowMode ? new DefaultSpeculator(conf, context) : null;
    if (cause != null) {
      fallBack("rein could not start", cause);
    } else if (optedOut) {
      LOG.info("rein: {}=false; the job runs under Hadoop's DefaultSpeculator", KEY_ENABLED);
      fallback = new DefaultSpeculator(conf, context);
    }
  }

  /** True for {@code yes}, false for {@code no}; anything else is a configuration error. */
  static boolean parseChoice(String key, String value, String yes, String no) {
    String v = value.trim();
    if (v.equals(yes) || v.equals(no)) {
      return v.equals(yes);
    }
    throw new ReinConfigException(
        "invalid value '" + value + "' for " + key + ": allowed " + yes + " | " + no);
  }

  static boolean parseFallback(String value) {
    switch (value.trim()) {
      case "stock":
        return true;
      case "none":
        return false;
      default:
        throw new ReinConfigException(
            "invalid value '" + value + "' for " + KEY_FALLBACK + ": allowed stock | none");
    }
  }

  static long parseLong(String key, String value, long lo, long hi) {
    try {
      long v = Long.parseLong(value.trim());
      if (v >= lo && v <= hi) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below with the range
    }
    throw new ReinConfigException(
        "invalid value '" + value + "' for " + key + ": allowed [" + lo + ", " + hi + "]");
  }

  /** Every {@code rein.*} key of the job, values expanded as Hadoop would. */
  static Map<String, String> reinKeys(Configuration conf) {
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, String> e : conf) {
      if (e.getKey().startsWith("rein.")) {
        out.put(e.getKey(), conf.get(e.getKey()));
      }
    }
    return out;
  }

  /**
   * What the engine is configured with: the job's {@code rein.*} keys and Hadoop's per-type
   * speculation switches, as Hadoop reads them. The engine sees every task either way; a switch
   * only stops it acting on tasks of that type (so Mantri still plans reduces from the maps).
   */
  static Map<String, String> engineKeys(Configuration conf) {
    Map<String, String> out = reinKeys(conf);
    out.put(MRJobConfig.MAP_SPECULATIVE, Boolean.toString(conf.getBoolean(MRJobConfig.MAP_SPECULATIVE, true)));
    out.put(MRJobConfig.REDUCE_SPECULATIVE, Boolean.toString(conf.getBoolean(MRJobConfig.REDUCE_SPECULATIVE, true)));
    String writer = sideEffectWriter(conf);
    if (writer != null) {
      // The tasks that write the job's output: its reduces, or its maps in a map-only job.
      String type = conf.getInt(MRJobConfig.NUM_REDUCES, 1) > 0 ? MRJobConfig.REDUCE_SPECULATIVE
          : MRJobConfig.MAP_SPECULATIVE;
      out.put(type, "false");
      LOG.info("rein: the job writes through {}, listed in {} or {}: rein never copies, restarts or moves "
          + "the tasks that write its output ({}=false for rein)", writer, KEY_NEVER_COPY_FORMATS,
          KEY_NEVER_COPY_COMMITTERS, type);
    }
    for (Map.Entry<String, String> e : conf) {
      if (e.getKey().startsWith("mapreduce.job.speculative.")) {
        out.put(e.getKey(), conf.get(e.getKey()));
      }
    }
    out.put(DecisionLog.KEY, DecisionLog.enabled(conf) ? "auto" : "off");
    return out;
  }

  /**
   * The job's output format or committer class if {@code rein.never-copy.*} lists it: output
   * written outside the task's own attempt directory (a database, a table) is written twice by
   * two copies of a task.
   */
  static String sideEffectWriter(Configuration conf) {
    Set<String> formats = new HashSet<>();
    for (String f : conf.getTrimmedStrings(KEY_NEVER_COPY_FORMATS, SIDE_EFFECT_FORMATS)) {
      formats.add(f);
    }
    for (String key : new String[] {MRJobConfig.OUTPUT_FORMAT_CLASS_ATTR, "mapred.output.format.class"}) {
      String v = conf.getTrimmed(key);
      if (v != null && formats.contains(v)) {
        return v;
      }
    }
    Set<String> committers = new HashSet<>();
    for (String c : conf.getTrimmedStrings(KEY_NEVER_COPY_COMMITTERS)) {
      committers.add(c);
    }
    if (committers.isEmpty()) {
      return null;
    }
    for (Map.Entry<String, String> e : conf) {
      String key = e.getKey();
      boolean committerKey = key.equals("mapred.output.committer.class")
          || key.equals("mapreduce.outputcommitter.factory.class")
          || key.startsWith("mapreduce.outputcommitter.factory.scheme.");
      String v = committerKey ? conf.getTrimmed(key) : null;
      if (v != null && committers.contains(v)) {
        return v;
      }
    }
    return null;
  }

  /** Hadoop's DefaultSpeculator that runs the job in shadow mode; null when rein acts. */
  Speculator shadowSpeculator() {
    return shadowStock;
  }

  /** True while the rein engine (not a fallback) drives this job. */
  public boolean isActive() {
    return engine != null;
  }

  // ---------------------------------------------------------------- lifecycle

  @Override
  protected void serviceInit(Configuration c) throws Exception {
    super.serviceInit(c);
    Speculator fb = fallback;
    if (fb instanceof Service) {
      ((Service) fb).init(c);
    }
    if (shadowStock instanceof Service) {
      ((Service) shadowStock).init(c);
    }
  }

  @Override
  protected void serviceStart() throws Exception {
    if (shadowStock instanceof Service) {
      ((Service) shadowStock).start();
    }
    Speculator fb = fallback;
    if (fb instanceof Service) {
      ((Service) fb).start();
    } else if (engine != null) {
      scanner = new Thread(this::scanLoop, "rein-scanner");
      scanner.setDaemon(true);
      scanner.start();
    }
    super.serviceStart();
  }

  /** How long serviceStop waits for the scan thread, and then for the engine, at most. */
  static final long STOP_WAIT_MS = 5_000;

  /**
   * Stops the scan thread and the fallback and frees the engine. Never throws, and returns within
   * about {@code 2 * STOP_WAIT_MS}: a scan stuck in the engine keeps it, which is then leaked
   * rather than freed under that scan (the AM is shutting down).
   */
  @Override
  protected void serviceStop() throws Exception {
    stopped = true;
    try {
      Thread t = scanner;
      if (t != null) {
        t.interrupt();
        t.join(STOP_WAIT_MS);
        if (t.isAlive()) {
          LOG.warn("rein: the scan thread did not stop within {} ms", STOP_WAIT_MS);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Speculator other : new Speculator[] {fallback, shadowStock}) {
      try {
        if (other instanceof Service) {
          ((Service) other).stop();
        }
      } catch (Throwable t) {
        LOG.warn("rein: Hadoop's speculator failed to stop", t);
      }
    }
    engine = null;
    if (created != null) {
      // After a delivery handle() may be making (later ones see no engine), and even when a
      // fallback could not close it.
      boolean locked = false;
      try {
        locked = engineLock.tryLock(STOP_WAIT_MS, TimeUnit.MILLISECONDS);
        if (locked) {
          finishLog(created);
          created.close();
          String cost = overheadLine(created);
          if (cost != null) {
            LOG.info(cost);
          }
        } else {
          LOG.warn("rein: the engine is still busy after {} ms; it is left open", STOP_WAIT_MS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Throwable t) {
        LOG.warn("rein: the engine failed to close", t);
      } finally {
        if (locked) {
          engineLock.unlock();
        }
      }
    }
    long dropped = droppedReports.get();
    if (dropped > 0) {
      LOG.warn("rein: {} progress reports were dropped because the engine fell behind", dropped);
    }
    try {
      super.serviceStop();
    } catch (Throwable t) {
      LOG.warn("rein: stopping the service failed", t);
    }
  }

  // ---------------------------------------------------------------- events (dispatcher thread)

  @Override
  public void handle(SpeculatorEvent event) {
    Speculator stock = shadowStock;
    if (stock != null) {
      // It runs the job: it sees each event first, and fails as it would without rein.
      stock.handle(event);
    }
    try {
      Speculator fb;
      boolean queued = false;
      synchronized (switchLock) {
        if (event.getType() == Speculator.EventType.JOB_CREATE) {
          jobId = event.getJobID();
          countFallbackOnce();
        } else if (event.getType() == Speculator.EventType.TASK_CONTAINER_NEED_UPDATE) {
          int type = event.getTaskID().getTaskType() == TaskType.MAP ? 0 : 1;
          containerNeeds[type] += event.containersNeededChange();
          containerNeedTask[type] = event.getTaskID();
        }
        fb = fallback;
        if (fb == null && engine != null) {
          Pending p = Pending.of(event, clock);
          if (p != null) {
            enqueue(p);
            queued = true;
          }
        }
      }
      if (fb != null) {
        fb.handle(event);
      } else if (queued && pendingCount.get() >= DELIVER_BATCH) {
        deliverIfIdle();
      }
    } catch (Throwable t) {
      fallBack("rein failed on a " + event.getType() + " event", t);
    }
  }

  @Override
  public void handleAttempt(TaskAttemptStatus status) {
    // Hadoop never calls this; status arrives as ATTEMPT_STATUS_UPDATE events.
  }

  /**
   * Queues an event for the engine. When the queue is full a progress report is dropped (the
   * attempt's next report replaces it) and counted; starts and container-need changes are
   * always queued: there are a few per attempt, and a lost container-need change would stay
   * wrong for the rest of the job.
   */
  private void enqueue(Pending p) {
    if (pendingCount.incrementAndGet() > QUEUE_CAPACITY && p.kind == NativeEngine.EV_ATTEMPT_STATUS) {
      pendingCount.decrementAndGet();
      if (droppedReports.getAndIncrement() == 0) {
        LOG.warn("rein: the engine is {} events behind; progress reports are dropped until it catches up",
            QUEUE_CAPACITY);
      }
      return;
    }
    pending.add(p);
  }

  /** Delivers one batch of queued events if no scan holds the engine; never waits for one. */
  private void deliverIfIdle() {
    if (!engineLock.tryLock()) {
      return; // the scan delivers them before it decides
    }
    try {
      NativeEngine e = engine;
      if (e != null) {
        deliver(e, DELIVER_BATCH);
      }
    } finally {
      engineLock.unlock();
    }
  }

  /**
   * Gives the engine up to {@code max} queued events, oldest first, {@link #DELIVER_BATCH} to a
   * call. Hold {@link #engineLock}.
   */
  private void deliver(NativeEngine e, int max) {
    for (int i = 0; i < max; i++) {
      Pending p = pending.poll();
      if (p == null) {
        break;
      }
      pendingCount.decrementAndGet();
      batch.add(p.at, p.kind, p.taskKind, p.taskIndex, p.attempt, p.progress, p.value, 0);
      if (p.attemptId != null) {
        touched.add(p.attemptId); // the scan learns its node
      }
      if (batch.isFull()) {
        e.events(batch);
      }
    }
    if (batch.size > 0) {
      e.events(batch);
    }
  }

  /** An event's fields, copied on the dispatcher thread. */
  private static final class Pending {
    final long at;
    final int kind;
    final int taskKind;
    final int taskIndex;
    final int attempt;
    final double progress;
    final long value;
    /** The attempt a start names, for the scan to look at; null for other events. */
    final TaskAttemptId attemptId;

    private Pending(long at, int kind, TaskId task, int attempt, double progress, long value) {
      this(at, kind, task, attempt, progress, value, null);
    }

    private Pending(long at, int kind, TaskId task, int attempt, double progress, long value, TaskAttemptId id) {
      this.attemptId = id;
      this.at = at;
      this.kind = kind;
      this.taskKind = task.getTaskType() == TaskType.MAP ? 0 : 1;
      this.taskIndex = task.getId();
      this.attempt = attempt;
      this.progress = progress;
      this.value = value;
    }

    /** The engine's view of a dispatcher event, or null for events the engine does not take. */
    static Pending of(SpeculatorEvent event, Clock clock) {
      long at = event.getTimestamp() > 0 ? event.getTimestamp() : clock.getTime();
      switch (event.getType()) {
        case ATTEMPT_START: {
          TaskAttemptId a = event.getReportedStatus().id;
          return new Pending(at, NativeEngine.EV_ATTEMPT_STARTED, a.getTaskId(), a.getId(), 0, 0, a);
        }
        case ATTEMPT_STATUS_UPDATE: {
          TaskAttemptStatus s = event.getReportedStatus();
          int phase = s.phase == null ? 0 : s.phase.ordinal();
          return new Pending(at, NativeEngine.EV_ATTEMPT_STATUS, s.id.getTaskId(), s.id.getId(), s.progress, phase);
        }
        case TASK_CONTAINER_NEED_UPDATE:
          return new Pending(at, NativeEngine.EV_CONTAINER_NEED, event.getTaskID(), 0, 0,
              event.containersNeededChange());
        default:
          return null;
      }
    }
  }

  private static void send(NativeEngine e, long now, int kind, TaskId task, int attempt, double progress,
      long value, long value2, String node, String rack) {
    int taskKind = task.getTaskType() == TaskType.MAP ? 0 : 1;
    e.event(now, kind, taskKind, task.getId(), attempt, progress, value, value2, node, rack);
  }

  // ---------------------------------------------------------------- scan thread

  private void scanLoop() {
    while (!stopped && engine != null) {
      try {
        Thread.sleep(scanIntervalMs);
      } catch (InterruptedException ie) {
        return;
      }
      scanNow();
    }
  }

  /** One scan, now; a failure hands the job to the fallback. The scan thread runs it. */
  void scanNow() {
    NativeEngine e = engine;
    if (e == null || stopped) {
      return;
    }
    engineLock.lock();
    long t0 = scanClock();
    try {
      if (engine == e) {
        scanOnce(e);
      }
    } catch (Throwable t) {
      if (!stopped) {
        fallBack("rein's scan failed", t);
      }
    } finally {
      long took = scanClock() - t0;
      scansTimed++;
      scanNanos += took;
      slowestScanNanos = Math.max(slowestScanNanos, took);
      engineLock.unlock();
    }
  }

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();
  private static final boolean SCAN_CPU_TIME = cpuTimeSupported();

  private static boolean cpuTimeSupported() {
    try {
      return THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();
    } catch (Throwable t) {
      return false;
    }
  }

  /** This thread's CPU time in ns, or the wall clock's where the JVM cannot tell it. */
  private static long scanClock() {
    return SCAN_CPU_TIME ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
  }

  /** What rein's scans have cost this AM so far: {scans, ns in them in all, ns in the slowest}. */
  long[] scanTime() {
    engineLock.lock();
    try {
      return new long[] {scansTimed, scanNanos, slowestScanNanos};
    } finally {
      engineLock.unlock();
    }
  }

  /** The AM log's line of what rein cost it, at stop; null before any scan. Never throws. */
  private String overheadLine(NativeEngine e) {
    if (scansTimed == 0) {
      return null;
    }
    long[] sent;
    try {
      sent = e.sent();
    } catch (Throwable t) {
      return null;
    }
    return String.format(java.util.Locale.ROOT, "rein: %d scans took %.1f ms of the scan thread's %s in all (%.3f ms"
        + " a scan, the slowest %.3f ms); %d events reached the engine in %d calls", scansTimed, scanNanos / 1e6,
        SCAN_CPU_TIME ? "CPU time" : "wall time", scanNanos / 1e6 / scansTimed, slowestScanNanos / 1e6, sent[0],
        sent[1]);
  }

  private void scanOnce(NativeEngine e) {
    JobId id = jobId;
    Job job = id == null ? null : context.getJob(id);
    if (job == null) {
      return;
    }
    if (job.isUber()) {
      // Its tasks run one after another inside this AM: there is nothing to speculate, and a
      // copy asked for would have no container to go to.
      if (!uberNoted) {
        uberNoted = true;
        LOG.info("rein: job {} runs as an uber job inside the ApplicationMaster; rein takes no action", id);
      }
      return;
    }
    long now = clock.getTime();
    // Queued events first: they happened before the ends this walk may find.
    deliver(e, pendingCount.get());
    if (!jobAnnounced) {
      announce(e, now, job);
    }
    reportCapacity(e, now, job);
    observeChanges(e, now, job);
    deliver(e, pendingCount.get());
    EngineAction[] actions = e.decide(now);
    if (engine != e) {
      return; // handed to the fallback meanwhile, which now speculates alone
    }
    // A burst of copies is logged by its first rein.log.copies-per-scan (the engine sends a
    // reason for those only) and counted in one line; its counters go out as one update.
    copiesUnlogged = 0;
    scanTally = new long[ReinCounters.values().length];
    long speculated = 0;
    try {
      for (EngineAction action : actions) {
        if (action.verb == EngineAction.Verb.SPECULATE) {
          speculated++;
        }
        if (shadowStock != null) {
          shadow(action);
        } else {
          apply(e, job, now, action);
        }
      }
    } finally {
      flushTally();
    }
    if (copiesUnlogged > 0) {
      LOG.info("rein: and {} more {} this scan, not logged one by one (past {}; the decision log, when on, has"
          + " each with its reason)", copiesUnlogged, shadowStock != null ? "would-be copies" : "copies", KEY_LOG_COPIES);
    }
    if (maxCopiesPerScan > 0 && speculated >= maxCopiesPerScan) {
      LOG.info("rein: this scan {} {} straggler(s), the most {} allows; late tasks left over are judged again"
          + " at the next scan", shadowStock != null ? "would copy" : "copies", speculated, KEY_MAX_COPIES);
    }
    record(e, id);
  }

  /**
   * Tells the engine what changed since the last scan, looking only at the attempts that
   * changed: those an ATTEMPT_START named (their node), those the job's completion feed
   * ({@link Job#getTaskAttemptCompletionEvents}, one event per attempt that ended, and OBSOLETE
   * for a success Hadoop took back) names since the last scan, and started attempts still
   * without a node. Hadoop sends a speculator no event when an attempt ends; that feed is where
   * the job records it. On the first scan, every {@link #RECONCILE_EVERY_SCANS} scans, and on
   * every scan of a job without the feed, it walks every attempt instead (what an attempt
   * recovered by a restarted AM, or any end the feed missed, needs).
   */
  private void observeChanges(NativeEngine e, long now, Job job) {
    boolean walk = scans++ % RECONCILE_EVERY_SCANS == 0 || !completionFeed;
    if (completionFeed) {
      readCompletions(job);
    }
    walk |= !completionFeed;
    if (walk) {
      for (Task task : job.getTasks().values()) {
        for (TaskAttempt a : task.getAttempts().values()) {
          observe(e, now, a);
          attemptsLookedAt++;
        }
      }
    }
    touched.addAll(unplaced);
    unplaced.clear();
    for (TaskAttemptId id : touched) {
      Task task = job.getTask(id.getTaskId());
      TaskAttempt a = task == null ? null : task.getAttempt(id);
      if (a == null) {
        continue;
      }
      if (!walk) {
        attemptsLookedAt++;
        observe(e, now, a);
      }
      if (!told.containsKey(id) && !ended(a.getState())) {
        unplaced.add(id);
      }
    }
    touched.clear();
  }

  private static boolean ended(TaskAttemptState state) {
    return state == TaskAttemptState.SUCCEEDED || state == TaskAttemptState.FAILED
        || state == TaskAttemptState.KILLED;
  }

  /** Adds the attempts the job's completion feed names since the last read to {@link #touched}. */
  private void readCompletions(Job job) {
    while (true) {
      TaskAttemptCompletionEvent[] ends;
      try {
        ends = job.getTaskAttemptCompletionEvents(completionCursor, COMPLETIONS_PER_CALL);
      } catch (UnsupportedOperationException ex) {
        ends = null;
      }
      if (ends == null) {
        completionFeed = false;
        LOG.info("rein: the job keeps no attempt-completion feed; each scan walks every attempt");
        return;
      }
      completionCursor += ends.length;
      for (TaskAttemptCompletionEvent end : ends) {
        if (end != null && end.getAttemptId() != null) {
          touched.add(end.getAttemptId());
        }
      }
      if (ends.length < COMPLETIONS_PER_CALL) {
        return;
      }
    }
  }

  /** Scans so far and the attempts they looked at: {scans, attempts}. */
  long[] scanCost() {
    engineLock.lock();
    try {
      return new long[] {scans, attemptsLookedAt};
    } finally {
      engineLock.unlock();
    }
  }

  /** Shadow mode: an action is logged and counted, never carried out. */
  private void shadow(EngineAction action) {
    count(ReinCounters.SHADOW_ACTIONS, 1);
    if (action.reason == null) {
      copiesUnlogged += Math.max(action.copies, 1);
      return;
    }
    LOG.info("rein (shadow): would {} {}_{} {}: {}", action.verb.lower(), action.isMap() ? "m" : "r", action.taskIndex,
        action.attempt >= 0 ? "attempt " + action.attempt : "x" + Math.max(action.copies, 1), action.reason);
  }

  /**
   * Writes the engine's new decision-log records and counts its return on investment. The log
   * is opened on the first scan that knows the job; failing to open it ends the log, not rein.
   */
  private void record(NativeEngine e, JobId id) {
    if (!logOpened) {
      logOpened = true;
      try {
        log = DecisionLog.forJob(conf, id);
        if (log != null) {
          log.write("{\"record\":\"job\",\"job\":\"" + id + "\",\"policy\":\"" + e.policy()
              + "\",\"mode\":\"" + (shadowStock != null ? "shadow" : "act") + "\",\"abi\":"
              + NativeEngine.ABI_VERSION + "}");
        }
      } catch (Throwable t) {
        LOG.warn("rein: no decision log for this job ({})", t.toString());
      }
    }
    String records = e.records();
    if (log != null && !records.isEmpty()) {
      for (String r : records.split("\n")) {
        if (!r.isEmpty()) {
          log.write(r);
        }
      }
      log.flush();
    }
    long[] roi = e.roi();
    if (shadowStock != null) {
      countDelta(ReinCounters.SHADOW_ESTIMATED_SECONDS_SAVED, roi[4] / 1000, roiCounted[4] / 1000);
    } else {
      countDelta(ReinCounters.COPIES_STARTED, roi[1], roiCounted[1]);
      countDelta(ReinCounters.COPIES_WON, roi[2], roiCounted[2]);
      countDelta(ReinCounters.COPY_CONTAINER_SECONDS, roi[3] / 1000, roiCounted[3] / 1000);
      countDelta(ReinCounters.ESTIMATED_SECONDS_SAVED, roi[4] / 1000, roiCounted[4] / 1000);
    }
    System.arraycopy(roi, 0, roiCounted, 0, Math.min(roi.length, roiCounted.length));
  }

  /** The last records and the summary, when the AM stops; never throws. Hold engineLock. */
  private void finishLog(NativeEngine e) {
    DecisionLog l = log;
    if (l == null) {
      return;
    }
    try {
      if (fellBack) {
        return; // the engine was retired mid-job; its records end where it failed
      }
      deliver(e, pendingCount.get()); // what handle() queued since the last scan, for the summary
      for (String r : e.records().split("\n")) {
        if (!r.isEmpty()) {
          l.write(r);
        }
      }
      l.writeAlways(e.summary(clock.getTime()));
    } catch (Throwable t) {
      LOG.warn("rein: the decision log's summary could not be written ({})", t.toString());
    } finally {
      l.close();
    }
  }

  /** Adds {@code now - before} to a counter, negative too (an estimate can shrink). */
  private void countDelta(ReinCounters counter, long now, long before) {
    JobId id = jobId;
    if (id != null && now != before) {
      JobCounterUpdateEvent update = new JobCounterUpdateEvent(id);
      update.addCounterUpdate(counter, now - before);
      context.getEventHandler().handle(update);
    }
  }

  /** Tells the engine the job's shape: task counts and each map's input bytes. */
  private void announce(NativeEngine e, long now, Job job) {
    e.event(now, NativeEngine.EV_JOB_CREATED, 0, 0, 0, 0, job.getTotalMaps(), job.getTotalReduces(), null, null);
    int unknown = 0;
    for (Task task : job.getTasks(TaskType.MAP).values()) {
      long bytes = AmIntrospection.splitBytes(task);
      if (bytes >= 0) {
        send(e, now, NativeEngine.EV_TASK_INPUT, task.getID(), 0, 0, bytes, 0, null, null);
      } else {
        unknown++;
      }
    }
    if (unknown > 0) {
      LOG.info("rein: split sizes of {} maps are unknown; policies treat maps as equal in size", unknown);
    }
    jobAnnounced = true;
  }

  /**
   * Reports the job's slots (resource limit) and free slots (headroom) when they change, in
   * containers of the size the job's maps ask for while maps remain, then of its reduces'. The
   * allocator is looked up again on every scan until it exists: it starts after the speculator.
   */
  private void reportCapacity(NativeEngine e, long now, Job job) {
    if (introspection == null) {
      try {
        Object allocator = allocatorLookup.apply(context);
        if (allocator != null) {
          introspection = new AmIntrospection(allocator);
        }
      } catch (Throwable t) {
        if (!introspectionWarned) {
          introspectionWarned = true;
          LOG.warn("rein: the job's headroom is not visible ({}); slots come from rein.cluster.slots or "
              + "the job's observed footprint", t.toString());
        }
      }
      if (introspection == null) {
        return;
      }
    }
    boolean mapsLeft = job.getCompletedMaps() < job.getTotalMaps();
    long[] slots = introspection.slots(mapsLeft ? mapContainer : reduceContainer);
    if (slots == null || slots[0] <= 0 || (slots[0] == lastTotalSlots && slots[1] == lastFreeSlots)) {
      return;
    }
    lastTotalSlots = slots[0];
    lastFreeSlots = slots[1];
    e.event(now, NativeEngine.EV_CAPACITY, 0, 0, 0, 0, slots[0], slots[1], null, null);
  }

  /** {total, free} slots last reported to the engine; -1 before any. */
  long[] reportedCapacity() {
    return new long[] {lastTotalSlots, lastFreeSlots};
  }

  /**
   * The engine's reference to a node for an attempt's start: its id plus one. A node is named
   * with its rack once, by id, and again only if its rack changes, so that a start crosses JNI
   * without strings (two strings made a start about 1.4 µs dearer than one without).
   */
  private long nodeRef(NativeEngine e, long now, NodeId node, String rack) {
    NamedNode named = nodeIds.get(node);
    if (named == null || !Objects.equals(named.rack, rack)) {
      int id = named == null ? nodeIds.size() : named.id;
      e.event(now, NativeEngine.EV_NODE_NAMED, 0, 0, 0, 0, id, 0, node.toString(), rack);
      named = new NamedNode(id, rack);
      nodeIds.put(node, named);
    }
    return named.id + 1L;
  }

  /**
   * Tells the engine where an attempt runs once it has a node, and how it ended. A succeeded
   * attempt is watched on: Hadoop kills it when its node becomes unusable and fails it when its
   * reduces cannot fetch its output, and re-runs the task; the engine then reopens the task. A
   * kill Hadoop explains by an unusable node reports that node lost.
   */
  private void observe(NativeEngine e, long now, TaskAttempt a) {
    TaskAttemptId id = a.getID();
    TaskAttemptState before = told.get(id);
    if (before == null) {
      NodeId node = a.getNodeId();
      if (node == null) {
        return;
      }
      long start = a.getLaunchTime() > 0 ? a.getLaunchTime() : now;
      send(e, start, NativeEngine.EV_ATTEMPT_STARTED, id.getTaskId(), id.getId(), 0,
          nodeRef(e, start, node, a.getNodeRackName()), 0, null, null);
      before = TaskAttemptState.RUNNING;
      told.put(id, before);
    }
    if (before == TaskAttemptState.FAILED || before == TaskAttemptState.KILLED) {
      return;
    }
    TaskAttemptState state = a.getState();
    int outcome;
    if (state == TaskAttemptState.SUCCEEDED && before != TaskAttemptState.SUCCEEDED) {
      outcome = NativeEngine.OUTCOME_SUCCEEDED;
    } else if (state == TaskAttemptState.FAILED) {
      outcome = NativeEngine.OUTCOME_FAILED;
    } else if (state == TaskAttemptState.KILLED) {
      outcome = NativeEngine.OUTCOME_KILLED;
    } else {
      return;
    }
    long end = before == TaskAttemptState.SUCCEEDED || a.getFinishTime() <= 0 ? now : a.getFinishTime();
    if (outcome == NativeEngine.OUTCOME_SUCCEEDED && id.getTaskId().getTaskType() == TaskType.MAP) {
      long bytes = mapOutputBytes(a);
      if (bytes >= 0) {
        send(e, end, NativeEngine.EV_TASK_OUTPUT, id.getTaskId(), id.getId(), 0, bytes, 0, null, null);
      }
    }
    send(e, end, NativeEngine.EV_ATTEMPT_FINISHED, id.getTaskId(), id.getId(), 0, outcome, 0, null, null);
    told.put(id, state);
    if (outcome == NativeEngine.OUTCOME_KILLED && a.getNodeId() != null && onUnusableNode(a)) {
      String node = a.getNodeId().toString();
      if (lostNodes.add(node)) {
        LOG.info("rein: node {} is unusable (Hadoop killed {} there)", node, id);
        send(e, now, NativeEngine.EV_NODE_LOST, id.getTaskId(), id.getId(), 0, 0, 0, node, null);
      }
    }
  }

  /**
   * Whether Hadoop killed the attempt because its node became unusable: {@code JobImpl} (for a
   * succeeded map) and {@code RMContainerAllocator} (for a running attempt) both give the kill
   * the diagnostic "TaskAttempt killed because it ran on unusable node".
   */
  static boolean onUnusableNode(TaskAttempt a) {
    List<String> diagnostics = a.getDiagnostics();
    if (diagnostics != null) {
      for (String d : diagnostics) {
        if (d != null && d.contains("because it ran on unusable node")) {
          return true;
        }
      }
    }
    return false;
  }

  /** What a finished map wrote for its reduces (materialized, as shuffled), or -1 if unknown. */
  private static long mapOutputBytes(TaskAttempt a) {
    Counters counters = a.getCounters();
    if (counters == null) {
      return -1;
    }
    Counter c = counters.findCounter(TaskCounter.MAP_OUTPUT_MATERIALIZED_BYTES);
    return c == null ? -1 : c.getValue();
  }

  /** Carries out one engine action after checking it is still legal. */
  void apply(NativeEngine e, Job job, long now, EngineAction action) {
    TaskType type = action.isMap() ? TaskType.MAP : TaskType.REDUCE;
    TaskId taskId = MRBuilderUtils.newTaskId(job.getID(), action.taskIndex, type);
    Task task = job.getTask(taskId);
    // T_ADD_SPEC_ATTEMPT is legal only while the task RUNS; anywhere else it fails the job.
    boolean taskRunning = task != null && task.getState() == TaskState.RUNNING;
    switch (action.verb) {
      case SPECULATE:
      case CLONE: {
        int copies = action.verb == EngineAction.Verb.CLONE ? action.copies : 1;
        if (!taskRunning) {
          drop(e, now, taskId, action, copies, "the task is not running");
          return;
        }
        for (int i = 0; i < copies; i++) {
          context.getEventHandler().handle(new TaskEvent(taskId, TaskEventType.T_ADD_SPEC_ATTEMPT));
        }
        count(action.verb == EngineAction.Verb.CLONE ? ReinCounters.CLONES : ReinCounters.SPECULATIVE_LAUNCHED, copies);
        if (action.reason == null) {
          copiesUnlogged += copies;
          return;
        }
        LOG.info("rein: {} {} x{} (avoid nodes [{}]{}): {}", action.verb.lower(), taskId, copies,
            action.avoidNodes(), action.preferRack.isEmpty() ? "" : ", prefer rack " + action.preferRack,
            action.reason);
        return;
      }
      case RESTART:
      case VETO:
      case MOVE: {
        boolean veto = action.verb == EngineAction.Verb.VETO;
        boolean placing = veto || action.verb == EngineAction.Verb.MOVE;
        TaskAttemptId attemptId = MRBuilderUtils.newTaskAttemptId(taskId, action.attempt);
        TaskAttempt attempt = task == null ? null : task.getAttempt(attemptId);
        // Only a live attempt of an unfinished task: killing a succeeded map loses its output
        // (an attempt past TA_DONE, in SUCCESS_FINISHING_CONTAINER, already reads SUCCEEDED;
        // one committing reads COMMIT_PENDING). A vetoed copy or a moved reduce may still be
        // starting (it has a container, not yet a JVM): killing it then wastes the least.
        TaskAttemptState state = attempt == null ? null : attempt.getState();
        boolean live = state == TaskAttemptState.RUNNING || (placing && state == TaskAttemptState.STARTING);
        // A reduce is moved as soon as its container is assigned, before its task is RUNNING:
        // TaskImpl takes an attempt's kill while SCHEDULED too, and schedules a replacement.
        boolean taskLive = taskRunning
            || (action.verb == EngineAction.Verb.MOVE && task != null && task.getState() == TaskState.SCHEDULED);
        if (!taskLive || !live) {
          // The engine charged the kill to the task's budget (and booked a veto's replacement).
          send(e, now, NativeEngine.EV_KILL_DROPPED, taskId, action.attempt, 0, 0, 0, null, null);
          count(ReinCounters.ACTIONS_DROPPED, 1);
          LOG.info("rein: dropped {} of {}: it is no longer running", action.verb.lower(), attemptId);
          return;
        }
        // Hadoop replaces a killed attempt of an unfinished task. For a veto or a move the
        // replacement is rescheduled: it asks for a container anywhere rather than on the split's
        // hosts, which may be what put the copy on the avoided node.
        context.getEventHandler().handle(new TaskAttemptKillEvent(
            attemptId, "rein " + action.verb.lower() + ": " + action.reason, placing));
        count(veto ? ReinCounters.VETOES : placing ? ReinCounters.MOVES : ReinCounters.RESTARTS, 1);
        LOG.info("rein: {} {}: {}", action.verb.lower(), attemptId, action.reason);
        if (action.blockNode() != null) {
          blockNode(attemptId, action.blockNode());
        }
        return;
      }
      default:
        throw new ReinNativeException("unknown action from librein: " + action);
    }
  }

  /**
   * Keeps the job's later containers off a node through the AM's own job-level node blacklist:
   * the container allocator blacklists a host once it has been told of
   * {@code mapreduce.job.maxtaskfailures.per.tracker} container failures there, and within its
   * own limit ({@code yarn.app.mapreduce.am.job.node-blacklisting.ignore-threshold-node-percent})
   * on the share of nodes it will avoid. The events go through the AM's dispatcher, the same
   * path a failed attempt takes.
   */
  private void blockNode(TaskAttemptId attemptId, String node) {
    if (!conf.getBoolean(MRJobConfig.MR_AM_JOB_NODE_BLACKLISTING_ENABLE, true)) {
      LOG.warn("rein: cannot keep the job off {}: {} is false", node, MRJobConfig.MR_AM_JOB_NODE_BLACKLISTING_ENABLE);
      return;
    }
    int failures = Math.max(1, conf.getInt(MRJobConfig.MAX_TASK_FAILURES_PER_TRACKER, 3));
    for (int i = 0; i < failures; i++) {
      context.getEventHandler().handle(new ContainerFailedEvent(attemptId, node));
    }
    count(ReinCounters.NODES_BLOCKED, 1);
    LOG.info("rein: keeping the job's later containers off {} (the AM's node blacklist, {} reports)", node, failures);
  }

  private void drop(NativeEngine e, long now, TaskId taskId, EngineAction action, int copies, String why) {
    for (int i = 0; i < copies; i++) {
      send(e, now, NativeEngine.EV_COPY_DROPPED, taskId, 0, 0, 0, 0, null, null);
    }
    count(ReinCounters.ACTIONS_DROPPED, 1);
    LOG.info("rein: dropped {} of {}: {}", action.verb.lower(), taskId, why);
  }

  /** Counts now, or at the end of the scan's actions when the scan thread is carrying them out. */
  private void count(ReinCounters counter, long n) {
    long[] tally = scanTally;
    if (tally != null && engineLock.isHeldByCurrentThread()) {
      tally[counter.ordinal()] += n;
      return;
    }
    JobId id = jobId;
    if (id != null && n > 0) {
      JobCounterUpdateEvent update = new JobCounterUpdateEvent(id);
      update.addCounterUpdate(counter, n);
      context.getEventHandler().handle(update);
    }
  }

  /** Sends the scan's counts as one counter update. */
  private void flushTally() {
    long[] tally = scanTally;
    scanTally = null;
    JobId id = jobId;
    if (tally == null || id == null) {
      return;
    }
    JobCounterUpdateEvent update = null;
    for (ReinCounters c : ReinCounters.values()) {
      if (tally[c.ordinal()] > 0) {
        if (update == null) {
          update = new JobCounterUpdateEvent(id);
        }
        update.addCounterUpdate(c, tally[c.ordinal()]);
      }
    }
    if (update != null) {
      context.getEventHandler().handle(update);
    }
  }

  // ---------------------------------------------------------------- fallback

  private void countFallbackOnce() {
    if (engine == null && !optedOut && !fallbackCounted && jobId != null) {
      fallbackCounted = true;
      count(ReinCounters.FALLBACK, 1);
    }
  }

  /**
   * Hands the job to the fallback for good. Logs the cause once; never throws. The fallback is
   * told the job as {@link #handle} has seen it (see {@link #replayTo}) under {@link #switchLock},
   * so that every event reaches it exactly once: through the replay, or after it.
   */
  private synchronized void fallBack(String why, Throwable cause) {
    if (fellBack) {
      return;
    }
    fellBack = true;
    if (shadowStock != null) {
      LOG.error("rein: {}; shadow mode ends, Hadoop's DefaultSpeculator runs on. Cause: {}", why,
          cause.toString(), cause);
      NativeEngine e;
      synchronized (switchLock) {
        e = detachEngine();
        countFallbackOnce();
      }
      closeIfFree(e);
      return;
    }
    String what = fallbackToStock ? "Hadoop's DefaultSpeculator" : "no speculation";
    LOG.error("rein: {}; the job continues under {}. Cause: {}", why, what, cause.toString(), cause);
    NativeEngine e;
    synchronized (switchLock) {
      e = detachEngine();
      try {
        countFallbackOnce();
        if (fallbackToStock) {
          DefaultSpeculator stock = new DefaultSpeculator(conf, context);
          if (isInState(STATE.INITED) || isInState(STATE.STARTED)) {
            stock.init(getConfig());
          }
          replayTo(stock);
          if (isInState(STATE.STARTED)) {
            stock.start();
          }
          fallback = stock;
        }
      } catch (Throwable t) {
        LOG.error("rein: the fallback speculator could not start either; the job runs without speculation", t);
      }
    }
    closeIfFree(e);
  }

  /** Takes the engine out of use, dropping the events queued for it; the caller holds switchLock. */
  private NativeEngine detachEngine() {
    NativeEngine e = engine;
    engine = null;
    pending.clear();
    pendingCount.set(0);
    return e;
  }

  /**
   * Closes a retired engine now unless another thread is in it (the dispatcher must not wait
   * for a scan); serviceStop closes it then.
   */
  private void closeIfFree(NativeEngine e) {
    if (e == null || !engineLock.tryLock()) {
      return;
    }
    try {
      e.close();
    } catch (Throwable ignored) {
      // the engine is abandoned either way
    } finally {
      engineLock.unlock();
    }
  }

  /**
   * Tells a fallback that starts mid-job what Hadoop told rein: the job; each type's net
   * container need ({@code DefaultSpeculator} considers a type only once it has had a
   * container-need event, and skips it while a task of that type waits for a container); and
   * each running or succeeded attempt, its start and its latest status or its end, so that it
   * can estimate at once.
   * Hold {@link #switchLock}.
   */
  private void replayTo(Speculator stock) {
    JobId id = jobId;
    if (id == null) {
      return;
    }
    long now = clock.getTime();
    stock.handle(new SpeculatorEvent(id, now));
    for (int type = 0; type < 2; type++) {
      if (containerNeedTask[type] != null) {
        stock.handle(new SpeculatorEvent(containerNeedTask[type], containerNeeds[type]));
      }
    }
    Job job = context.getJob(id);
    if (job == null) {
      return;
    }
    for (Task task : job.getTasks().values()) {
      for (TaskAttempt a : task.getAttempts().values()) {
        TaskAttemptState state = a.getState();
        boolean succeeded = state == TaskAttemptState.SUCCEEDED;
        if ((state != TaskAttemptState.RUNNING && !succeeded) || a.getLaunchTime() <= 0) {
          continue;
        }
        // A success reported at its finish time gives the estimator the task's duration.
        stock.handle(new SpeculatorEvent(a.getID(), false, a.getLaunchTime()));
        TaskAttemptStatus status = new TaskAttemptStatus();
        status.id = a.getID();
        status.progress = succeeded ? 1.0f : a.getProgress();
        status.phase = a.getPhase();
        status.taskState = state;
        status.stateString = state.toString();
        stock.handle(new SpeculatorEvent(status, succeeded && a.getFinishTime() > 0 ? a.getFinishTime() : now));
      }
    }
  }
}
