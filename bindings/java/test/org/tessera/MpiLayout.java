package org.tessera;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A placed nd-sbp as the MPI tests understand it: a placement's ranks in row-major
 * order over its hierarchy, and one SBP (kind, split axis) per hierarchy axis. The
 * pieces each rank should hold are computed here by plain loops (the balanced split
 * included), never through the library, so they are the tests' oracle.
 */
final class MpiLayout {
  final int[] ranks;
  final long[] hierarchy;
  final int[] kinds;
  final int[] splitAxes;

  MpiLayout(int[] ranks, long[] hierarchy, int[] kinds, int[] splitAxes) {
    this.ranks = ranks;
    this.hierarchy = hierarchy;
    this.kinds = kinds;
    this.splitAxes = splitAxes;
  }

  static final int S = NdSbp.SPLIT;
  static final int B = NdSbp.BROADCAST;
  static final int P = NdSbp.PARTIAL_SUM;
  static final int PMAX = NdSbp.PARTIAL_MAX;
  static final int PMIN = NdSbp.PARTIAL_MIN;

  /** 0, 1, ..., n-1. */
  static int[] ranksUpTo(int n) {
    int[] r = new int[n];
    for (int i = 0; i < n; ++i) r[i] = i;
    return r;
  }

  /** {@code kind} (splitting {@code axis} if S) on cpu:[0..size-1]. */
  static MpiLayout onWorld(int size, int kind, int axis) {
    return new MpiLayout(
        ranksUpTo(size), new long[] {size}, new int[] {kind}, new int[] {kind == S ? axis : -1});
  }

  static MpiLayout onWorld(int size, int kind) {
    return onWorld(size, kind, -1);
  }

  /** B on cpu:[rank]. */
  static MpiLayout onlyRank(int rank) {
    return new MpiLayout(new int[] {rank}, new long[] {1}, new int[] {B}, new int[] {-1});
  }

  /** The same sbp on the world's ranks in reverse order. */
  MpiLayout backwards() {
    int[] r = new int[ranks.length];
    for (int i = 0; i < r.length; ++i) r[i] = ranks[ranks.length - 1 - i];
    return new MpiLayout(r, hierarchy, kinds, splitAxes);
  }

  /** B on every axis of this placement. */
  MpiLayout broadcastOn() {
    int[] k = new int[kinds.length];
    int[] a = new int[kinds.length];
    Arrays.fill(k, B);
    Arrays.fill(a, -1);
    return new MpiLayout(ranks, hierarchy, k, a);
  }

  /** Every 1-d sbp on the world and, with 4 ranks, some on the 2x2 grid. */
  static List<MpiLayout> everyLayout(int size) {
    List<MpiLayout> out = new ArrayList<>();
    out.add(onWorld(size, S, 0));
    out.add(onWorld(size, S, 1));
    for (int kind : new int[] {B, P, PMAX, PMIN}) out.add(onWorld(size, kind));
    if (size == 4) {
      long[] grid = {2, 2};
      out.add(new MpiLayout(ranksUpTo(4), grid, new int[] {S, S}, new int[] {0, 1}));
      out.add(new MpiLayout(ranksUpTo(4), grid, new int[] {P, S}, new int[] {-1, 0}));
      out.add(new MpiLayout(ranksUpTo(4), grid, new int[] {B, PMAX}, new int[] {-1, -1}));
    }
    return out;
  }

  /** The layout of a tensor on {@code placement} held as {@code ndSbp}, read through the API. */
  static MpiLayout of(Placement placement, NdSbp ndSbp) {
    int[] ranks = new int[(int) placement.parallelNum()];
    for (int i = 0; i < ranks.length; ++i) ranks[i] = placement.rankAt(i);
    int[] kinds = new int[(int) ndSbp.numAxes()];
    int[] axes = new int[kinds.length];
    for (int a = 0; a < kinds.length; ++a) {
      kinds[a] = ndSbp.kind(a);
      axes[a] = ndSbp.splitAxis(a);
    }
    return new MpiLayout(ranks, placement.hierarchy(), kinds, axes);
  }

  /** A new placement handle; the caller closes it. */
  Placement placement() {
    return Placement.create(Placement.DEVICE_CPU, ranks, hierarchy);
  }

  /** A new nd-sbp handle; the caller closes it. */
  NdSbp ndSbp() {
    return NdSbp.create(kinds, splitAxes);
  }

  @Override
  public String toString() {
    return Arrays.toString(ranks) + Arrays.toString(hierarchy) + " kinds " + Arrays.toString(kinds)
        + " axes " + Arrays.toString(splitAxes);
  }

  boolean isPartial() {
    for (int k : kinds) {
      if (k != S && k != B) {
        return true;
      }
    }
    return false;
  }

  /** {@code rank}'s parallel index; -1 outside the placement. */
  int index(int rank) {
    for (int i = 0; i < ranks.length; ++i) {
      if (ranks[i] == rank) {
        return i;
      }
    }
    return -1;
  }

  /** Parallel index {@code i}'s coordinate along hierarchy axis {@code axis}. */
  long coord(long i, int axis) {
    long stride = 1;
    for (int b = hierarchy.length - 1; b > axis; --b) stride *= hierarchy[b];
    return i / stride % hierarchy[axis];
  }

  /** Part {@code index} of [begin, end) cut in {@code parts}: the first ones get the extras. */
  static long[] balanced(long begin, long end, long parts, long index) {
    long q = (end - begin) / parts;
    long r = (end - begin) % parts;
    long b = begin + index * q + Math.min(index, r);
    return new long[] {b, b + q + (index < r ? 1 : 0)};
  }

  /**
   * {begin, end} index arrays of {@code rank}'s piece of a tensor of {@code shape}:
   * nested splits, hierarchy axis 0 first; null outside the placement.
   */
  long[][] bounds(long[] shape, int rank) {
    int i = index(rank);
    if (i < 0) {
      return null;
    }
    long[] begin = new long[shape.length];
    long[] end = shape.clone();
    for (int a = 0; a < kinds.length; ++a) {
      if (kinds[a] != S) {
        continue;
      }
      int d = splitAxes[a];
      long[] part = balanced(begin[d], end[d], hierarchy[a], coord(i, a));
      begin[d] = part[0];
      end[d] = part[1];
    }
    return new long[][] {begin, end};
  }

  /** {@code rank}'s local shape; null outside the placement. */
  long[] localShape(long[] shape, int rank) {
    long[][] be = bounds(shape, rank);
    if (be == null) {
      return null;
    }
    long[] local = new long[shape.length];
    for (int d = 0; d < shape.length; ++d) local[d] = be[1][d] - be[0][d];
    return local;
  }

  /** Row-major offsets into the logical array of {@code rank}'s piece, in order. */
  int[] offsets(long[] shape, int rank) {
    long[][] be = bounds(shape, rank);
    long n = 1;
    for (int d = 0; d < shape.length; ++d) n *= be[1][d] - be[0][d];
    int[] out = new int[(int) n];
    if (n == 0) {
      return out;
    }
    long[] idx = be[0].clone();
    for (int k = 0; k < n; ++k) {
      long off = 0;
      for (int d = 0; d < shape.length; ++d) off = off * shape[d] + idx[d];
      out[k] = (int) off;
      for (int d = shape.length - 1; d >= 0; --d) {
        if (++idx[d] < be[1][d]) {
          break;
        }
        idx[d] = be[0][d];
      }
    }
    return out;
  }

  /**
   * What {@code rank} holds of value {@code v} along the partial axes: the rank at
   * coordinate 0 holds it, the others what leaves the reduction alone (0 for P, one
   * less for P(max), one more for P(min)).
   */
  double partialPiece(double v, int rank) {
    int i = index(rank);
    for (int a = 0; a < kinds.length; ++a) {
      if (coord(i, a) == 0) {
        continue;
      }
      if (kinds[a] == P) {
        v = 0;
      }
      if (kinds[a] == PMAX) {
        v -= 1;
      }
      if (kinds[a] == PMIN) {
        v += 1;
      }
    }
    return v;
  }

  /** {@code rank}'s piece of the logical array {@code a} of {@code shape}; null outside. */
  double[] piece(double[] a, long[] shape, int rank) {
    if (index(rank) < 0) {
      return null;
    }
    int[] off = offsets(shape, rank);
    double[] out = new double[off.length];
    for (int k = 0; k < off.length; ++k) out[k] = partialPiece(a[off[k]], rank);
    return out;
  }

  float[] piece(float[] a, long[] shape, int rank) {
    return toFloats(piece(Checks.widen(a), shape, rank));
  }

  /** Integer pieces (values below 2^53, so exact through doubles). */
  long[] piece(long[] a, long[] shape, int rank) {
    return toLongs(piece(Checks.widen(a), shape, rank));
  }

  static float[] toFloats(double[] a) {
    if (a == null) {
      return null;
    }
    float[] f = new float[a.length];
    for (int i = 0; i < a.length; ++i) f[i] = (float) a[i];
    return f;
  }

  static long[] toLongs(double[] a) {
    return a == null ? null : java.util.Arrays.stream(a).mapToLong(v -> (long) v).toArray();
  }

  /** ((i * 7 + salt) % 23 - 11) / 4: small values whose float sums are exact. */
  static double[] doubles(int n, int salt) {
    double[] v = new double[n];
    for (int i = 0; i < n; ++i) v[i] = ((i * 7 + salt) % 23 - 11) * 0.25;
    return v;
  }

  static float[] values(int n, int salt) {
    return toFloats(doubles(n, salt));
  }

  /** The same without the / 4. */
  static long[] longs(int n, int salt) {
    long[] v = new long[n];
    for (int i = 0; i < n; ++i) v[i] = (i * 7 + salt) % 23 - 11;
    return v;
  }

  /** a [m,k] @ b [k,n] by loops. */
  static float[] matmul(float[] a, float[] b, int m, int k, int n) {
    float[] out = new float[m * n];
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        for (int l = 0; l < k; ++l) out[i * n + j] += a[i * k + l] * b[l * n + j];
      }
    }
    return out;
  }
}
