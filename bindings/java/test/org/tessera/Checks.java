package org.tessera;

/** The Java tests' checks: count, report failures, exit non-zero when any failed. */
final class Checks {
  private static int failures = 0;
  private static int checks = 0;
  private static String label = "";

  private Checks() {}

  /** Starts every failure line and the summary, e.g. "rank 2: " under mpirun. */
  static void label(String text) {
    label = text;
  }

  interface Call {
    void run();
  }

  static void check(boolean ok, String what) {
    ++checks;
    if (!ok) {
      ++failures;
      System.err.println(label + "FAIL: " + what);
    }
  }

  static void checkEq(Object actual, Object expected, String what) {
    check(expected.equals(actual), what + ": got " + actual + ", want " + expected);
  }

  /** Element-wise ==, so 0 equals -0 (the loop oracles do not track zero signs); null == null. */
  static void checkArray(double[] got, double[] want, String what) {
    boolean same = got == null ? want == null : want != null && got.length == want.length;
    for (int i = 0; same && got != null && i < got.length; ++i) same = got[i] == want[i];
    check(same,
        what + ": got " + java.util.Arrays.toString(got) + ", want "
            + java.util.Arrays.toString(want));
  }

  static void checkArray(float[] got, float[] want, String what) {
    checkArray(widen(got), widen(want), what);
  }

  static double[] widen(long[] a) {
    return a == null ? null : java.util.Arrays.stream(a).asDoubleStream().toArray();
  }

  static void checkArray(long[] got, long[] want, String what) {
    check(java.util.Arrays.equals(got, want),
        what + ": got " + java.util.Arrays.toString(got) + ", want "
            + java.util.Arrays.toString(want));
  }

  static void checkArray(int[] got, int[] want, String what) {
    checkArray(got == null ? null : java.util.Arrays.stream(got).asLongStream().toArray(),
        want == null ? null : java.util.Arrays.stream(want).asLongStream().toArray(), what);
  }

  /** The same values as doubles (exact); null stays null. */
  static double[] widen(float[] a) {
    if (a == null) {
      return null;
    }
    double[] d = new double[a.length];
    for (int i = 0; i < a.length; ++i) d[i] = a[i];
    return d;
  }

  /** Runs `call`, which must throw TesseraException with `code` and a message holding `text`. */
  static void checkThrows(Call call, int code, String text, String what) {
    try {
      call.run();
      check(false, what + ": no exception");
    } catch (TesseraException e) {
      checkEq(e.getCode(), code, what + ": code");
      checkEq(e.getStatus(), Status.name(code), what + ": status");
      check(e.getStatusMessage().contains(text),
          what + ": message \"" + e.getStatusMessage() + "\" lacks \"" + text + "\"");
      check(e.getMessage().startsWith(Status.name(code) + ": "), what + ": getMessage");
    }
  }

  /** Prints the counts and exits: 0 when every check passed. */
  static void finish() {
    System.out.println(label + checks + " checks, " + failures + " failures");
    System.exit(failures == 0 ? 0 : 1);
  }
}
