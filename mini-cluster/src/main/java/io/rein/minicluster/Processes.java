package io.rein.minicluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** The embedded cluster's container processes, found by command line, and signals to them. */
final class Processes {
  private Processes() {}

  /** A process: its pid and NUL-separated command line. */
  static final class Proc {
    final long pid;
    final String cmdline;

    Proc(long pid, String cmdline) {
      this.pid = pid;
      this.cmdline = cmdline;
    }

    /** The index of the NodeManager whose container this is, from its log directory; -1 if none. */
    int nodeManager() {
      int at = cmdline.indexOf("-logDir-nm-");
      if (at < 0) {
        return -1;
      }
      int from = at + "-logDir-nm-".length();
      int to = cmdline.indexOf('_', from);
      return to < 0 ? -1 : Integer.parseInt(cmdline.substring(from, to));
    }
  }

  static List<Proc> find(Predicate<String> cmdline) {
    List<Proc> out = new ArrayList<>();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Paths.get("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        String cmd;
        try {
          cmd = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8);
        } catch (IOException gone) {
          continue;
        }
        if (cmdline.test(cmd)) {
          out.add(new Proc(Long.parseLong(proc.getFileName().toString()), cmd));
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list /proc", e);
    }
    return out;
  }

  /** A JVM, not the shell that launched it (both carry the class name in their command line). */
  private static boolean isJava(String cmdline) {
    int end = cmdline.indexOf('\0');
    return (end < 0 ? cmdline : cmdline.substring(0, end)).endsWith("java");
  }

  /** Task JVMs (YarnChild) of the cluster's NodeManagers. */
  static List<Proc> taskJvms() {
    return find(c -> isJava(c) && c.contains("org.apache.hadoop.mapred.YarnChild"));
  }

  /** ApplicationMaster JVMs of one application. */
  static List<Proc> appMasters(String applicationId) {
    return find(c -> isJava(c) && c.contains("org.apache.hadoop.mapreduce.v2.app.MRAppMaster")
        && c.contains(applicationId));
  }

  static void signal(String sig, List<Long> pids) {
    if (pids.isEmpty()) {
      return;
    }
    List<String> cmd = new ArrayList<>();
    cmd.add("kill");
    cmd.add(sig);
    for (Long p : pids) {
      cmd.add(Long.toString(p));
    }
    try {
      // A process that exited meanwhile makes kill complain; that is expected.
      new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start().waitFor();
    } catch (IOException e) {
      throw new IllegalStateException("cannot run kill", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
