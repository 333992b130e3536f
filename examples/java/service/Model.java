package org.tessera.examples.service;

import org.tessera.NdSbp;
import org.tessera.Placement;
import org.tessera.Plan;
import org.tessera.Program;
import org.tessera.Tensor;

/**
 * The example model (docs/serving.md, "The example model"): y = relu(x W1) W2, x [rows,
 * 16], W1 [16, 64], W2 [64, 8], f32, weights from splitmix64(seed), laid out over the
 * world as a [dp, mp] grid, compiled for CAPACITY rows. Built the same way on every rank.
 */
final class Model {
  static final int IN = 16;
  static final int HIDDEN = 64;
  static final int OUT = 8;
  static final int CAPACITY = 64;
  static final String X_SBP = "(S(0), B)";
  static final String W1_SBP = "(B, S(1))";
  static final String W2_SBP = "(B, S(0))";

  private Model() {}

  /** W1 (row-major, IN x HIDDEN) then W2 (HIDDEN x OUT), each (z >> 40) / 2^24 - 0.5. */
  static float[][] weights(long seed) {
    long state = seed;
    float[][] w = {new float[IN * HIDDEN], new float[HIDDEN * OUT]};
    for (float[] m : w) {
      for (int i = 0; i < m.length; ++i) {
        state += 0x9E3779B97F4A7C15L;
        long z = state;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        m[i] = (z >>> 40) / 16777216.0f - 0.5f;
      }
    }
    return w;
  }

  /** Hierarchy [dp, mp]: dp = 2 for an even world of 4 or more ranks, else 1. */
  static Placement placement(int worldSize) {
    int dp = worldSize >= 4 && worldSize % 2 == 0 ? 2 : 1;
    int[] ranks = new int[worldSize];
    for (int i = 0; i < worldSize; ++i) ranks[i] = i;
    return Placement.create(Placement.DEVICE_CPU, ranks, new long[] {dp, worldSize / dp});
  }

  /** The model compiled for CAPACITY rows on {@code placement}. Every rank. */
  static Plan compile(long seed, Placement placement) {
    float[][] w = weights(seed);
    try (NdSbp xSbp = NdSbp.parse(X_SBP);
        NdSbp w1Sbp = NdSbp.parse(W1_SBP);
        NdSbp w2Sbp = NdSbp.parse(W2_SBP);
        Tensor w1 = Tensor.fromHost(w[0], new long[] {IN, HIDDEN}, placement, w1Sbp);
        Tensor w2 = Tensor.fromHost(w[1], new long[] {HIDDEN, OUT}, placement, w2Sbp);
        Program p = Program.create()) {
      long x = p.addInput("x", new long[] {CAPACITY, IN}, "f32", placement, xSbp);
      long h = p.addOp("matmul", x, p.addVariable("w1", w1))[0];
      h = p.addOp("relu", h)[0];
      h = p.addOp("matmul", h, p.addVariable("w2", w2))[0];
      p.markOutput(h);
      return p.compile(1);
    }
  }
}
