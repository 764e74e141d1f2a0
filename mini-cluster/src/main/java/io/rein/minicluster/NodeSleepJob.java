package io.rein.minicluster;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.output.NullOutputFormat;

/**
 * A sleep job whose tasks sleep longer on slower nodes: LATE §5.4's reproducible workload. Each
 * task sleeps its base time times the factor of the NodeManager it runs on (found from the
 * container's {@code NM_PORT}), in small steps, so its progress grows steadily at the node's
 * speed. Maps emit keys spread over the reduces, so each reduce's progress also grows as it
 * works through its keys.
 */
public final class NodeSleepJob {
  static final String MAP_MS = "rein.bench.sleep.map-ms";
  static final String REDUCE_MS = "rein.bench.sleep.reduce-ms";
  /** {@code port=factor,port=factor}: the slowdown of each NodeManager, by its RPC port. */
  static final String FACTORS = "rein.bench.sleep.node-factors";
  /** Records each map reads (its progress steps), and keys each reduce works through. */
  static final int STEPS = 40;

  private NodeSleepJob() {}

  /** A sleep job of {@code maps} maps and {@code reduces} reduces; factors by NM port. */
  public static Job create(Configuration conf, String name, int maps, int reduces, long mapMs, long reduceMs,
      Map<Integer, Double> factorsByPort) throws IOException {
    Configuration c = new Configuration(conf);
    c.setInt(MRJobConfig.NUM_MAPS, maps);
    c.setLong(MAP_MS, mapMs);
    c.setLong(REDUCE_MS, reduceMs);
    StringBuilder f = new StringBuilder();
    for (Map.Entry<Integer, Double> e : new TreeMap<>(factorsByPort).entrySet()) {
      f.append(f.length() == 0 ? "" : ",").append(e.getKey()).append('=').append(e.getValue());
    }
    c.set(FACTORS, f.toString());
    Job job = Job.getInstance(c, name);
    // The tasks need this class: ship the jar it came from, or one made of its class directory.
    job.setJar(org.apache.hadoop.util.JarFinder.getJar(NodeSleepJob.class));
    job.setInputFormatClass(Splits.class);
    job.setMapperClass(SleepMapper.class);
    job.setMapOutputKeyClass(IntWritable.class);
    job.setMapOutputValueClass(NullWritable.class);
    job.setReducerClass(SleepReducer.class);
    job.setNumReduceTasks(reduces);
    job.setOutputFormatClass(NullOutputFormat.class);
    return job;
  }

  /** The records every reduce should see in all: one per key per map. */
  public static long expectedReduceRecords(int maps, int reduces) {
    return reduces == 0 ? 0 : (long) maps * STEPS * reduces;
  }

  /** This container's slowdown factor, 1 when its NM is not listed. */
  static double factor(Configuration conf) {
    String port = System.getenv("NM_PORT");
    for (String kv : conf.getTrimmedStrings(FACTORS)) {
      String[] p = kv.split("=");
      if (p.length == 2 && p[0].equals(port)) {
        return Double.parseDouble(p[1]);
      }
    }
    return 1.0;
  }

  static void sleep(long ms) throws IOException {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** Sleeps a step per record, then emits {@code STEPS} keys for each reduce. */
  public static final class SleepMapper extends Mapper<IntWritable, NullWritable, IntWritable, NullWritable> {
    private long stepMs;

    @Override
    protected void setup(Context context) {
      Configuration conf = context.getConfiguration();
      stepMs = Math.round(conf.getLong(MAP_MS, 10_000) * factor(conf) / STEPS);
      context.setStatus("sleeping at factor " + factor(conf));
    }

    @Override
    protected void map(IntWritable key, NullWritable value, Context context) throws IOException {
      sleep(stepMs);
      if (key.get() == STEPS - 1) {
        int keys = STEPS * context.getNumReduceTasks();
        try {
          for (int k = 0; k < keys; k++) {
            context.write(new IntWritable(k), NullWritable.get());
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", e);
        }
      }
    }
  }

  /** Sleeps a step per key; counts what it read in REDUCE_INPUT_RECORDS as usual. */
  public static final class SleepReducer extends Reducer<IntWritable, NullWritable, NullWritable, NullWritable> {
    private long stepMs;

    @Override
    protected void setup(Context context) {
      Configuration conf = context.getConfiguration();
      stepMs = Math.round(conf.getLong(REDUCE_MS, 5_000) * factor(conf) / STEPS);
    }

    @Override
    protected void reduce(IntWritable key, Iterable<NullWritable> values, Context context) throws IOException {
      for (NullWritable ignored : values) {
        // Drains the group so that the framework's progress follows the keys.
      }
      sleep(stepMs);
    }
  }

  /** {@code mapreduce.job.maps} empty splits, each yielding {@code STEPS} records. */
  public static final class Splits extends InputFormat<IntWritable, NullWritable> {
    @Override
    public List<InputSplit> getSplits(JobContext context) {
      List<InputSplit> out = new ArrayList<>();
      for (int i = 0; i < context.getConfiguration().getInt(MRJobConfig.NUM_MAPS, 1); i++) {
        out.add(new Empty());
      }
      return out;
    }

    @Override
    public RecordReader<IntWritable, NullWritable> createRecordReader(InputSplit split, TaskAttemptContext context) {
      return new RecordReader<IntWritable, NullWritable>() {
        private int next = 0;
        private final IntWritable key = new IntWritable();

        @Override
        public void initialize(InputSplit s, TaskAttemptContext c) {}

        @Override
        public boolean nextKeyValue() {
          if (next >= STEPS) {
            return false;
          }
          key.set(next++);
          return true;
        }

        @Override
        public IntWritable getCurrentKey() {
          return key;
        }

        @Override
        public NullWritable getCurrentValue() {
          return NullWritable.get();
        }

        @Override
        public float getProgress() {
          return Math.max(0, next - 1) / (float) STEPS;
        }

        @Override
        public void close() {}
      };
    }
  }

  /** A split with no data and no preferred location. */
  public static final class Empty extends InputSplit implements Writable {
    @Override
    public long getLength() {
      return 0;
    }

    @Override
    public String[] getLocations() {
      return new String[0];
    }

    @Override
    public void write(DataOutput out) {}

    @Override
    public void readFields(DataInput in) {}
  }
}
