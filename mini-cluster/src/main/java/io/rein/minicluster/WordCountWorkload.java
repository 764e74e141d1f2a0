package io.rein.minicluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.WordCount;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/**
 * Hadoop's WordCount (the examples' mapper, combiner and reducer) over generated text whose word
 * counts are known, so every run's output can be checked exactly.
 */
public final class WordCountWorkload {
  private static final int VOCABULARY = 5000;

  private final Path input;
  private final Map<String, Long> expected = new HashMap<>();

  /** Writes {@code files} text files of about {@code bytesPerFile} bytes each; one map per file. */
  public WordCountWorkload(Configuration conf, Path input, int files, long bytesPerFile, long seed)
      throws IOException {
    this(conf, input, java.util.Collections.nCopies(files, bytesPerFile).stream().mapToLong(Long::longValue).toArray(),
        seed);
  }

  /** Writes one text file per entry of {@code fileBytes}, of about that size; one map per file. */
  public WordCountWorkload(Configuration conf, Path input, long[] fileBytes, long seed) throws IOException {
    this.input = input;
    FileSystem fs = input.getFileSystem(conf);
    fs.delete(input, true);
    fs.mkdirs(input);
    Random random = new Random(seed);
    String[] words = new String[VOCABULARY];
    for (int i = 0; i < VOCABULARY; i++) {
      words[i] = "w" + Integer.toString(i * 7919 + 13, 36);
    }
    for (int f = 0; f < fileBytes.length; f++) {
      long bytesPerFile = fileBytes[f];
      try (OutputStream out = fs.create(new Path(input, String.format("part-%03d.txt", f)))) {
        StringBuilder line = new StringBuilder();
        long written = 0;
        while (written < bytesPerFile) {
          line.setLength(0);
          for (int w = 0; w < 12; w++) {
            // Skewed word frequencies, as in natural text.
            double u = random.nextDouble();
            String word = words[(int) (VOCABULARY * u * u * u)];
            expected.merge(word, 1L, Long::sum);
            line.append(word).append(w == 11 ? '\n' : ' ');
          }
          byte[] bytes = line.toString().getBytes(StandardCharsets.UTF_8);
          out.write(bytes);
          written += bytes.length;
        }
      }
    }
  }

  public Job job(Configuration conf, Path output, String name) throws IOException {
    Job job = Job.getInstance(conf, name);
    job.setJarByClass(WordCount.class);
    job.setMapperClass(WordCount.TokenizerMapper.class);
    job.setCombinerClass(WordCount.IntSumReducer.class);
    job.setReducerClass(WordCount.IntSumReducer.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(IntWritable.class);
    FileInputFormat.addInputPath(job, input);
    FileOutputFormat.setOutputPath(job, output);
    return job;
  }

  /** True when the job's output holds exactly the generated word counts. */
  public boolean verify(Configuration conf, Path output) throws IOException {
    FileSystem fs = output.getFileSystem(conf);
    Map<String, Long> seen = new HashMap<>();
    for (FileStatus st : fs.listStatus(output, p -> p.getName().startsWith("part-"))) {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(fs.open(st.getPath()),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          String[] kv = line.split("\t");
          if (kv.length != 2 || seen.put(kv[0], Long.parseLong(kv[1])) != null) {
            return false;
          }
        }
      }
    }
    return seen.equals(expected);
  }
}
