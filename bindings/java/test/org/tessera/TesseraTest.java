package org.tessera;

import java.util.Arrays;

/** The Java binding's test: every function of tessera.h, happy and bad-input cases. */
public final class TesseraTest {
  private static int failures = 0;
  private static int checks = 0;

  private static void check(boolean ok, String what) {
    ++checks;
    if (!ok) {
      ++failures;
      System.err.println("FAIL: " + what);
    }
  }

  private static void checkEq(Object actual, Object expected, String what) {
    check(expected.equals(actual), what + ": got " + actual + ", want " + expected);
  }

  private interface Call {
    void run();
  }

  /** Runs `call`, which must throw TesseraException with `code` and a message holding `text`. */
  private static void checkThrows(Call call, int code, String text, String what) {
    try {
      call.run();
      check(false, what + ": no exception");
    } catch (TesseraException e) {
      checkEq(e.getCode(), code, what + ": code");
      checkEq(e.getStatus(), Tessera.statusString(code), what + ": status");
      check(e.getStatusMessage().contains(text),
          what + ": message \"" + e.getStatusMessage() + "\" lacks \"" + text + "\"");
      check(e.getMessage().startsWith(Tessera.statusString(code) + ": "), what + ": getMessage");
    }
  }

  private static void versionAndStatus() {
    checkEq(Tessera.version(),
        Tessera.VERSION_MAJOR + "." + Tessera.VERSION_MINOR + "." + Tessera.VERSION_PATCH, "version");
    checkEq(Tessera.versionNumber(), Tessera.VERSION_NUMBER, "versionNumber");
    checkEq(Tessera.statusString(Tessera.OK), "OK", "status OK");
    checkEq(Tessera.statusString(Tessera.INVALID_ARGUMENT), "INVALID_ARGUMENT", "status 3");
    checkEq(Tessera.statusString(Tessera.DATA_LOSS), "DATA_LOSS", "status 15");
    checkEq(Tessera.statusString(99), "UNKNOWN_CODE", "status 99");
    checkEq(Tessera.INVALID_ARGUMENT, 3, "INVALID_ARGUMENT constant");
    checkEq(Tessera.NOT_FOUND, 5, "NOT_FOUND constant");
  }

  private static void runtime() {
    Tessera.init(); // idempotent
    checkEq(Tessera.worldRank(), 0, "worldRank");
    checkEq(Tessera.worldSize(), 1, "worldSize");
  }

  private static void issueExample() {
    try (Placement p = Placement.parse("cpu:[[0,1],[2,3]]");
        NdSbp s = NdSbp.parse("(S(0), S(1))");
        Layout l = Layout.create(p, s, new long[] {6, 5}, 3)) {
      checkEq(l.toString(), "[3,6)x[3,5)", "layout string");
      check(Arrays.equals(l.localShape(), new long[] {3, 2}), "local shape");
      check(Arrays.equals(l.range(0), new long[] {3, 6}), "range 0");
      check(Arrays.equals(l.range(1), new long[] {3, 5}), "range 1");
      checkEq(l.ndim(), 2L, "ndim");
      checkEq(l.localDim(1), 2L, "localDim");
      checkEq(l.numElements(), 6L, "numElements");
      checkThrows(() -> l.localDim(2), Tessera.OUT_OF_RANGE,
          "tess_layout_local_dim: dim 2 is outside a layout of 2 dims", "localDim 2");
      checkThrows(() -> l.range(5), Tessera.OUT_OF_RANGE, "dim 5", "range 5");
      checkThrows(() -> Tessera.layout(p, s, new long[] {6, 5}, 9), Tessera.NOT_FOUND,
          "rank 9 is not in placement cpu:[[0,1],[2,3]]", "rank 9");
      checkThrows(() -> Layout.create(p, s, new long[] {6, -5}, 0), Tessera.INVALID_ARGUMENT,
          "shape dim 1 is -5; dims must be >= 0", "negative dim");
      checkThrows(() -> Layout.create(p, s, new long[] {6}, 0), Tessera.INVALID_ARGUMENT,
          "splits tensor axis 1 but the tensor of shape [6] has 1 axes", "1-d shape");
      checkThrows(() -> Layout.create(p, s, null, 0), Tessera.INVALID_ARGUMENT, "shape",
          "null shape");
      try (NdSbp one = NdSbp.parse("S(0)")) {
        checkThrows(() -> Layout.create(p, one, new long[] {6, 5}, 0), Tessera.INVALID_ARGUMENT,
            "has 1 axes but placement", "axes mismatch");
      }
    }
  }

  private static void placementQueries() {
    try (Placement p = Placement.parse("cpu:[[0,1,2],[3,4,5]]")) {
      checkEq(p.toString(), "cpu:[[0,1,2],[3,4,5]]", "placement string");
      checkEq(p.deviceType(), Tessera.DEVICE_CPU, "deviceType");
      checkEq(p.numAxes(), 2L, "numAxes");
      checkEq(p.hierarchyDim(1), 3L, "hierarchyDim");
      check(Arrays.equals(p.hierarchy(), new long[] {2, 3}), "hierarchy");
      checkEq(p.parallelNum(), 6L, "parallelNum");
      checkEq(p.rankAt(4), 4, "rankAt");
      checkEq(p.indexOf(5), 5L, "indexOf");
      check(p.contains(3), "contains 3");
      check(!p.contains(9), "!contains 9");
      try (Placement group = p.axisGroup(0, 4);
          Placement same = Placement.create(Tessera.DEVICE_CPU, new int[] {0, 1, 2, 3, 4, 5},
              new long[] {2, 3})) {
        checkEq(group.toString(), "cpu:[1,4]", "axisGroup");
        check(p.equal(same) && p.equals(same), "equal");
        check(!p.equal(group) && !p.equals(group), "!equal");
        checkEq(p.hash(), same.hash(), "hash");
        checkEq(p.hashCode(), same.hashCode(), "hashCode");
      }
      checkThrows(() -> p.hierarchyDim(2), Tessera.OUT_OF_RANGE,
          "tess_placement_hierarchy_dim: axis 2 is outside cpu:[[0,1,2],[3,4,5]], which has 2 axes",
          "hierarchyDim 2");
      checkThrows(() -> p.rankAt(6), Tessera.OUT_OF_RANGE, "6", "rankAt 6");
      checkThrows(() -> p.indexOf(9), Tessera.NOT_FOUND,
          "rank 9 is not in placement cpu:[[0,1,2],[3,4,5]]", "indexOf 9");
      checkThrows(() -> p.axisGroup(3, 0), Tessera.OUT_OF_RANGE, "3", "axisGroup axis 3");
      checkThrows(() -> p.axisGroup(0, 7), Tessera.NOT_FOUND, "7", "axisGroup rank 7");
    }
  }

  private static void placementBadInput() {
    checkThrows(() -> Placement.parse("cpu:[0,0]"), Tessera.INVALID_ARGUMENT,
        "lists rank 0 twice", "duplicate rank");
    checkThrows(() -> Placement.parse("cpu:[[0,1],[2,3]"), Tessera.INVALID_ARGUMENT,
        "expected ']'", "unclosed");
    checkThrows(() -> Placement.parse("cpu:[]"), Tessera.INVALID_ARGUMENT, "empty rank list",
        "empty");
    checkThrows(() -> Placement.parse(null), Tessera.INVALID_ARGUMENT,
        "tess_placement_parse: argument \"text\" is NULL", "null text");
    checkThrows(() -> Placement.create(Tessera.DEVICE_CPU, new int[] {0, 1, 2}, new long[] {2, 2}),
        Tessera.INVALID_ARGUMENT, "placement hierarchy [2,2] does not hold 3 ranks", "bad create");
    checkThrows(() -> Placement.create(5, new int[] {0, 1, 2}, new long[] {3}),
        Tessera.INVALID_ARGUMENT, "placement device type 5 is not cpu (0) or cuda (1)",
        "bad device");
    Placement closed = Placement.parse("cpu:[0,1]");
    closed.close();
    closed.close(); // idempotent
    checkThrows(() -> closed.numAxes(), Tessera.INVALID_ARGUMENT, "NULL", "use after close");
  }

  private static void ndSbp() {
    try (NdSbp s = NdSbp.parse("(S(1), P(max))");
        NdSbp made = NdSbp.create(new int[] {Tessera.SBP_SPLIT, Tessera.SBP_PARTIAL_MAX},
            new int[] {1, 99})) {
      checkEq(s.toString(), "(S(1), P(max))", "nd_sbp string");
      checkEq(s.numAxes(), 2L, "nd_sbp numAxes");
      check(Arrays.equals(s.get(0), new int[] {Tessera.SBP_SPLIT, 1}), "get 0");
      checkEq(s.kind(1), Tessera.SBP_PARTIAL_MAX, "kind 1");
      checkEq(s.splitAxis(1), -1, "splitAxis 1");
      check(s.equal(made) && s.equals(made), "nd_sbp equal");
      checkThrows(() -> s.get(2), Tessera.OUT_OF_RANGE,
          "tess_nd_sbp_get: axis 2 is outside (S(1), P(max)), which has 2 axes", "get 2");
    }
    checkThrows(() -> NdSbp.parse("P(avg)"), Tessera.INVALID_ARGUMENT,
        "\"sum\", \"max\" or \"min\"", "P(avg)");
    checkThrows(() -> NdSbp.parse("S(-1)"), Tessera.INVALID_ARGUMENT, "got S(-1)", "S(-1)");
    checkThrows(() -> NdSbp.parse("(S(0), B"), Tessera.INVALID_ARGUMENT, "", "unclosed");
    checkThrows(() -> NdSbp.create(new int[] {Tessera.SBP_SPLIT}, new int[] {-2}),
        Tessera.INVALID_ARGUMENT, "tess_nd_sbp_create: axis 0: split axis -2 is outside [0, 7]",
        "bad split axis");
    checkThrows(() -> NdSbp.create(new int[] {Tessera.SBP_SPLIT, 17}, new int[] {0, 0}),
        Tessera.INVALID_ARGUMENT, "axis 1: sbp kind 17", "bad kind");
    checkThrows(() -> NdSbp.create(new int[0], new int[0]), Tessera.INVALID_ARGUMENT,
        "tess_nd_sbp_create: num_axes is 0; expected 1 to 8", "no axes");
  }

  public static void main(String[] args) {
    versionAndStatus();
    runtime();
    issueExample();
    placementQueries();
    placementBadInput();
    ndSbp();
    System.out.println(checks + " checks, " + failures + " failures");
    System.exit(failures == 0 ? 0 : 1);
  }
}
