package io.rein.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The libraries the jar bundles load on the fleets Hadoop runs on: every glibc symbol version
 * they need is at most 2.17 (RHEL/CentOS 7), they carry no debug info, and the loader finds this
 * machine's under its platform folder. Read from the ELF files themselves (64-bit, little-endian).
 */
class BundledLibraryTest {
  static final int[] GLIBC_FLOOR = {2, 17};
  static final Path NATIVE = Paths.get("target", "classes", "native");

  static List<Path> bundled() throws IOException {
    try (Stream<Path> walk = Files.walk(NATIVE)) {
      return walk.filter(p -> p.getFileName().toString().equals("librein.so")).sorted().collect(Collectors.toList());
    }
  }

  @Test
  void theLoaderFindsThisMachinesLibraryUnderItsPlatformFolder() throws IOException {
    assertTrue(bundled().contains(NATIVE.resolve(NativeLoader.platform()).resolve("librein.so")),
        "no native/" + NativeLoader.platform() + "/librein.so in " + bundled());
  }

  @Test
  void everyBundledLibraryNeedsGlibc217AtMost() throws IOException {
    for (Path lib : bundled()) {
      Elf elf = new Elf(lib);
      Set<String> glibc = new TreeSet<>();
      for (String v : elf.neededVersions()) {
        if (v.startsWith("GLIBC_") && !v.equals("GLIBC_PRIVATE")) {
          glibc.add(v);
        }
      }
      assertFalse(glibc.isEmpty(), lib + " names no glibc version: not a glibc build?");
      List<String> tooNew = new ArrayList<>();
      for (String v : glibc) {
        if (newerThanFloor(v)) {
          tooNew.add(v);
        }
      }
      assertEquals(List.of(), tooNew, lib + " needs glibc symbols newer than 2.17 (all: " + glibc + ")");
    }
  }

  @Test
  void bundledLibrariesCarryNoDebugInfo() throws IOException {
    for (Path lib : bundled()) {
      List<String> debug = new Elf(lib).sectionNames().stream()
          .filter(n -> n.startsWith(".debug_")).collect(Collectors.toList());
      assertEquals(List.of(), debug, lib + " (" + Files.size(lib) + " bytes) keeps debug sections");
    }
  }

  /** Each platform folder holds a library built for that machine (ELF e_machine: 62, 183). */
  @Test
  void eachLibraryIsBuiltForItsPlatformFolder() throws IOException {
    for (Path lib : bundled()) {
      String folder = lib.getParent().getFileName().toString();
      ByteBuffer head = ByteBuffer.wrap(Files.readAllBytes(lib), 0, 20).order(ByteOrder.LITTLE_ENDIAN);
      int machine = head.getShort(18) & 0xffff;
      int expected = folder.equals("linux-x86_64") ? 62 : folder.equals("linux-aarch64") ? 183 : -1;
      assertEquals(expected, machine, lib + ": ELF machine " + machine + " in folder " + folder);
    }
  }

  @Test
  void versionsAreComparedNumerically() {
    assertFalse(newerThanFloor("GLIBC_2.3.4"));
    assertFalse(newerThanFloor("GLIBC_2.17"));
    assertTrue(newerThanFloor("GLIBC_2.18"));
    assertTrue(newerThanFloor("GLIBC_2.34"));
  }

  static boolean newerThanFloor(String version) {
    String[] parts = version.substring("GLIBC_".length()).split("\\.");
    for (int i = 0; i < GLIBC_FLOOR.length; i++) {
      int v = i < parts.length ? Integer.parseInt(parts[i]) : 0;
      if (v != GLIBC_FLOOR[i]) {
        return v > GLIBC_FLOOR[i];
      }
    }
    return false;
  }

  /** Just enough of an ELF64 reader: section names and the version-needs table. */
  static final class Elf {
    static final int SHT_GNU_VERNEED = 0x6ffffffe;
    final ByteBuffer b;
    final int shoff;
    final int shentsize;
    final int shnum;

    Elf(Path file) throws IOException {
      b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
      assertEquals(0x464c457f, b.getInt(0), file + " is not ELF");
      assertEquals(2, b.get(4), file + " is not 64-bit ELF");
      shoff = (int) b.getLong(0x28);
      shentsize = b.getShort(0x3a) & 0xffff;
      shnum = b.getShort(0x3c) & 0xffff;
    }

    int header(int i) {
      return shoff + i * shentsize;
    }

    int type(int i) {
      return b.getInt(header(i) + 4);
    }

    int offset(int i) {
      return (int) b.getLong(header(i) + 0x18);
    }

    int link(int i) {
      return b.getInt(header(i) + 0x28);
    }

    int info(int i) {
      return b.getInt(header(i) + 0x2c);
    }

    String string(int at) {
      int end = at;
      while (b.get(end) != 0) {
        end++;
      }
      byte[] s = new byte[end - at];
      for (int k = 0; k < s.length; k++) {
        s[k] = b.get(at + k);
      }
      return new String(s, StandardCharsets.US_ASCII);
    }

    List<String> sectionNames() {
      int names = offset(b.getShort(0x3e) & 0xffff);
      List<String> out = new ArrayList<>();
      for (int i = 0; i < shnum; i++) {
        out.add(string(names + b.getInt(header(i))));
      }
      return out;
    }

    /** Every version named in the .gnu.version_r entries (Elf64_Verneed / Elf64_Vernaux). */
    List<String> neededVersions() {
      List<String> out = new ArrayList<>();
      for (int i = 0; i < shnum; i++) {
        if (type(i) != SHT_GNU_VERNEED) {
          continue;
        }
        int strtab = offset(link(i));
        int need = offset(i);
        for (int n = 0; n < info(i); n++) {
          int count = b.getShort(need + 2) & 0xffff;
          int aux = need + b.getInt(need + 8);
          for (int k = 0; k < count; k++) {
            out.add(string(strtab + b.getInt(aux + 8)));
            aux += b.getInt(aux + 12);
          }
          need += b.getInt(need + 12);
        }
      }
      return out;
    }
  }
}
