package org.tessera;

/** The Java tests' checks: count, report failures, exit non-zero when any failed. */
final class Checks {
  private static int failures = 0;
  private static int checks = 0;

  private Checks() {}

  interface Call {
    void run();
  }

  static void check(boolean ok, String what) {
    ++checks;
    if (!ok) {
      ++failures;
      System.err.println("FAIL: " + what);
    }
  }

  static void checkEq(Object actual, Object expected, String what) {
    check(expected.equals(actual), what + ": got " + actual + ", want " + expected);
  }

  /** Runs `call`, which must throw TesseraException with `code` and a message holding `text`. */
  static void checkThrows(Call call, int code, String text, String what) {
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

  /** Prints the counts and exits: 0 when every check passed. */
  static void finish() {
    System.out.println(checks + " checks, " + failures + " failures");
    System.exit(failures == 0 ? 0 : 1);
  }
}
