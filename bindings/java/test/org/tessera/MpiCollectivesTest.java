package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkArray;
import static org.tessera.Checks.checkThrows;
import static org.tessera.MpiLayout.B;
import static org.tessera.MpiLayout.P;
import static org.tessera.MpiLayout.PMAX;
import static org.tessera.MpiLayout.PMIN;
import static org.tessera.MpiLayout.S;
import static org.tessera.MpiLayout.values;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Boxing.box, Collectives.allreduce and BucketedAllReducer on every rank of an mpirun
 * world (java_test.sh --mpi; 1-4 ranks). Each rank cuts its source piece from a
 * logical array it builds itself and compares what it gets with the piece, or the
 * reduction over every rank's values, computed by loops (MpiLayout).
 */
public final class MpiCollectivesTest {
  private static MpiWorld w;

  private static void boxEveryPair() {
    long[] shape = {7, 5};
    float[] a = values(35, 3);
    int[][] sources = {{S, 0}, {S, 1}, {B, -1}, {P, -1}, {PMAX, -1}, {PMIN, -1}};
    int[][] destinations = {{S, 0}, {S, 1}, {B, -1}};
    for (int[] src : sources) {
      MpiLayout ls = MpiLayout.onWorld(w.size, src[0], src[1]);
      float[] in = ls.piece(a, shape, w.rank);
      for (int[] dst : destinations) {
        MpiLayout forwards = MpiLayout.onWorld(w.size, dst[0], dst[1]);
        for (MpiLayout ld : new MpiLayout[] {forwards, forwards.backwards()}) {
          try (Scope sc = new Scope()) {
            Placement ps = sc.add(ls.placement());
            NdSbp ns = sc.add(ls.ndSbp());
            Placement pd = sc.add(ld.placement());
            NdSbp nd = sc.add(ld.ndSbp());
            checkArray(Boxing.box(in, shape, ps, ns, pd, nd), ld.piece(a, shape, w.rank),
                ps + " " + ns + " -> " + pd + " " + nd);
          }
        }
      }
    }
    // Integers, and a 2x2 grid with 4 ranks.
    long[] ints = MpiLayout.longs(35, 5);
    List<MpiLayout> layouts = new ArrayList<>();
    layouts.add(MpiLayout.onWorld(w.size, S, 1));
    layouts.add(MpiLayout.onWorld(w.size, P));
    if (w.size == 4) {
      layouts.add(new MpiLayout(
          MpiLayout.ranksUpTo(4), new long[] {2, 2}, new int[] {S, S}, new int[] {0, 1}));
      layouts.add(new MpiLayout(
          MpiLayout.ranksUpTo(4), new long[] {2, 2}, new int[] {P, S}, new int[] {-1, 0}));
    }
    for (MpiLayout src : layouts) {
      for (MpiLayout dst : layouts) {
        if (dst.isPartial()) {
          continue; // a partial destination's pieces are the library's choice
        }
        try (Scope sc = new Scope()) {
          checkArray(Boxing.box(src.piece(ints, shape, w.rank), shape, sc.add(src.placement()),
                         sc.add(src.ndSbp()), sc.add(dst.placement()), sc.add(dst.ndSbp())),
              dst.piece(ints, shape, w.rank), "i64 " + src + " -> " + dst);
        }
      }
    }
  }

  private static void boxToASubPlacement() {
    long[] shape = {4, 3};
    double[] a = MpiLayout.doubles(12, 1);
    MpiLayout s0 = MpiLayout.onWorld(w.size, S, 0);
    MpiLayout s1 = MpiLayout.onWorld(w.size, S, 1);
    MpiLayout last = MpiLayout.onlyRank(w.size - 1);
    try (Scope sc = new Scope()) {
      Placement pw = sc.add(s0.placement());
      Placement pl = sc.add(last.placement());
      NdSbp b = sc.add(last.ndSbp());
      double[] out = Boxing.box(s0.piece(a, shape, w.rank), shape, pw, sc.add(s0.ndSbp()), pl, b);
      checkArray(out, w.rank == w.size - 1 ? a : null, "to the last rank");
      // And back: only the last rank has a piece to send.
      checkArray(Boxing.box(out, shape, pl, b, pw, sc.add(s1.ndSbp())), s1.piece(a, shape, w.rank),
          "back to S(1)");
    }
  }

  private static void boxBadInput() {
    long[] shape = {7, 5};
    MpiLayout s0 = MpiLayout.onWorld(w.size, S, 0);
    float[] in = s0.piece(values(35, 0), shape, w.rank);
    try (Scope sc = new Scope()) {
      Placement p = sc.add(s0.placement());
      NdSbp n0 = sc.add(s0.ndSbp());
      NdSbp b = sc.add(NdSbp.parse("B"));
      // A wrong-sized buffer on every rank: every rank fails before communicating.
      float[] shortIn = java.util.Arrays.copyOf(in, in.length - 1);
      checkThrows(()
                      -> Boxing.box(shortIn, shape, p, n0, p, b),
          Status.INVALID_ARGUMENT,
          "tess_boxing_run: in_bytes is " + 4 * shortIn.length + " but rank " + w.rank
              + "'s src piece (S(0) on " + p + ") holds " + in.length + " f32 elements, "
              + 4 * in.length + " bytes",
          "short piece");
      ByteBuffer out = ByteBuffer.allocateDirect(4 * 35 - 4).order(ByteOrder.nativeOrder());
      checkThrows(()
                      -> Boxing.box(out, HostBuffers.bufferOf(in), shape, "f32", p, n0, p, b),
          Status.INVALID_ARGUMENT,
          "tess_boxing_run: out_bytes is 136 but rank " + w.rank + "'s dst piece (B on " + p
              + ") holds 35 f32 elements, 140 bytes",
          "short out buffer");
      Placement outside = sc.add(MpiLayout.onWorld(w.size + 1, B).placement());
      checkThrows(()
                      -> Boxing.box(in, shape, p, n0, outside, b),
          Status.OUT_OF_RANGE, "names rank " + w.size + " but the world has " + w.size + " ranks",
          "rank outside the world");
      NdSbp s5 = sc.add(NdSbp.parse("S(5)"));
      checkThrows(()
                      -> Boxing.box(in, shape, p, n0, p, s5),
          Status.INVALID_ARGUMENT, "S(5)", "split axis 5 of a 2-d tensor");
    }
  }

  private static void boxingPlan() {
    try (Scope sc = new Scope()) {
      Placement p = sc.add(MpiLayout.onWorld(w.size, B).placement());
      BoxingPlan plan = sc.add(Boxing.plan(
          new long[] {7, 5}, "f32", p, sc.add(NdSbp.parse("P")), p, sc.add(NdSbp.parse("S(1)"))));
      long steps = plan.numSteps();
      check(w.size == 1 || steps > 0, "P -> S(1) on " + w.size + " ranks takes no step");
      String text = plan.toString();
      for (long i = 0; i < steps; ++i) {
        String line = (i + 1) + ". " + plan.step(i) + "\n";
        check(text.contains(line), "plan text lacks \"" + line + "\":\n" + text);
      }
    }
  }

  /** op over the values of ranks 0..size-1, by loops. */
  private static double[] reduce(int op, int size, IntFunction<double[]> values) {
    double[] out = values.apply(0).clone();
    for (int r = 1; r < size; ++r) {
      double[] v = values.apply(r);
      for (int i = 0; i < out.length; ++i) {
        out[i] = op == Collectives.REDUCE_SUM ? out[i] + v[i]
            : op == Collectives.REDUCE_MAX    ? Math.max(out[i], v[i])
                                          : Math.min(out[i], v[i]);
      }
    }
    return out;
  }

  private static void allreduce() {
    int[] algorithms = {
        Collectives.ALLREDUCE_FLAT, Collectives.ALLREDUCE_AUTO, Collectives.ALLREDUCE_HIERARCHICAL};
    for (int algorithm : algorithms) {
      for (int op : new int[] {Collectives.REDUCE_SUM, Collectives.REDUCE_MAX, Collectives.REDUCE_MIN}) {
        String what = "op " + op + " algorithm " + algorithm;
        float[] x = values(1000, w.rank);
        Collectives.allreduce(x, op, null, algorithm);
        double[] want = reduce(op, w.size, r -> Checks.widen(values(1000, r)));
        checkArray(x, MpiLayout.toFloats(want), "f32 " + what);
        // Integer values (exact in doubles), so one oracle serves every type.
        IntFunction<double[]> ints = r -> new double[] {(long) r << 40, -r, 3 * r - 2};
        want = reduce(op, w.size, ints);
        long[] l = {(long) w.rank << 40, -w.rank, 3 * w.rank - 2};
        Collectives.allreduce(l, op, null, algorithm);
        checkArray(l, MpiLayout.toLongs(want), "i64 " + what);
        int[] i = {-w.rank, 3 * w.rank - 2};
        Collectives.allreduce(i, op, null, algorithm);
        checkArray(i, new int[] {(int) want[1], (int) want[2]}, "i32 " + what);
        double[] d = ints.apply(w.rank);
        Collectives.allreduce(d, op, null, algorithm);
        checkArray(d, want, "f64 " + what);
      }
    }
    try (Scope sc = new Scope()) {
      if (w.size > 1) {
        // Over ranks 1 and 0 only; the others keep their values.
        Placement firstTwo = sc.add(Placement.parse("cpu:[1,0]"));
        IntFunction<double[]> v = r -> Checks.widen(MpiLayout.longs(9, r));
        long[] x = MpiLayout.longs(9, w.rank);
        Collectives.allreduce(x, Collectives.REDUCE_SUM, firstTwo, Collectives.ALLREDUCE_AUTO);
        double[] want = w.rank < 2 ? reduce(Collectives.REDUCE_SUM, 2, v) : v.apply(w.rank);
        checkArray(x, MpiLayout.toLongs(want), "over cpu:[1,0]");
      }
      Placement outside = sc.add(MpiLayout.onWorld(w.size + 1, B).placement());
      checkThrows(()
                      -> Collectives.allreduce(
                          new float[1], Collectives.REDUCE_SUM, outside, Collectives.ALLREDUCE_FLAT),
          Status.OUT_OF_RANGE, "names rank " + w.size + " but the world has " + w.size + " ranks",
          "rank outside the world");
      checkThrows(()
                      -> Collectives.allreduce(ByteBuffer.allocateDirect(8), 3, "f32",
                          Collectives.REDUCE_SUM, null, Collectives.ALLREDUCE_FLAT),
          Status.INVALID_ARGUMENT,
          "Collectives.allreduce: buffer has 8 bytes but 3 f32 elements need 12", "short buffer");
    }
  }

  private static void bucketed() {
    int[] sizes = new int[100];
    for (int i = 0; i < 100; ++i) sizes[i] = i % 10 == 0 ? 0 : (i * 29) % 300;
    try (BucketedAllReducer r = BucketedAllReducer.create(1024)) {
      for (int op : new int[] {Collectives.REDUCE_SUM, Collectives.REDUCE_MAX, Collectives.REDUCE_MIN}) {
        float[][] arrays = new float[100][];
        for (int i = 0; i < 100; ++i) arrays[i] = values(sizes[i], w.rank * 3 + i);
        r.allreduce(arrays, op, null);
        for (int i = 0; i < 100; ++i) {
          final int k = i;
          checkArray(arrays[i],
              MpiLayout.toFloats(
                  reduce(op, w.size, q -> Checks.widen(values(sizes[k], q * 3 + k)))),
              "bucketed op " + op + " array " + i);
        }
      }
      long[] stats = r.stats();
      check(stats[0] == 3 && stats[1] == 1 && stats[2] > stats[3],
          "stats " + java.util.Arrays.toString(stats));
      // Doubles (integer values) over the world placement given explicitly.
      try (Placement p = MpiLayout.onWorld(w.size, B).placement()) {
        double[][] d = {MpiLayout.doubles(20, w.rank), {}, {w.rank}};
        r.allreduce(d, Collectives.REDUCE_MAX, p);
        checkArray(d[0], reduce(Collectives.REDUCE_MAX, w.size, q -> MpiLayout.doubles(20, q)),
            "bucketed f64 max");
        checkArray(d[1], new double[0], "bucketed f64 empty");
        checkArray(d[2], new double[] {w.size - 1}, "bucketed f64 max rank");
      }
      checkThrows(()
                      -> r.allreduce(new ByteBuffer[] {HostBuffers.direct(8)}, new long[] {3}, "f32",
                          Collectives.REDUCE_SUM, null),
          Status.INVALID_ARGUMENT,
          "BucketedAllReducer.allreduce: buffers[0] has 8 bytes but counts[0] = 3 f32 elements "
              + "need 12",
          "short buffer");
      checkThrows(()
                      -> r.allreduce(new float[][] {{1}}, 9, null),
          Status.INVALID_ARGUMENT,
          "tess_bucketed_allreducer_run: op 9 is not a known reduce op (sum 0, max 1, min 2)", "bad op");
    }
  }

  public static void main(String[] args) {
    w = MpiWorld.start(args);
    boxEveryPair();
    boxToASubPlacement();
    boxBadInput();
    boxingPlan();
    allreduce();
    bucketed();
    w.finish();
  }
}
