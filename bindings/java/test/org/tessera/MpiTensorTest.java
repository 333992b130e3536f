package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkArray;
import static org.tessera.Checks.checkEq;
import static org.tessera.Checks.checkThrows;
import static org.tessera.MpiLayout.B;
import static org.tessera.MpiLayout.P;
import static org.tessera.MpiLayout.S;
import static org.tessera.MpiLayout.values;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The Java tensor API on every rank of an mpirun world (java_test.sh --mpi; 1-4
 * ranks): creation from the logical value and from each rank's own piece, toGlobal
 * between layouts, toHost, ops on split inputs and bad input, checked against loop
 * oracles (MpiLayout). Every rank makes the same calls in the same order.
 */
public final class MpiTensorTest {
  private static MpiWorld w;

  private static void world() {
    // Each rank marks its own slot: all ones iff every rank has a distinct rank.
    int[] seen = new int[w.size];
    seen[w.rank] = 1;
    Collectives.allreduce(seen, Collectives.REDUCE_SUM, null, Collectives.ALLREDUCE_FLAT);
    int[] ones = new int[w.size];
    java.util.Arrays.fill(ones, 1);
    checkArray(seen, ones, "one process per rank");
  }

  private static void opsOnEveryLayout() {
    float[] x = values(15, 0);
    float[] y = values(15, 5);
    float[] wv = values(12, 9);
    // reduce_sum(relu((x + y) * x) @ w, 0) by loops.
    float[] h = new float[15];
    for (int i = 0; i < 15; ++i) h[i] = Math.max((x[i] + y[i]) * x[i], 0);
    float[] prod = MpiLayout.matmul(h, wv, 5, 3, 4);
    float[] want = new float[4];
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 4; ++j) want[j] += prod[i * 4 + j];
    }
    float[] diff = new float[15];
    for (int i = 0; i < 15; ++i) diff[i] = x[i] - y[i];
    for (MpiLayout s : MpiLayout.everyLayout(w.size)) {
      try (Scope sc = new Scope()) {
        Placement p = sc.add(s.placement());
        NdSbp sbp = sc.add(s.ndSbp());
        NdSbp bcast = sc.add(s.broadcastOn().ndSbp());
        NdSbp wSbp = s.hierarchy.length == 1 ? sc.add(NdSbp.parse("S(1)")) : bcast;
        Tensor tx = sc.add(Tensor.fromHost(x, new long[] {5, 3}, p, sbp));
        Tensor ty = sc.add(Tensor.fromHost(y, new long[] {5, 3}, p, bcast));
        Tensor tw = sc.add(Tensor.fromHost(wv, new long[] {3, 4}, p, wSbp));
        Tensor sum = sc.add(tx.add(ty));
        Tensor prodT = sc.add(sc.add(sc.add(sum.mul(tx)).relu()).matmul(tw));
        Tensor out = sc.add(prodT.reduceSum(new long[] {0}, false));
        checkArray(out.toFloatArray(), want, tx + ": ops");
        Placement world = sc.add(MpiLayout.onWorld(w.size, B).placement());
        Tensor moved = sc.add(out.toGlobal(world, sc.add(NdSbp.parse("B"))));
        checkArray(moved.localFloatArray(), want, tx + ": to B, local");
        checkArray(sc.add(tx.sub(ty)).toFloatArray(), diff, tx + ": x - y");
      }
    }
  }

  private static void matmulOnSplitInputs() {
    float[] a = values(35, 2); // [7,5]
    float[] b = values(20, 7); // [5,4]
    float[] want = MpiLayout.matmul(a, b, 7, 5, 4);
    MpiLayout[] left = {MpiLayout.onWorld(w.size, S, 0), MpiLayout.onWorld(w.size, S, 1),
        MpiLayout.onWorld(w.size, B), MpiLayout.onWorld(w.size, P)};
    MpiLayout[] right = {MpiLayout.onWorld(w.size, S, 0), MpiLayout.onWorld(w.size, S, 1),
        MpiLayout.onWorld(w.size, B)};
    for (MpiLayout la : left) {
      for (MpiLayout lb : right) {
        try (Scope sc = new Scope()) {
          Placement p = sc.add(la.placement());
          Tensor ta = sc.add(Tensor.fromHost(a, new long[] {7, 5}, p, sc.add(la.ndSbp())));
          Tensor tb = sc.add(Tensor.fromHost(b, new long[] {5, 4}, p, sc.add(lb.ndSbp())));
          Tensor out = sc.add(ta.matmul(tb));
          checkArray(out.shape(), new long[] {7, 4}, ta + " @ " + tb + ": shape");
          checkArray(out.toFloatArray(), want, ta + " @ " + tb);
        }
      }
    }
  }

  private static void toGlobalBetweenLayouts() {
    long[] shape = {7, 5};
    float[] a = values(35, 3);
    List<MpiLayout> layouts = MpiLayout.everyLayout(w.size);
    layouts.add(MpiLayout.onlyRank(w.size - 1));
    layouts.add(MpiLayout.onWorld(w.size, S, 1).backwards());
    for (MpiLayout src : layouts) {
      try (Scope sc = new Scope()) {
        Tensor x = sc.add(Tensor.fromHost(a, shape, sc.add(src.placement()), sc.add(src.ndSbp())));
        for (MpiLayout dst : layouts) {
          Tensor y = sc.add(x.toGlobal(sc.add(dst.placement()), sc.add(dst.ndSbp())));
          checkArray(y.toFloatArray(), a, x + " -> " + y);
          if (!dst.isPartial() && dst.index(w.rank) >= 0) {
            checkArray(
                y.localFloatArray(), dst.piece(a, shape, w.rank), x + " -> " + y + ": piece");
          }
        }
      }
    }
    // The other dtypes take the same paths.
    MpiLayout s0 = MpiLayout.onWorld(w.size, S, 0);
    try (Scope sc = new Scope()) {
      Placement p = sc.add(s0.placement());
      NdSbp n0 = sc.add(s0.ndSbp());
      NdSbp b = sc.add(NdSbp.parse("B"));
      long[] l = MpiLayout.longs(35, 1);
      checkArray(sc.add(sc.add(Tensor.fromHost(l, shape, p, n0)).toGlobal(p, b)).toLongArray(), l,
          "i64 S(0) -> B");
      double[] d = MpiLayout.doubles(35, 4);
      checkArray(sc.add(sc.add(Tensor.fromHost(d, shape, p, b)).toGlobal(p, n0)).localDoubleArray(),
          s0.piece(d, shape, w.rank), "f64 B -> S(0): piece");
    }
  }

  private static void localPiecesAndFromLocal() {
    long[] shape = {7, 5};
    float[] a = values(35, 1);
    for (MpiLayout s : MpiLayout.everyLayout(w.size)) {
      try (Scope sc = new Scope()) {
        Placement p = sc.add(s.placement());
        NdSbp n = sc.add(s.ndSbp());
        float[] mine = s.piece(a, shape, w.rank);
        long[] localShape = s.localShape(shape, w.rank);
        if (!s.isPartial()) {
          Tensor x = sc.add(Tensor.fromHost(a, shape, p, n));
          checkArray(x.localShape(), localShape, x + ": local shape");
          checkArray(x.localFloatArray(), mine, x + ": local piece");
        }
        // This rank's own piece (partial pieces differ by rank) gives the value back.
        Tensor y = sc.add(Tensor.fromLocal(mine, localShape, p, n, null));
        checkArray(y.shape(), shape, y + ": inferred shape");
        checkArray(y.toFloatArray(), a, y + ": from pieces");
      }
    }
  }

  private static void fromLocalUneven() {
    final int rows = 7; // 4+3 on 2 ranks, 3+2+2 on 3, 2+2+2+1 on 4
    float[] a = values(rows * 2, 4);
    int n = rows / w.size;
    int extra = rows % w.size;
    int first = w.rank < extra ? w.rank * (n + 1) : w.rank * n + extra;
    int count = w.rank < extra ? n + 1 : n;
    float[] mine = java.util.Arrays.copyOfRange(a, 2 * first, 2 * (first + count));
    try (Scope sc = new Scope()) {
      Placement p = sc.add(MpiLayout.onWorld(w.size, B).placement());
      NdSbp s0 = sc.add(NdSbp.parse("S(0)"));
      for (long[] logical : new long[][] {null, {rows, 2}}) {
        Tensor x = sc.add(Tensor.fromLocal(mine, new long[] {count, 2}, p, s0, logical));
        String what = "7 rows, " + count + " here, logical " + java.util.Arrays.toString(logical);
        checkArray(x.shape(), new long[] {rows, 2}, what + ": shape");
        checkArray(x.toFloatArray(), a, what);
      }
      // P: the logical value is the sum of every rank's rank+1.
      long r1 = w.rank + 1;
      long total = (long) w.size * (w.size + 1) / 2;
      Tensor sum = sc.add(Tensor.fromLocal(
          new long[] {r1, r1, r1}, new long[] {3}, p, sc.add(NdSbp.parse("P")), new long[] {3}));
      checkArray(sum.toLongArray(), new long[] {total, total, total}, "P sum of rank+1");
      // B: each rank passes its own copy; rank 0's wins.
      Tensor copy = sc.add(Tensor.fromLocal(
          new double[] {w.rank, -w.rank}, new long[] {2}, p, sc.add(NdSbp.parse("B")), null));
      checkArray(copy.toDoubleArray(), new double[] {0, 0}, "B from differing copies");
    }
  }

  private static void subPlacement() {
    float[] a = values(6, 2);
    float[] neg = new float[6];
    for (int i = 0; i < 6; ++i) neg[i] = -a[i];
    try (Scope sc = new Scope()) {
      MpiLayout last = MpiLayout.onlyRank(w.size - 1);
      Placement pl = sc.add(last.placement());
      NdSbp b = sc.add(last.ndSbp());
      Tensor x = sc.add(sc.add(Tensor.fromHost(a, new long[] {2, 3}, pl, b)).neg());
      checkEq(x.hasLocal(), w.rank == w.size - 1, "hasLocal on the last rank only");
      checkArray(x.toFloatArray(), neg, "-x on the last rank");
      if (w.rank != w.size - 1) {
        checkThrows(()
                        -> x.localFloatArray(),
            Status.FAILED_PRECONDITION, "rank " + w.rank + " holds no local piece",
            "local piece outside");
      }
      if (w.size > 1) {
        Placement world = sc.add(MpiLayout.onWorld(w.size, B).placement());
        Tensor y = sc.add(Tensor.fromHost(a, new long[] {2, 3}, world, b));
        checkThrows(
            () -> y.add(x), Status.INVALID_ARGUMENT, pl.toString(), "add across placements");
      }
    }
  }

  private static void explainShowsBoxing() {
    if (w.size == 1) {
      return; // a world of one rank boxes nothing
    }
    float[] x = values(24, 0);
    float[] y = values(24, 1);
    float[] sum = new float[24];
    for (int i = 0; i < 24; ++i) sum[i] = x[i] + y[i];
    try (Scope sc = new Scope()) {
      Placement p = sc.add(MpiLayout.onWorld(w.size, B).placement());
      Tensor tx = sc.add(Tensor.fromHost(x, new long[] {4, 6}, p, sc.add(NdSbp.parse("S(0)"))));
      Tensor ty = sc.add(Tensor.fromHost(y, new long[] {4, 6}, p, sc.add(NdSbp.parse("S(1)"))));
      checkArray(sc.add(tx.add(ty)).toFloatArray(), sum, "S(0) + S(1)");
      String text = sc.add(Inference.explainLast()).text();
      check(text.contains("add") && text.contains("S(1) -> S(0)"),
          "explain does not show the boxing:\n" + text);
    }
  }

  // InitOptions.check(true): the last rank's mul against the others' add fails on every
  // rank with FAILED_PRECONDITION naming it; then a call all ranks make alike works.
  private static void checkMode() {
    Tessera.init(InitOptions.builder().check(true).build());
    float[] x = values(6, 0);
    float[] twice = new float[6];
    for (int i = 0; i < 6; ++i) twice[i] = 2 * x[i];
    try (Scope sc = new Scope()) {
      Placement p = sc.add(MpiLayout.onWorld(w.size, B).placement());
      Tensor t = sc.add(Tensor.fromHost(x, new long[] {6}, p, sc.add(NdSbp.parse("S(0)"))));
      boolean last = w.rank == w.size - 1;
      if (w.size > 1) {
        checkThrows(()
                        -> sc.add(last ? t.mul(t) : t.add(t)),
            Status.FAILED_PRECONDITION,
            "did not issue the same call: op: rank " + (w.size - 1) + " differs from rank",
            "divergent op");
      }
      checkArray(sc.add(t.add(t)).toFloatArray(), twice, "in step after the divergence");
    } finally {
      Tessera.init(InitOptions.builder().check(false).build());
    }
  }

  private static void badInput() {
    try (Scope sc = new Scope()) {
      MpiLayout s0 = MpiLayout.onWorld(w.size, S, 0);
      Placement p = sc.add(s0.placement());
      NdSbp n0 = sc.add(s0.ndSbp());
      NdSbp b = sc.add(NdSbp.parse("B"));
      // Too little data, a too-small buffer: caught before any communication.
      checkThrows(()
                      -> Tensor.fromHost(values(13, 0), new long[] {7, 2}, p, n0),
          Status.INVALID_ARGUMENT,
          "Tensor.fromHost: data has 13 elements but shape [7, 2] needs 14", "short host data");
      checkThrows(()
                      -> Tensor.fromLocal(
                          ByteBuffer.allocateDirect(12), new long[] {2, 2}, "f32", p, n0, null),
          Status.INVALID_ARGUMENT,
          "Tensor.fromLocal: buffer has 12 bytes but 4 f32 elements need 16", "short local buffer");
      Tensor x = sc.add(Tensor.fromHost(values(14, 0), new long[] {7, 2}, p, n0));
      checkThrows(()
                      -> x.toHost(ByteBuffer.allocateDirect(52)),
          Status.INVALID_ARGUMENT,
          "tess_tensor_to_host: out has 52 bytes but 14 f32 elements need 56", "short out buffer");
      // A local shape that is no rank's part of the given logical shape: every rank returns
      // the error of the lowest failing rank, 0.
      long[] part = s0.localShape(new long[] {7, 2}, 0);
      checkThrows(
          ()
              -> Tensor.fromLocal(values(10, 0), new long[] {5, 2}, p, n0, new long[] {7, 2}),
          Status.INVALID_ARGUMENT,
          "from_local: rank 0's local shape [5,2] is not its part [" + part[0]
              + ",2] of logical shape [7,2] under S(0) on " + p,
          "local vs logical shape");
      // A placement naming a rank the world lacks.
      Placement outside = sc.add(MpiLayout.onWorld(w.size + 1, B).placement());
      checkThrows(()
                      -> Tensor.fromLocal(values(2, 0), new long[] {1, 2}, outside, n0, null),
          Status.OUT_OF_RANGE,
          "from_local: placement " + outside + " names rank " + w.size + " but the world has "
              + w.size + " ranks",
          "rank outside the world");
      // Shapes that do not fit, on split inputs.
      Tensor m = sc.add(Tensor.fromHost(values(12, 0), new long[] {3, 4}, p, b));
      checkThrows(
          () -> x.matmul(m), Status.INVALID_ARGUMENT, "tess_matmul: matmul", "matmul shapes");
      Tensor v = sc.add(Tensor.fromHost(values(3, 0), new long[] {3}, p, b));
      checkThrows(() -> x.add(v), Status.INVALID_ARGUMENT, "tess_add: add", "add shapes");
      if (w.size == 1) {
        return; // one rank's locals always make a balanced split
      }
      // Locals that are not the balanced split of the logical shape they add up to:
      // rank 0 holds 1 row, the others 2.
      long rows = 1 + 2L * (w.size - 1);
      long[] part0 = MpiLayout.balanced(0, rows, w.size, 0);
      long local = w.rank == 0 ? 1 : 2;
      checkThrows(
          ()
              -> Tensor.fromLocal(values((int) (2 * local), 0), new long[] {local, 2}, p, n0, null),
          Status.INVALID_ARGUMENT,
          "from_local: rank 0's local shape [1,2] is not its part [" + (part0[1] - part0[0])
              + ",2] of the balanced split of logical shape [" + rows + ",2] under S(0) on " + p,
          "unbalanced locals");
      // Locals of different ranks (rank 0 1-d, the others 2-d).
      long[] ls = w.rank == 0 ? new long[] {2} : new long[] {1, 2};
      checkThrows(()
                      -> Tensor.fromLocal(values(2, 0), ls, p, n0, null),
          Status.INVALID_ARGUMENT,
          "from_local: rank 1's local shape [1,2] has a different rank than rank 0's [2]",
          "locals of different ranks");
    }
  }

  public static void main(String[] args) {
    w = MpiWorld.start(args);
    world();
    opsOnEveryLayout();
    matmulOnSplitInputs();
    toGlobalBetweenLayouts();
    localPiecesAndFromLocal();
    fromLocalUneven();
    subPlacement();
    explainShowsBoxing();
    checkMode();
    badInput();
    w.finish();
  }
}
