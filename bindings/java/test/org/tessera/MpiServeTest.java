package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkEq;
import static org.tessera.Checks.checkThrows;
import static org.tessera.Mlp.checkNear;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Serving on every rank of an mpirun world (java_test.sh --mpi; 1 and 3 ranks): the
 * example model of docs/serving.md (y = relu(x W1) W2, 16 -> 64 -> 8, weights from
 * splitmix64, laid out over a [dp, mp] grid) compiled for 64 rows and served by a
 * Server; rank 0 drives from several threads at once, the others follow. Answers are
 * checked against plain loops over the same weights (drawn here, independently of the
 * example), request infos and server stats against what was sent, and every public
 * method's bad inputs against the C library's messages.
 */
public final class MpiServeTest {
  private static final int IN = 16;
  private static final int HIDDEN = 64;
  private static final int OUT = 8;
  private static final int CAPACITY = 64;
  private static final long SEED = 7;
  /** Plan 0: batching with up to this many rows; plan 1: no batching, the capacity. */
  private static final int BATCH_ROWS = 16;
  private static final int THREADS = 6;
  private static final int REQUESTS_PER_THREAD = 10;
  /** The plan keeps f32 throughout; the loops keep the hidden layer in double. */
  private static final double TOL = 1e-4;

  private static MpiWorld w;

  /** splitmix64 from {@code seed}: (z >> 40) / 2^24 - 0.5 per weight, W1 then W2. */
  static float[][] weights(long seed) {
    long state = seed;
    float[][] out = {new float[IN * HIDDEN], new float[HIDDEN * OUT]};
    for (float[] m : out) {
      for (int i = 0; i < m.length; ++i) {
        state += 0x9E3779B97F4A7C15L;
        long z = state;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        m[i] = (float) ((z >>> 40) / 16777216.0 - 0.5);
      }
    }
    return out;
  }

  /** relu(x W1) W2 by loops in double, rounded to f32. */
  static float[] reference(float[][] wts, float[] x) {
    int rows = x.length / IN;
    float[] y = new float[rows * OUT];
    double[] h = new double[HIDDEN];
    for (int r = 0; r < rows; ++r) {
      for (int j = 0; j < HIDDEN; ++j) {
        double s = 0;
        for (int k = 0; k < IN; ++k) s += (double) x[r * IN + k] * wts[0][k * HIDDEN + j];
        h[j] = Math.max(s, 0);
      }
      for (int j = 0; j < OUT; ++j) {
        double s = 0;
        for (int k = 0; k < HIDDEN; ++k) s += h[k] * wts[1][k * OUT + j];
        y[r * OUT + j] = (float) s;
      }
    }
    return y;
  }

  /** "cpu:[[0,1,2]]": [dp, mp] with dp = 2 for an even world of 4 or more, else 1. */
  static String grid(int size) {
    int dp = size >= 4 && size % 2 == 0 ? 2 : 1;
    int mp = size / dp;
    StringBuilder b = new StringBuilder("cpu:[");
    for (int i = 0; i < dp; ++i) {
      b.append(i > 0 ? ",[" : "[");
      for (int j = 0; j < mp; ++j) b.append(j > 0 ? "," : "").append(i * mp + j);
      b.append(']');
    }
    return b.append(']').toString();
  }

  /** The model compiled for CAPACITY rows on the world's grid. */
  static Plan compileModel(float[][] wts) {
    try (Scope sc = new Scope()) {
      Placement placement = sc.add(Placement.parse(grid(w.size)));
      checkEq(placement.toString(), grid(w.size), "placement text");
      Tensor w1 = sc.add(Tensor.fromHost(wts[0], new long[] {IN, HIDDEN}, placement,
          sc.add(NdSbp.parse("(B, S(1))"))));
      Tensor w2 = sc.add(Tensor.fromHost(wts[1], new long[] {HIDDEN, OUT}, placement,
          sc.add(NdSbp.parse("(B, S(0))"))));
      try (Program p = Program.create()) {
        long x = p.addInput("x", new long[] {CAPACITY, IN}, "f32", placement,
            sc.add(NdSbp.parse("(S(0), B)")));
        long v1 = p.addVariable("w1", w1);
        long v2 = p.addVariable("w2", w2);
        long h = p.addOp("matmul", x, v1)[0];
        h = p.addOp("relu", h)[0];
        h = p.addOp("matmul", h, v2)[0];
        p.markOutput(h);
        return p.compile(1);
      }
    }
  }

  /** Deterministic rows for thread t's request i: values in [-1.75, 1.75]. */
  static float[] rowsFor(int t, int i, int rows) {
    float[] x = new float[rows * IN];
    for (int k = 0; k < x.length; ++k) x[k] = ((t * 131 + i * 17 + k * 5) % 29 - 14) / 8.0f;
    return x;
  }

  /** Server.create's bad options: every rank, each refused before anything is created. */
  static void badServerOptions() {
    int[] ranks = {w.size, -1};
    for (int rank : ranks) {
      checkThrows(() -> Server.create(ServerOptions.builder().driverRank(rank).build()),
          Status.INVALID_ARGUMENT, "options->driver_rank is " + rank, "driverRank " + rank);
    }
    for (double t : new double[] {-1, Double.NaN, 2e6}) {
      checkThrows(
          () -> Server.create(ServerOptions.builder().followerTimeoutSeconds(t).build()),
          Status.INVALID_ARGUMENT, "options->follower_timeout_seconds", "followerTimeout " + t);
    }
    for (long us : new long[] {-1, 100001}) {
      checkThrows(() -> Server.create(ServerOptions.builder().followerPollMaxUs(us).build()),
          Status.INVALID_ARGUMENT, "options->follower_poll_max_us is " + us, "pollMax " + us);
    }
    checkThrows(() -> Server.create(null), Status.INVALID_ARGUMENT, "options is null",
        "null options");
  }

  /** addPlan's bad options and the plan queries' bad ids and indices (local). */
  static void badPlanArguments(Server server, Plan plan) {
    long[][] bad = {{CAPACITY + 1, 0, 0}, {-1, 0, 0}, {0, -1, 0}, {0, 10000001, 0},
        {0, 0, -1}, {0, 0, 1000001}};
    String[] names = {"max_batch_rows", "max_batch_rows", "max_queue_delay_us",
        "max_queue_delay_us", "max_queued_requests", "max_queued_requests"};
    for (int i = 0; i < bad.length; ++i) {
      ServePlanOptions o = ServePlanOptions.builder().batching(true).maxBatchRows(bad[i][0])
          .maxQueueDelayUs(bad[i][1]).maxQueuedRequests(bad[i][2]).build();
      long value = bad[i][0] + bad[i][1] + bad[i][2];
      checkThrows(() -> server.addPlan(plan, o), Status.INVALID_ARGUMENT,
          "options->" + names[i] + " is " + value, "addPlan " + o);
    }
    checkThrows(() -> server.addPlan(plan, null), Status.INVALID_ARGUMENT, "options is null",
        "addPlan null options");
    checkThrows(() -> server.addPlan(null), Status.INVALID_ARGUMENT, "plan", "addPlan null plan");
    checkEq(server.numPlans(), 0, "numPlans after refused addPlans");
  }

  static void checkPlanQueries(Server server) {
    checkEq(server.numPlans(), 2, "numPlans");
    Server.PlanInfo p0 = server.planInfo(0);
    checkEq(p0.numInputs, 1L, "plan 0 inputs");
    checkEq(p0.numOutputs, 1L, "plan 0 outputs");
    checkEq(p0.capacityRows, (long) CAPACITY, "plan 0 capacity");
    checkEq(p0.maxBatchRows, (long) BATCH_ROWS, "plan 0 maxBatchRows");
    checkEq(p0.maxQueueDelayUs, 2000L, "plan 0 delay");
    checkEq(p0.maxQueuedRequests, 4096L, "plan 0 maxQueuedRequests (default)");
    check(p0.batching, "plan 0 batching");
    Server.PlanInfo p1 = server.planInfo(1);
    checkEq(p1.maxBatchRows, (long) CAPACITY, "plan 1 maxBatchRows (0: the capacity)");
    check(!p1.batching, "plan 1 no batching");
    checkEq(p1.maxQueuedRequests, 100L, "plan 1 maxQueuedRequests");
    for (int id = 0; id < 2; ++id) {
      checkEq(server.planInputWidth(id, 0), (long) IN, "input width");
      checkEq(server.planOutputWidth(id, 0), (long) OUT, "output width");
      checkEq(server.planInputDType(id, 0), "f32", "input dtype");
      checkEq(server.planOutputDType(id, 0), "f32", "output dtype");
    }
    for (int id : new int[] {2, -1}) {
      String text = "plan id " + id + " is unknown; the server has 2 plan(s)";
      checkThrows(() -> server.planInfo(id), Status.OUT_OF_RANGE, text, "planInfo " + id);
      checkThrows(() -> server.newRequest(id), Status.OUT_OF_RANGE, text, "newRequest " + id);
      checkThrows(() -> server.planInputWidth(id, 0), Status.OUT_OF_RANGE, text,
          "planInputWidth " + id);
      checkThrows(() -> server.planOutputDType(id, 0), Status.OUT_OF_RANGE, text,
          "planOutputDType " + id);
    }
    checkThrows(() -> server.planInputWidth(0, 1), Status.OUT_OF_RANGE, "", "input index 1");
    checkThrows(() -> server.planOutputWidth(0, 1), Status.OUT_OF_RANGE, "", "output index 1");
    checkThrows(() -> server.planInputDType(0, -1), Status.OUT_OF_RANGE,
        "Server.planInputDType: input index -1 is negative", "input index -1");
    checkThrows(() -> server.planOutputWidth(0, -1), Status.OUT_OF_RANGE,
        "Server.planOutputWidth: output index -1 is negative", "output index -1");
    String text = server.toString();
    check(text.equals("Server(" + (w.rank == 0 ? "driver" : "follower") + ", 2 plans)"),
        "toString " + text);
  }

  /** A request's bad inputs and reads before a run (any rank: local). */
  static void badRequest(Server server) {
    try (ServeRequest r = server.newRequest(0)) {
      checkEq(r.rows(), 0L, "rows before setInput");
      checkEq(r.planId(), 0, "planId");
      checkThrows(() -> r.setInput(0, new float[IN - 1]), Status.INVALID_ARGUMENT,
          "input 0 got 60 bytes, not a whole number of 64-byte rows", "15 floats");
      checkThrows(() -> r.setInput(0, new byte[3]), Status.INVALID_ARGUMENT,
          "input 0 got 3 bytes", "3 bytes");
      checkThrows(() -> r.setInput(0, new float[(BATCH_ROWS + 1) * IN]),
          Status.INVALID_ARGUMENT, "input 0 has 17 rows; plan 0 takes at most 16", "17 rows");
      checkThrows(() -> r.setInput(0, new float[0]), Status.INVALID_ARGUMENT, "input 0",
          "0 rows");
      checkThrows(() -> r.setInput(1, new byte[4 * IN]), Status.OUT_OF_RANGE,
          "index 1 is out of range; plan 0 has 1 input(s)", "input index 1");
      checkThrows(() -> r.setInput(-1, new byte[4 * IN]), Status.OUT_OF_RANGE,
          "ServeRequest.setInput: input index -1 is negative", "input index -1");
      checkThrows(() -> r.setInput(0, new double[IN]), Status.INVALID_ARGUMENT,
          "ServeRequest.setInput: input #0 is f32, not f64", "double rows");
      checkThrows(() -> r.setInput(0, new int[IN]), Status.INVALID_ARGUMENT,
          "input #0 is f32, not i32", "int rows");
      checkThrows(() -> r.outputFloatArray(0), Status.FAILED_PRECONDITION,
          "the request has no answer yet", "output before a run");
      checkThrows(() -> r.outputByteCount(0), Status.FAILED_PRECONDITION,
          "the request has no answer yet", "outputByteCount before a run");
      checkThrows(() -> r.info(), Status.FAILED_PRECONDITION, "the request has no answer yet",
          "info before a run");
      checkEq(r.rows(), 0L, "rows after refused setInputs");
      r.setInput(0, new float[3 * IN]);
      checkEq(r.rows(), 3L, "rows after setInput");
      checkEq(r.toString(), "ServeRequest(plan 0, 3 rows)", "request toString");
    }
    ServeRequest closed = server.newRequest(1);
    closed.close();
    checkEq(closed.toString(), "ServeRequest(closed)", "closed request toString");
    checkThrows(() -> closed.rows(), Status.INVALID_ARGUMENT, "", "rows after close");
  }

  /** Driver: THREADS threads, each running its own requests on both plans. */
  static void driveConcurrently(Server server, float[][] wts, long[] rowsServed) {
    AtomicLong rows = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < THREADS; ++t) {
      final int thread = t;
      threads.add(new Thread(() -> {
        try (ServeRequest batched = server.newRequest(0);
            ServeRequest single = server.newRequest(1)) {
          for (int i = 0; i < REQUESTS_PER_THREAD; ++i) {
            boolean useBatched = (i + thread) % 2 == 0;
            ServeRequest r = useBatched ? batched : single;
            int n = 1 + (thread * 7 + i * 3) % (useBatched ? BATCH_ROWS : CAPACITY);
            float[] x = rowsFor(thread, i, n);
            r.setInput(0, x);
            server.run(r);
            float[] y = r.outputFloatArray(0);
            float[] want = reference(wts, x);
            boolean ok = y.length == want.length;
            for (int k = 0; ok && k < y.length; ++k) {
              ok = Math.abs(y[k] - want[k]) <= TOL * (1 + Math.abs(want[k]));
            }
            if (!ok) {
              failures.add("thread " + thread + " request " + i + ": got "
                  + java.util.Arrays.toString(y) + ", want " + java.util.Arrays.toString(want));
            }
            if (r.outputByteCount(0) != 4L * n * OUT) {
              failures.add("outputByteCount " + r.outputByteCount(0) + " for " + n + " rows");
            }
            ServeRequest.Info info = r.info();
            boolean infoOk = info.batchRows >= n && info.batchRequests >= 1
                && info.batchRequests <= info.batchRows && info.queueSeconds >= 0
                && info.runSeconds > 0;
            if (useBatched) {
              infoOk &= info.batchRows <= BATCH_ROWS;
            } else {
              infoOk &= info.batchRows == n && info.batchRequests == 1;
            }
            if (!infoOk) failures.add("request of " + n + " rows: " + info);
            rows.addAndGet(n);
          }
        } catch (RuntimeException e) {
          failures.add("thread " + thread + ": " + e);
        }
      }));
    }
    for (Thread th : threads) th.start();
    for (Thread th : threads) {
      try {
        th.join();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }
    for (String f : failures) check(false, f);
    check(failures.isEmpty(), failures.size() + " failures in the driver's threads");
    rowsServed[0] = rows.get();
  }

  public static void main(String[] args) {
    w = MpiWorld.start(args);
    boolean driver = w.rank == 0;
    badServerOptions();
    float[][] wts = weights(SEED);
    try (Plan plan = compileModel(wts);
        Server server =
            Server.create(ServerOptions.builder().followerTimeoutSeconds(20).build());
        Server other = Server.create()) {
      checkEq(server.isDriver(), driver, "isDriver");
      badPlanArguments(server, plan);
      checkEq(server.addPlan(plan, ServePlanOptions.builder().batching(true)
          .maxBatchRows(BATCH_ROWS).maxQueueDelayUs(2000).build()), 0, "plan id 0");
      checkEq(server.addPlan(plan, ServePlanOptions.builder().maxQueuedRequests(100).build()),
          1, "plan id 1");
      checkEq(other.addPlan(plan), 0, "other server's plan id");
      checkPlanQueries(server);
      badRequest(server);

      // A request runs only on the server that made it; the other server then stops.
      if (driver) {
        try (ServeRequest r = server.newRequest(0)) {
          r.setInput(0, rowsFor(0, 0, 2));
          checkThrows(() -> other.run(r), Status.INVALID_ARGUMENT,
              "the request was made for another server", "run on another server");
        }
        try (ServeRequest r = other.newRequest(0)) {
          checkThrows(() -> other.run(r), Status.INVALID_ARGUMENT,
              "input 0 of the request was never set", "run unset");
        }
        other.stop();
        other.stop();  // idempotent
        checkThrows(() -> other.checkHealth(1), Status.CANCELLED, "stopped", "health stopped");
      } else {
        other.follow();
        check(other.stats().stopped, "other: follower released");
      }

      if (driver) {
        checkThrows(() -> server.follow(), Status.FAILED_PRECONDITION,
            "this rank (0) is the driver", "follow on the driver");
        for (double t : new double[] {0, -1, Double.NaN, 2e6}) {
          checkThrows(() -> server.checkHealth(t), Status.INVALID_ARGUMENT,
              "timeout_seconds is", "checkHealth " + t);
        }
        server.checkHealth(10);
        long[] rows = {0};
        driveConcurrently(server, wts, rows);
        checkThrows(() -> server.addPlan(plan), Status.FAILED_PRECONDITION,
            "the server is already serving", "addPlan while serving");
        server.checkHealth(10);
        Server.Stats s = server.stats();
        System.out.println("serving on " + w.size + " ranks: " + s);
        long total = (long) THREADS * REQUESTS_PER_THREAD;
        checkEq(s.requests, total, "stats requests");
        checkEq(s.failedRequests, 0L, "stats failedRequests");
        checkEq(s.rows, rows[0], "stats rows");
        check(s.runs >= total / 2 && s.runs <= total, "stats runs: " + s);
        checkEq(s.queuedRequests, 0L, "stats queued");
        checkEq(s.healthChecks, 2L, "stats health checks");
        check(s.available && !s.stopped, "stats available, not stopped: " + s);
        check(s.heapAllocationsLastBatch == -1, "libtessera.so does not count heap allocations: "
            + s.heapAllocationsLastBatch);
        server.stop();
        try (ServeRequest r = server.newRequest(1)) {
          r.setInput(0, rowsFor(1, 1, 1));
          checkThrows(() -> server.run(r), Status.CANCELLED, "the server is stopping",
              "run after stop");
        }
        s = server.stats();
        check(s.stopped, "stats stopped after stop: " + s);
        checkEq(s.failedRequests, 1L, "stats failedRequests after a refused run");
      } else {
        try (ServeRequest r = server.newRequest(0)) {
          r.setInput(0, rowsFor(0, 0, 1));
          checkThrows(() -> server.run(r), Status.FAILED_PRECONDITION,
              "is a follower; only the driver (rank 0) takes requests", "run on a follower");
        }
        checkThrows(() -> server.stop(), Status.FAILED_PRECONDITION, "", "stop on a follower");
        checkThrows(() -> server.checkHealth(1), Status.FAILED_PRECONDITION, "is a follower",
            "checkHealth on a follower");
        server.follow();
        check(server.stats().stopped, "follower released");
        checkThrows(() -> server.follow(), Status.FAILED_PRECONDITION,
            "already called on this server", "follow twice");
      }
    }
    w.finish();
  }
}
