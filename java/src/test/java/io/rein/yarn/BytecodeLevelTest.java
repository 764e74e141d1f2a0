package io.rein.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Hadoop 3.3/3.4 AMs run on JDK 8 or 11: a class of a newer format cannot even load there
 * ({@code UnsupportedClassVersionError}), and no fallback can catch that. Every class the jar
 * ships must be Java 8's format (major version 52) or older.
 */
class BytecodeLevelTest {
  static final int JAVA_8 = 52;

  @Test
  void everyShippedClassLoadsOnJava8() throws IOException {
    Path classes = Paths.get("target", "classes");
    List<Path> files;
    try (Stream<Path> walk = Files.walk(classes)) {
      files = walk.filter(p -> p.toString().endsWith(".class")).collect(Collectors.toList());
    }
    assertTrue(files.contains(classes.resolve("io/rein/yarn/ReinSpeculator.class")), "no classes in " + classes);
    List<String> tooNew = new ArrayList<>();
    for (Path f : files) {
      int major = majorVersion(f);
      if (major > JAVA_8) {
        tooNew.add(classes.relativize(f) + " (major " + major + ")");
      }
    }
    assertEquals(List.of(), tooNew, "classes above Java 8's format (52)");
  }

  /** A class file starts with the magic 0xCAFEBABE, then minor and major version (u2 each). */
  static int majorVersion(Path classFile) throws IOException {
    try (InputStream in = Files.newInputStream(classFile); DataInputStream data = new DataInputStream(in)) {
      assertEquals(0xCAFEBABE, data.readInt(), classFile + " is not a class file");
      data.readUnsignedShort();
      return data.readUnsignedShort();
    }
  }
}
