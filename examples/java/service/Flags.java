package org.tessera.examples.service;

/**
 * The service's flags (docs/serving.md, "Flags"): {@code --name value} or
 * {@code --name=value}; a bad one throws {@link Bad}, which Main reports with exit 2.
 */
final class Flags {
  static final String USAGE = "usage: service --port P [--host H] [--seed S] "
      + "[--batching on|off] [--max-batch-rows 1..64] [--max-queue-delay-us 0..10000000] "
      + "[--timeout SECONDS]";

  /** A bad command line. */
  static final class Bad extends Exception {
    private static final long serialVersionUID = 1L;

    Bad(String message) {
      super(message);
    }
  }

  int port = -1;
  String host = "127.0.0.1";
  long seed = 0;  // unsigned 64-bit
  boolean batching = true;
  long maxBatchRows = 64;
  long maxQueueDelayUs = 2000;
  double timeoutSeconds = 10;

  static Flags parse(String[] args) throws Bad {
    Flags f = new Flags();
    for (int i = 0; i < args.length; ++i) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        throw new Bad("unexpected argument \"" + arg + "\"");
      }
      String name = arg;
      String value;
      int eq = arg.indexOf('=');
      if (eq >= 0) {
        name = arg.substring(0, eq);
        value = arg.substring(eq + 1);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new Bad("flag " + name + " needs a value");
      }
      switch (name) {
        case "--port":
          f.port = (int) integer(name, value, 0, 65535);
          break;
        case "--host":
          if (value.isEmpty()) {
            throw new Bad("flag --host is empty");
          }
          f.host = value;
          break;
        case "--seed":
          try {
            f.seed = Long.parseUnsignedLong(value);
          } catch (NumberFormatException e) {
            throw new Bad("flag --seed is \"" + value + "\"; it must be an unsigned 64-bit "
                + "integer");
          }
          break;
        case "--batching":
          if (!value.equals("on") && !value.equals("off")) {
            throw new Bad("flag --batching is \"" + value + "\"; it must be on or off");
          }
          f.batching = value.equals("on");
          break;
        case "--max-batch-rows":
          f.maxBatchRows = integer(name, value, 1, Model.CAPACITY);
          break;
        case "--max-queue-delay-us":
          f.maxQueueDelayUs = integer(name, value, 0, 10000000);
          break;
        case "--timeout":
          f.timeoutSeconds = seconds(name, value);
          break;
        default:
          throw new Bad("unknown flag " + name);
      }
    }
    if (f.port < 0) {
      throw new Bad("flag --port is required");
    }
    return f;
  }

  private static long integer(String name, String value, long min, long max) throws Bad {
    long v;
    try {
      v = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new Bad("flag " + name + " is \"" + value + "\"; it must be an integer from " + min
          + " to " + max);
    }
    if (v < min || v > max) {
      throw new Bad("flag " + name + " is " + v + "; it must be from " + min + " to " + max);
    }
    return v;
  }

  private static double seconds(String name, String value) throws Bad {
    double v;
    try {
      v = Double.parseDouble(value);
    } catch (NumberFormatException e) {
      v = Double.NaN;
    }
    if (!(v > 0 && v <= 1e6)) {
      throw new Bad("flag " + name + " is \"" + value + "\"; it must be seconds above 0, at "
          + "most 1e6");
    }
    return v;
  }
}
