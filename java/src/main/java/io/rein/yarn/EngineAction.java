package io.rein.yarn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;

/**
 * One action from librein, decoded from the typed records {@code decide} returns (ABI 6): no text
 * crosses JNI to be split or parsed. The layout, defined in {@code rust/jni/src/glue.rs}: an
 * {@code int[]} with a header (ABI version, record count, ints per record), one record per action
 * (verb, task kind, task index, attempt, copies, reason, prefer-rack, own node to avoid, shared
 * avoid list offset and length; strings as indices into a {@code String[]}, -1 for none), then
 * the shared avoid lists.
 */
final class EngineAction {
  /** What the engine asks for; codes as in {@code glue.rs}. */
  enum Verb {
    SPECULATE, RESTART, CLONE, VETO, MOVE;

    String lower() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  static final int HEADER = 3;
  static final int STRIDE = 10;
  private static final Verb[] VERBS = Verb.values();

  final Verb verb;
  final boolean map;
  final int taskIndex;
  /** The attempt a RESTART, VETO or MOVE names; -1 otherwise. */
  final int attempt;
  /** Copies asked for: 1 for SPECULATE, the count for CLONE, 0 for kills. */
  final int copies;
  /**
   * Why, as text; null for a copy past the decision's first {@code rein.log.copies-per-scan},
   * which the shim counts instead of logging (the decision log has its reason).
   */
  final String reason;
  /** The rack a copy should prefer, or "" for none. */
  final String preferRack;
  /** Nodes a copy should avoid, shared with the decision's other copies; the own node apart. */
  private final List<String> sharedAvoid;
  private final String ownAvoid;

  EngineAction(Verb verb, boolean map, int taskIndex, int attempt, int copies, String reason, String preferRack,
      List<String> sharedAvoid, String ownAvoid) {
    this.verb = verb;
    this.map = map;
    this.taskIndex = taskIndex;
    this.attempt = attempt;
    this.copies = copies;
    this.reason = reason;
    this.preferRack = preferRack == null ? "" : preferRack;
    this.sharedAvoid = sharedAvoid == null ? Collections.<String>emptyList() : sharedAvoid;
    this.ownAvoid = ownAvoid;
  }

  /** A kill of one attempt (RESTART, VETO, MOVE) of a map or reduce. */
  static EngineAction kill(Verb verb, boolean map, int taskIndex, int attempt, String reason) {
    return new EngineAction(verb, map, taskIndex, attempt, 0, reason, null, null, null);
  }

  /** {@code copies} clones of a task. */
  static EngineAction clone(boolean map, int taskIndex, int copies, String reason) {
    return new EngineAction(Verb.CLONE, map, taskIndex, -1, copies, reason, null, null, null);
  }

  boolean isMap() {
    return map;
  }

  /**
   * For a VETO: the node the engine asks to keep the job's later containers off
   * ({@code rein.veto.block-node}; carried in the record's own-node slot), or null.
   */
  String blockNode() {
    return verb == Verb.VETO ? ownAvoid : null;
  }

  /** The nodes to avoid in name order, comma-separated (for the log). */
  String avoidNodes() {
    if (ownAvoid == null && sharedAvoid.isEmpty()) {
      return "";
    }
    TreeSet<String> all = new TreeSet<>(sharedAvoid);
    if (ownAvoid != null) {
      all.add(ownAvoid);
    }
    return String.join(",", all);
  }

  /** Decodes {@code decide}'s records; a malformed structure is a {@link ReinNativeException}. */
  static EngineAction[] decode(Object[] typed) {
    if (typed == null || typed.length != 2 || !(typed[0] instanceof int[]) || !(typed[1] instanceof String[])) {
      throw new ReinNativeException("malformed actions from librein: not {int[], String[]}");
    }
    int[] ints = (int[]) typed[0];
    String[] strings = (String[]) typed[1];
    if (ints.length < HEADER || ints[0] != NativeEngine.ABI_VERSION || ints[2] != STRIDE
        || ints[1] < 0 || HEADER + (long) ints[1] * STRIDE > ints.length) {
      throw new ReinNativeException("malformed actions from librein: header " + Arrays.toString(
          Arrays.copyOf(ints, Math.min(ints.length, HEADER))) + ", ABI " + NativeEngine.ABI_VERSION + " expected");
    }
    int n = ints[1];
    EngineAction[] out = new EngineAction[n];
    // Copies of one decision share their avoid list: decode each list once.
    List<String> lastList = null;
    int lastAt = -1;
    for (int i = 0; i < n; i++) {
      int r = HEADER + i * STRIDE;
      int verb = ints[r];
      int kind = ints[r + 1];
      if (verb < 0 || verb >= VERBS.length || (kind != 0 && kind != 1)) {
        throw new ReinNativeException("malformed action from librein: verb " + verb + ", task kind " + kind);
      }
      List<String> shared = null;
      int at = ints[r + 8];
      if (at >= 0) {
        if (at == lastAt) {
          shared = lastList;
        } else {
          int len = ints[r + 9];
          if (len < 0 || (long) at + len > ints.length) {
            throw new ReinNativeException("malformed action from librein: avoid list out of range");
          }
          List<String> list = new ArrayList<>(len);
          for (int k = 0; k < len; k++) {
            list.add(string(strings, ints[at + k]));
          }
          shared = Collections.unmodifiableList(list);
          lastAt = at;
          lastList = shared;
        }
      }
      out[i] = new EngineAction(VERBS[verb], kind == 0, ints[r + 2], ints[r + 3], ints[r + 4],
          string(strings, ints[r + 5]), string(strings, ints[r + 6]), shared, string(strings, ints[r + 7]));
    }
    return out;
  }

  private static String string(String[] strings, int i) {
    if (i == -1) {
      return null;
    }
    if (i < 0 || i >= strings.length) {
      throw new ReinNativeException("malformed action from librein: string " + i + " of " + strings.length);
    }
    return strings[i];
  }

  @Override
  public String toString() {
    return verb + " " + (map ? "m" : "r") + " " + taskIndex + " attempt " + attempt + " x" + copies + ": " + reason;
  }
}
