package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkEq;
import static org.tessera.Checks.checkThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Boxing and collectives on host buffers in a world of one rank: every piece is the
 * whole tensor and every reduction the identity, so the oracle is the input itself;
 * plans are checked on placements of several ranks, which need no world.
 */
public final class CollectivesTest {
  private static float[] values(int n, int salt) {
    float[] v = new float[n];
    for (int i = 0; i < n; ++i) v[i] = ((i * 7 + salt) % 23 - 11) * 0.25f;
    return v;
  }

  private static void box() {
    long[] shape = {5, 7};
    float[] f = values(35, 0);
    try (Placement p = Placement.parse("cpu:[0]");
        Placement grid = Placement.parse("cpu:[[0]]");
        Placement two = Placement.parse("cpu:[0,1]");
        NdSbp s0 = NdSbp.parse("S(0)");
        NdSbp s1 = NdSbp.parse("S(1)");
        NdSbp b = NdSbp.parse("B");
        NdSbp ps = NdSbp.parse("(P, S(1))")) {
      check(Arrays.equals(Boxing.box(f, shape, p, s0, p, b), f), "box f32 S(0) -> B");
      check(Arrays.equals(Boxing.box(f, shape, p, s1, grid, ps), f), "box f32 across");
      double[] d = {0.5, -1, 2, 8, 0.25, 3};
      check(Arrays.equals(Boxing.box(d, new long[] {2, 3}, grid, ps, p, s0), d), "box f64");
      int[] i = {1, 2, 3, 4, 5, 6};
      check(Arrays.equals(Boxing.box(i, new long[] {2, 3}, p, s1, p, b), i), "box i32");
      long[] l = {1L << 40, -3};
      check(Arrays.equals(Boxing.box(l, new long[] {2}, p, b, p, s0), l), "box i64");
      // Raw buffers: exactly the piece's bytes.
      ByteBuffer in = HostBuffers.bufferOf(f);
      ByteBuffer out = ByteBuffer.allocateDirect(140).order(ByteOrder.nativeOrder());
      Boxing.box(out, in, shape, "f32", p, s0, p, s1);
      float[] back = new float[35];
      out.asFloatBuffer().get(back);
      check(Arrays.equals(back, f), "box ByteBuffer");
      checkThrows(() -> Boxing.box(ByteBuffer.allocateDirect(136), in, shape, "f32", p, s0, p, b),
          Status.INVALID_ARGUMENT,
          "tess_boxing_run: out_bytes is 136 but rank 0's dst piece (B on cpu:[0]) holds 35 f32 "
              + "elements, 140 bytes",
          "box short buffer");
      // Rank 0 holds 3 of the 5 rows of S(0) on cpu:[0,1].
      checkThrows(() -> Boxing.box(values(21, 0), shape, two, s0, p, b), Status.OUT_OF_RANGE,
          "tess_boxing_run: Box: src placement cpu:[0,1] names rank 1 but the world has 1 ranks",
          "box rank outside the world");
      try (BoxingPlan plan = Boxing.plan(new long[] {6, 4}, "f32", two, s0, two, b)) {
        checkEq(plan.numSteps(), 1L, "plan steps");
        check(plan.step(0).startsWith("axis 0: S(0) -> B  all-gather"),
            "plan step: " + plan.step(0));
        checkEq(plan.step(1), "", "plan step past the end");
        String text = plan.toString();
        check(text.startsWith("boxing f32[6,4]: cpu:[0,1] S(0) -> cpu:[0,1] B\n"), "plan text");
        check(text.contains("\n1. " + plan.step(0) + "\n"), "plan text names the step");
        check(plan.cost() > 0, "plan cost");
      }
      // f16 plans like any other dtype.
      try (BoxingPlan half = BoxingPlan.create(shape, "f16", p, s0, p, b)) {
        check(half.toString().startsWith("boxing f16["), "f16 plan: " + half);
      }
    }
  }

  private static void allreduce() {
    int[] algorithms = {Collectives.ALLREDUCE_FLAT, Collectives.ALLREDUCE_AUTO,
        Collectives.ALLREDUCE_HIERARCHICAL};
    int[] ops = {Collectives.REDUCE_SUM, Collectives.REDUCE_MAX, Collectives.REDUCE_MIN};
    try (Placement p = Placement.parse("cpu:[0]")) {
      for (int algorithm : algorithms) {
        for (int op : ops) {
          float[] f = values(9, op);
          Collectives.allreduce(f, op, null, algorithm);
          check(Arrays.equals(f, values(9, op)), "allreduce f32 " + op + " " + algorithm);
          double[] d = {0.25, -2};
          Collectives.allreduce(d, op, p, algorithm);
          check(Arrays.equals(d, new double[] {0.25, -2}), "allreduce f64");
          int[] i = {3, -3};
          Collectives.allreduce(i, op, p, algorithm);
          check(Arrays.equals(i, new int[] {3, -3}), "allreduce i32");
          long[] l = {1L << 50};
          Collectives.allreduce(l, op, null, algorithm);
          check(Arrays.equals(l, new long[] {1L << 50}), "allreduce i64");
        }
      }
      checkThrows(() -> Collectives.allreduce(new float[2], 5, p, Collectives.ALLREDUCE_FLAT),
          Status.INVALID_ARGUMENT,
          "tess_comm_allreduce: op 5 is not a known reduce op (sum 0, max 1, min 2)", "bad op");
      checkThrows(() -> Collectives.allreduce(new float[2], Collectives.REDUCE_SUM, p, 9),
          Status.INVALID_ARGUMENT,
          "tess_comm_allreduce: algorithm 9 is not flat 0, auto 1 or hierarchical 2", "bad algorithm");
      checkThrows(() -> Collectives.allreduce(ByteBuffer.allocateDirect(8), 3, "f32",
          Collectives.REDUCE_SUM, p, Collectives.ALLREDUCE_FLAT), Status.INVALID_ARGUMENT,
          "Collectives.allreduce: buffer has 8 bytes but 3 f32 elements need 12", "short buffer");
    }
  }

  private static void bucketed() {
    float[][] arrays = new float[100][];
    for (int i = 0; i < 100; ++i) arrays[i] = values((i * 37) % 150, i);
    try (BucketedAllReducer r = BucketedAllReducer.create(512);
        Placement p = Placement.parse("cpu:[0]")) {
      r.allreduce(arrays, Collectives.REDUCE_SUM, null);
      r.allreduce(arrays, Collectives.REDUCE_MAX, p);
      boolean same = true;
      for (int i = 0; i < 100; ++i) same &= Arrays.equals(arrays[i], values((i * 37) % 150, i));
      check(same, "bucketed allreduce leaves one rank's arrays alone");
      long[] stats = r.stats();
      checkEq(stats[0], 2L, "calls");
      checkEq(stats[1], 1L, "plans built");
      check(stats[2] > stats[3] && stats[3] > 0, "buckets " + Arrays.toString(stats));
      double[][] d = {{1, 2}, {}, {3}};
      r.allreduce(d, Collectives.REDUCE_MIN, null);
      check(Arrays.equals(d[2], new double[] {3}), "bucketed f64");
      checkThrows(() -> r.allreduce(new ByteBuffer[] {null}, new long[] {4}, "f32",
          Collectives.REDUCE_SUM, null), Status.INVALID_ARGUMENT,
          "tess_bucketed_allreducer_run: buffers[0] is NULL but counts[0] is 4", "null buffer");
      checkThrows(() -> r.allreduce(new ByteBuffer[1], new long[2], "f32", Collectives.REDUCE_SUM,
          null), Status.INVALID_ARGUMENT, "1 buffers but 2 counts", "length mismatch");
    }
    checkThrows(() -> BucketedAllReducer.create(-1), Status.INVALID_ARGUMENT,
        "tess_bucketed_allreducer_create: options->bucket_bytes is -1; expected >= 0",
        "negative bucket");
  }

  private static void timeout() {
    Collectives.setCollectiveTimeout(4.5);
    checkEq(Collectives.collectiveTimeout(), 4.5, "timeout set");
    float[] f = values(3, 1);
    Collectives.allreduce(f, Collectives.REDUCE_SUM, null, Collectives.ALLREDUCE_FLAT);
    check(Arrays.equals(f, values(3, 1)), "allreduce under a timeout");
    checkThrows(() -> Collectives.setCollectiveTimeout(Double.NaN), Status.INVALID_ARGUMENT,
        "tess_comm_set_collective_timeout: seconds is nan", "NaN timeout");
    Collectives.setCollectiveTimeout(0);
    checkEq(Collectives.collectiveTimeout(), 0.0, "timeout cleared");
  }

  public static void main(String[] args) {
    box();
    allreduce();
    bucketed();
    timeout();
    Checks.finish();
  }
}
