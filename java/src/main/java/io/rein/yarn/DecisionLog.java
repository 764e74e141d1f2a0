package io.rein.yarn;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.v2.api.records.JobId;
import org.apache.hadoop.mapreduce.v2.jobhistory.JobHistoryUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's decision log: JSON lines the engine writes (decisions, outcomes, the summary), put on
 * the cluster's file system by the shim. Opened on the first line; bounded in size; an I/O
 * failure is logged once and ends the log, never the job.
 *
 * <p>{@code auto} puts it in the job history's intermediate-done directory for the job's user,
 * where the AM copies the job's {@code .jhist} when the job ends (the staging directory beside
 * the live {@code .jhist} is deleted with the job). The JobHistoryServer moves only the
 * history's own files out of that directory, so the log stays there.
 */
final class DecisionLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DecisionLog.class);

  static final String KEY = "rein.decision-log";
  static final String KEY_MAX_BYTES = "rein.decision-log.max-bytes";
  static final long DEFAULT_MAX_BYTES = 16L << 20;

  private final Configuration conf;
  private final Path path;
  private final long maxBytes;
  private OutputStream out;
  private long written;
  private boolean failed;
  private boolean truncated;
  private boolean dirty;

  private DecisionLog(Configuration conf, Path path, long maxBytes) {
    this.conf = conf;
    this.path = path;
    this.maxBytes = maxBytes;
  }

  /** Whether the job's configuration turns the log on. */
  static boolean enabled(Configuration conf) {
    String v = conf.get(KEY, "auto").trim();
    return !(v.equals("off") || v.equals("false") || v.equals("none") || v.isEmpty());
  }

  /** The log for a job, or null when it is off. */
  static DecisionLog forJob(Configuration conf, JobId jobId) throws IOException {
    if (!enabled(conf)) {
      return null;
    }
    long max = ReinSpeculator.parseLong(KEY_MAX_BYTES,
        conf.get(KEY_MAX_BYTES, Long.toString(DEFAULT_MAX_BYTES)), 4096, 1L << 30);
    return new DecisionLog(conf, where(conf, jobId), max);
  }

  /** A directory gets {@code JOBID.rein-decisions.jsonl}; a value ending in .jsonl is the file. */
  static Path where(Configuration conf, JobId jobId) throws IOException {
    String v = conf.get(KEY, "auto").trim();
    String name = jobId + ".rein-decisions.jsonl";
    if (v.equals("auto")) {
      return new Path(JobHistoryUtils.getHistoryIntermediateDoneDirForUser(conf), name);
    }
    return v.endsWith(".jsonl") ? new Path(v) : new Path(v, name);
  }

  Path path() {
    return path;
  }

  /** Appends one record, unless the bound is reached (then once a {@code truncated} record). */
  void write(String json) {
    if (written + json.length() + 1 > maxBytes) {
      if (!truncated) {
        truncated = true;
        append("{\"record\":\"truncated\",\"max_bytes\":" + maxBytes + "}");
      }
      return;
    }
    append(json);
  }

  /** Appends one record past the bound too: the summary. */
  void writeAlways(String json) {
    append(json);
  }

  private void append(String json) {
    if (failed) {
      return;
    }
    try {
      if (out == null) {
        FileSystem fs = path.getFileSystem(conf);
        if (fs instanceof LocalFileSystem) {
          // No .crc file beside the log, and a flush that reaches the file.
          fs = ((LocalFileSystem) fs).getRaw();
        }
        out = fs.create(path, true);
        LOG.info("rein: the decision log is {}", fs.makeQualified(path));
      }
      byte[] line = (json + "\n").getBytes(StandardCharsets.UTF_8);
      out.write(line);
      written += line.length;
      dirty = true;
    } catch (IOException | RuntimeException e) {
      failed = true;
      LOG.warn("rein: the decision log {} cannot be written ({}); it ends here", path, e.toString());
    }
  }

  /** Makes what was written visible to readers (hflush on HDFS). */
  void flush() {
    if (failed || out == null || !dirty) {
      return;
    }
    dirty = false;
    try {
      if (out instanceof FSDataOutputStream) {
        ((FSDataOutputStream) out).hflush();
      } else {
        out.flush();
      }
    } catch (IOException | RuntimeException e) {
      failed = true;
      LOG.warn("rein: the decision log {} cannot be flushed ({}); it ends here", path, e.toString());
    }
  }

  @Override
  public void close() {
    failed = true; // nothing after close: a second open would truncate the file
    if (out == null) {
      return;
    }
    try {
      out.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn("rein: the decision log {} did not close cleanly ({})", path, e.toString());
    }
    out = null;
  }
}
