package io.rein.minicluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.RandomTextWriter;
import org.apache.hadoop.examples.RandomWriter;
import org.apache.hadoop.examples.WordCount;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.SequenceFileInputFormat;
import org.apache.hadoop.mapreduce.lib.map.RegexMapper;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;
import org.apache.hadoop.mapreduce.lib.reduce.LongSumReducer;
import org.apache.hadoop.util.ToolRunner;

/**
 * One of the benchmark's jobs: Hadoop's Sort over RandomWriter data, Grep and WordCount over
 * RandomTextWriter text, or the node-factor sleep job. It makes its input once (with Hadoop's
 * own generators, run on the cluster with speculation off), builds the job, and digests the
 * job's output so that every run can be checked against the no-speculation run.
 */
abstract class BenchJob {
  /** What the benchmark's jobs are made of. */
  static final class Sizes {
    int maps = 12;
    int reduces = 2;
    long textBytesPerMap = 4L << 20;
    /** Text per even map in the skew scenario (its big map has four times it); 0: textBytesPerMap. */
    long skewTextBytesPerMap = 0;
    long sortBytesPerMap = 8L << 20;
    long sleepMapMs = 10_000;
    long sleepReduceMs = 5_000;
  }

  static final String[] NAMES = {"sort", "grep", "wordcount", "sleep"};

  final String name;
  final Sizes sizes;

  BenchJob(String name, Sizes sizes) {
    this.name = name;
    this.sizes = sizes;
  }

  static BenchJob named(String name, Sizes sizes) {
    switch (name) {
      case "sort":
        return new Sort(sizes);
      case "grep":
        return new Grep(sizes);
      case "wordcount":
        return new Count(sizes);
      case "sleep":
        return new Sleep(sizes);
      default:
        throw new IllegalArgumentException("unknown job '" + name + "'; known: " + String.join(", ", NAMES));
    }
  }

  /**
   * The input for {@code maps} maps, made under {@code inputs} unless already there. With
   * {@code skew}, the first map's input is four times its siblings' (four generated files
   * merged into one), so three fewer maps run.
   */
  abstract Path input(Configuration gen, Path inputs, int maps, boolean skew) throws Exception;

  /** The job over {@code input}; {@code nodeFactors} (NM port → slowdown) only matters to sleep. */
  abstract Job job(Configuration conf, Path input, Path output, int maps, Map<Integer, Double> nodeFactors)
      throws IOException;

  /**
   * The job as the examples jar's command line runs it (after the job's name and the generic
   * {@code -D} options): the cluster bed's way of submitting it.
   */
  List<String> cli(Path input, Path output) {
    throw new IllegalArgumentException("the " + name + " job has no command line in Hadoop's examples jar; "
        + "run it on the embedded bed (--bed embedded)");
  }

  /** A digest of the job's output: equal digests, equal output. */
  abstract String digest(Configuration conf, Path output, Job job) throws IOException, InterruptedException;

  /** Settings every benchmark job shares: one map per input file, never split. */
  static void oneMapPerFile(Job job) {
    job.getConfiguration().setLong(FileInputFormat.SPLIT_MINSIZE, 1L << 40);
  }

  /** Runs a generator unless its output is complete from an earlier run (marked by a file). */
  static Path generated(Configuration conf, Path dir, GeneratorRun gen) throws Exception {
    FileSystem fs = dir.getFileSystem(conf);
    Path ready = new Path(dir, "_READY");
    if (fs.exists(ready)) {
      return dir;
    }
    fs.delete(dir, true);
    gen.run(dir);
    fs.create(ready).close();
    return dir;
  }

  interface GeneratorRun {
    void run(Path dir) throws Exception;
  }

  /** The generated files ({@code part-*}) of a directory, by name. */
  static FileStatus[] parts(FileSystem fs, Path dir) throws IOException {
    FileStatus[] p = fs.listStatus(dir, x -> x.getName().startsWith("part-"));
    Arrays.sort(p, (a, b) -> a.getPath().getName().compareTo(b.getPath().getName()));
    return p;
  }

  /** Generated input with its first four files merged into one (by {@code merge}). */
  static Path skewed(Configuration conf, Path even, Path dir, Merger merge) throws Exception {
    return generated(conf, dir, out -> {
      FileSystem fs = dir.getFileSystem(conf);
      FileStatus[] p = parts(fs, even);
      if (p.length < 5) {
        throw new IllegalArgumentException("skew needs at least 5 maps, got " + p.length);
      }
      fs.mkdirs(out);
      merge.merge(fs, Arrays.copyOfRange(p, 0, 4), new Path(out, "part-00000"));
      for (int i = 4; i < p.length; i++) {
        org.apache.hadoop.fs.FileUtil.copy(fs, p[i].getPath(), fs, new Path(out, String.format("part-%05d", i - 3)),
            false, conf);
      }
    });
  }

  interface Merger {
    void merge(FileSystem fs, FileStatus[] from, Path to) throws IOException;
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** SHA-256 over the bytes of the output's part files in name order. */
  static String digestBytes(Configuration conf, Path output) throws IOException {
    FileSystem fs = output.getFileSystem(conf);
    MessageDigest md = sha256();
    byte[] buf = new byte[1 << 16];
    for (FileStatus st : parts(fs, output)) {
      try (InputStream in = fs.open(st.getPath())) {
        for (int n; (n = in.read(buf)) > 0; ) {
          md.update(buf, 0, n);
        }
      }
    }
    return hex(md.digest());
  }

  /** Text jobs share RandomTextWriter's output: lines of random words. */
  abstract static class TextJob extends BenchJob {
    TextJob(String name, Sizes sizes) {
      super(name, sizes);
    }

    @Override
    Path input(Configuration gen, Path inputs, int maps, boolean skew) throws Exception {
      long bytes = skew && sizes.skewTextBytesPerMap > 0 ? sizes.skewTextBytesPerMap : sizes.textBytesPerMap;
      Path even = generated(gen, new Path(inputs, "text-" + maps + "x" + bytes), dir -> {
        Configuration c = new Configuration(gen);
        c.setLong(RandomTextWriter.TOTAL_BYTES, maps * bytes);
        c.setLong(RandomTextWriter.BYTES_PER_MAP, bytes);
        int rc = ToolRunner.run(c, new RandomTextWriter(),
            new String[] {"-outFormat", TextOutputFormat.class.getName(), dir.toString()});
        if (rc != 0) {
          throw new IOException("RandomTextWriter failed with exit code " + rc);
        }
      });
      if (!skew) {
        return even;
      }
      return skewed(gen, even, new Path(inputs, "text-" + maps + "x" + bytes + "-skew"), (fs, from, to) -> {
        try (OutputStream out = fs.create(to)) {
          for (FileStatus f : from) {
            try (InputStream in = fs.open(f.getPath())) {
              IOUtils.copyBytes(in, out, 1 << 16, false);
            }
          }
        }
      });
    }

    @Override
    String digest(Configuration conf, Path output, Job job) throws IOException {
      return digestBytes(conf, output);
    }
    /** What the text jobs share: text keys out, the reduces, input and output, one map per file. */
    Job textJob(Job job, Path input, Path output) throws IOException {
      job.setOutputKeyClass(Text.class);
      job.setNumReduceTasks(sizes.reduces);
      FileInputFormat.addInputPath(job, input);
      FileOutputFormat.setOutputPath(job, output);
      oneMapPerFile(job);
      return job;
    }
  }

  /** Hadoop's WordCount: the examples' tokenizer, combiner and summing reducer. */
  static final class Count extends TextJob {
    Count(Sizes sizes) {
      super("wordcount", sizes);
    }

    @Override
    List<String> cli(Path input, Path output) {
      return List.of("-Dmapreduce.job.reduces=" + sizes.reduces, input.toString(), output.toString());
    }

    @Override
    Job job(Configuration conf, Path input, Path output, int maps, Map<Integer, Double> nodeFactors)
        throws IOException {
      Job job = Job.getInstance(conf, "bench-wordcount");
      job.setJarByClass(WordCount.class);
      job.setMapperClass(WordCount.TokenizerMapper.class);
      job.setCombinerClass(WordCount.IntSumReducer.class);
      job.setReducerClass(WordCount.IntSumReducer.class);
      job.setOutputValueClass(IntWritable.class);
      return textJob(job, input, output);
    }
  }

  /** Grep's search job: Hadoop's RegexMapper with a summing combiner and reducer. */
  static final class Grep extends TextJob {
    /** Words of RandomTextWriter's vocabulary that hold "ti" or end in "ly". */
    static final String PATTERN = "[a-z]*(ti|ly\\b)[a-z]*";

    Grep(Sizes sizes) {
      super("grep", sizes);
    }

    /** The examples' grep runs this search job and then a one-reduce job sorting matches by count. */
    @Override
    List<String> cli(Path input, Path output) {
      return List.of("-Dmapreduce.job.reduces=" + sizes.reduces, input.toString(), output.toString(), PATTERN);
    }

    @Override
    Job job(Configuration conf, Path input, Path output, int maps, Map<Integer, Double> nodeFactors)
        throws IOException {
      Job job = Job.getInstance(conf, "bench-grep");
      job.setJarByClass(RegexMapper.class);
      job.getConfiguration().set(RegexMapper.PATTERN, PATTERN);
      job.setMapperClass(RegexMapper.class);
      job.setCombinerClass(LongSumReducer.class);
      job.setReducerClass(LongSumReducer.class);
      job.setOutputValueClass(LongWritable.class);
      return textJob(job, input, output);
    }
  }

  /** Hadoop's Sort: identity map and reduce over RandomWriter's random byte records. */
  static final class Sort extends BenchJob {
    Sort(Sizes sizes) {
      super("sort", sizes);
    }

    @Override
    List<String> cli(Path input, Path output) {
      return List.of("-r", String.valueOf(sizes.reduces), input.toString(), output.toString());
    }

    @Override
    Path input(Configuration gen, Path inputs, int maps, boolean skew) throws Exception {
      long bytes = sizes.sortBytesPerMap;
      Path even = generated(gen, new Path(inputs, "random-" + maps + "x" + bytes), dir -> {
        Configuration c = new Configuration(gen);
        c.setLong(RandomWriter.TOTAL_BYTES, maps * bytes);
        c.setLong(RandomWriter.BYTES_PER_MAP, bytes);
        int rc = ToolRunner.run(c, new RandomWriter(), new String[] {dir.toString()});
        if (rc != 0) {
          throw new IOException("RandomWriter failed with exit code " + rc);
        }
      });
      if (!skew) {
        return even;
      }
      return skewed(gen, even, new Path(inputs, "random-" + maps + "x" + bytes + "-skew"), (fs, from, to) -> {
        Configuration conf = fs.getConf();
        try (SequenceFile.Writer w = SequenceFile.createWriter(conf, SequenceFile.Writer.file(fs.makeQualified(to)),
            SequenceFile.Writer.keyClass(BytesWritable.class), SequenceFile.Writer.valueClass(BytesWritable.class))) {
          BytesWritable k = new BytesWritable();
          BytesWritable v = new BytesWritable();
          for (FileStatus f : from) {
            try (SequenceFile.Reader r = new SequenceFile.Reader(conf, SequenceFile.Reader.file(f.getPath()))) {
              while (r.next(k, v)) {
                w.append(k, v);
              }
            }
          }
        }
      });
    }

    @Override
    Job job(Configuration conf, Path input, Path output, int maps, Map<Integer, Double> nodeFactors)
        throws IOException {
      Job job = Job.getInstance(conf, "bench-sort");
      job.setJarByClass(org.apache.hadoop.examples.Sort.class);
      job.setMapperClass(Mapper.class);
      job.setReducerClass(Reducer.class);
      job.setInputFormatClass(SequenceFileInputFormat.class);
      job.setOutputFormatClass(SequenceFileOutputFormat.class);
      job.setOutputKeyClass(BytesWritable.class);
      job.setOutputValueClass(BytesWritable.class);
      job.setNumReduceTasks(sizes.reduces);
      FileInputFormat.addInputPath(job, input);
      FileOutputFormat.setOutputPath(job, output);
      oneMapPerFile(job);
      return job;
    }

    /** The records in output order; "unsorted" when a part's keys are out of order. */
    @Override
    String digest(Configuration conf, Path output, Job job) throws IOException {
      FileSystem fs = output.getFileSystem(conf);
      MessageDigest md = sha256();
      long records = 0;
      for (FileStatus st : parts(fs, output)) {
        try (SequenceFile.Reader r = new SequenceFile.Reader(conf, SequenceFile.Reader.file(st.getPath()))) {
          BytesWritable prev = null;
          BytesWritable k = new BytesWritable();
          BytesWritable v = new BytesWritable();
          while (r.next(k, v)) {
            if (prev != null && prev.compareTo(k) > 0) {
              return "unsorted:" + st.getPath().getName();
            }
            md.update(k.getBytes(), 0, k.getLength());
            md.update(v.getBytes(), 0, v.getLength());
            records++;
            prev = new BytesWritable(Arrays.copyOf(k.getBytes(), k.getLength()));
          }
        }
      }
      return records + ":" + hex(md.digest());
    }
  }

  /** The node-factor sleep job; its "output" is the number of records the reduces read. */
  static final class Sleep extends BenchJob {
    Sleep(Sizes sizes) {
      super("sleep", sizes);
    }

    @Override
    Path input(Configuration gen, Path inputs, int maps, boolean skew) {
      if (skew) {
        throw new IllegalArgumentException("the sleep job has no input data to skew; use sort, grep or wordcount");
      }
      return null;
    }

    @Override
    Job job(Configuration conf, Path input, Path output, int maps, Map<Integer, Double> nodeFactors)
        throws IOException {
      return NodeSleepJob.create(conf, "bench-sleep", maps, sizes.reduces, sizes.sleepMapMs, sizes.sleepReduceMs,
          nodeFactors);
    }

    @Override
    String digest(Configuration conf, Path output, Job job) throws IOException, InterruptedException {
      long read = job.getCounters().findCounter(TaskCounter.REDUCE_INPUT_RECORDS).getValue();
      long expected = NodeSleepJob.expectedReduceRecords(job.getConfiguration().getInt(
          org.apache.hadoop.mapreduce.MRJobConfig.NUM_MAPS, 0), job.getNumReduceTasks());
      return read == expected ? "records:" + read : "records:" + read + "!=" + expected;
    }
  }

  /** Lower-case hex of {@code bytes} (the harness builds for Java 11, which has no HexFormat). */
  static String hex(byte[] bytes) {
    StringBuilder b = new StringBuilder(bytes.length * 2);
    for (byte x : bytes) {
      b.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
    }
    return b.toString();
  }
}
