package io.rein.yarn;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Loads librein once per class loader. Search order:
 * <ol>
 *   <li>{@code rein.native.library}, when set: that file and nothing else;</li>
 *   <li>{@code librein.so} on {@code java.library.path};</li>
 *   <li>the copy bundled in this jar under {@code native/<os>-<arch>/}, extracted to a fresh
 *       private directory (mode 700) under {@code rein.native.extract-dir} (default
 *       {@code java.io.tmpdir}), its bytes verified, loaded, then unlinked.</li>
 * </ol>
 * The outcome, success or failure, is remembered: a failure is reported once and not retried.
 */
final class NativeLoader {
  private static String loadedFrom;
  private static ReinNativeException failure;

  private NativeLoader() {}

  static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    if (arch.equals("amd64") || arch.equals("x86_64")) {
      arch = "x86_64";
    } else if (arch.equals("arm64")) {
      arch = "aarch64";
    }
    return (os.startsWith("linux") ? "linux" : os.replace(' ', '_')) + "-" + arch;
  }

  static String resourcePath() {
    return "/native/" + platform() + "/librein.so";
  }

  /** Loads the library (once) and checks its ABI; returns where it came from. */
  static synchronized String load(String overridePath, String extractDir) {
    if (loadedFrom != null) {
      return loadedFrom;
    }
    if (failure != null) {
      throw failure;
    }
    List<String> tried = new ArrayList<>();
    try {
      loadedFrom = loadFromFirstSource(overridePath, extractDir, tried);
      checkAbi(loadedFrom, NativeEngine.abiVersion(), NativeEngine.ABI_VERSION);
      return loadedFrom;
    } catch (Throwable t) {
      loadedFrom = null;
      failure = t instanceof ReinNativeException ? (ReinNativeException) t
          : new ReinNativeException("librein could not be loaded (tried: " + String.join("; ", tried)
              + "): " + t, t);
      throw failure;
    }
  }

  /** A library of another ABI version is refused: its natives would misread their arguments. */
  static void checkAbi(String from, int found, int needed) {
    if (found != needed) {
      throw new ReinNativeException("librein from " + from + " speaks ABI " + found
          + " but this rein-yarn jar needs ABI " + needed);
    }
  }

  private static String loadFromFirstSource(String overridePath, String extractDir, List<String> tried)
      throws IOException {
    if (overridePath != null && !overridePath.isEmpty()) {
      Path p = Paths.get(overridePath).toAbsolutePath();
      tried.add("rein.native.library=" + p);
      System.load(p.toString());
      return p.toString();
    }
    try {
      System.loadLibrary("rein");
      return "java.library.path";
    } catch (UnsatisfiedLinkError e) {
      tried.add("java.library.path (" + e.getMessage() + ")");
    }
    tried.add("bundled " + resourcePath());
    return extractAndLoad(extractDir);
  }

  private static String extractAndLoad(String extractDir) throws IOException {
    byte[] bytes;
    try (InputStream in = NativeLoader.class.getResourceAsStream(resourcePath())) {
      if (in == null) {
        throw new IOException("this jar bundles no librein for " + platform());
      }
      bytes = readAll(in);
    }
    Path base = Paths.get(extractDir != null && !extractDir.isEmpty() ? extractDir
        : System.getProperty("java.io.tmpdir"));
    Files.createDirectories(base);
    Path dir = Files.createTempDirectory(base, "rein-native-",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Path lib = dir.resolve("librein.so");
    try {
      Files.write(lib, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      if (!Arrays.equals(sha256(Files.readAllBytes(lib)), sha256(bytes))) {
        throw new IOException("extracted " + lib + " differs from the bundled library");
      }
      System.load(lib.toString());
      return "bundled copy extracted to " + lib;
    } finally {
      // The loaded mapping outlives the file on Linux; nothing is left behind.
      Files.deleteIfExists(lib);
      Files.deleteIfExists(dir);
    }
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[1 << 16];
    for (int n; (n = in.read(buffer)) > 0; ) {
      out.write(buffer, 0, n);
    }
    return out.toByteArray();
  }

  private static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
