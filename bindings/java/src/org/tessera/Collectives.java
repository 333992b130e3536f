package org.tessera;

import java.nio.ByteBuffer;

/**
 * Collectives on host data: all-reduce over a placement's ranks, and the timeout that
 * bounds every collective. Collective calls: every rank concerned makes the same calls
 * in the same order. (Many tensors at once: {@link BucketedAllReducer}.)
 */
public final class Collectives {
  private Collectives() {}

  // Reduce ops.
  /** TESS_REDUCE_SUM from tessera.h. */
  public static final int REDUCE_SUM = TesseraJNI.REDUCE_SUM_get();
  /** TESS_REDUCE_MAX from tessera.h. */
  public static final int REDUCE_MAX = TesseraJNI.REDUCE_MAX_get();
  /** TESS_REDUCE_MIN from tessera.h. */
  public static final int REDUCE_MIN = TesseraJNI.REDUCE_MIN_get();

  // All-reduce algorithms.
  /** TESS_ALLREDUCE_FLAT from tessera.h. */
  public static final int ALLREDUCE_FLAT = TesseraJNI.ALLREDUCE_FLAT_get();
  /** TESS_ALLREDUCE_AUTO from tessera.h. */
  public static final int ALLREDUCE_AUTO = TesseraJNI.ALLREDUCE_AUTO_get();
  /** TESS_ALLREDUCE_HIERARCHICAL from tessera.h. */
  public static final int ALLREDUCE_HIERARCHICAL = TesseraJNI.ALLREDUCE_HIERARCHICAL_get();

  /**
   * The first {@code count} elements of {@code dtype} in {@code buffer} := {@code op}
   * over the ranks of {@code placement}, in place. Ranks outside the placement return at
   * once.
   *
   * @param buffer a direct buffer in native byte order
   * @param count the number of elements
   * @param dtype "f32", "f64", "i32" or "i64"
   * @param op REDUCE_SUM, REDUCE_MAX or REDUCE_MIN
   * @param placement the ranks taking part; null: the world
   * @param algorithm ALLREDUCE_FLAT, ALLREDUCE_AUTO or ALLREDUCE_HIERARCHICAL
   */
  public static void allreduce(ByteBuffer buffer, long count, String dtype, int op,
      Placement placement, int algorithm) {
    int type = DType.parse(dtype);
    if (buffer != null && buffer.capacity() < count * DType.size(type)) {
      throw new InvalidArgumentException("Collectives.allreduce: buffer has "
          + buffer.capacity() + " bytes but " + count + " " + dtype + " elements need "
          + count * DType.size(type));
    }
    Tessera.init();
    TesseraJNI.comm_allreduce(buffer, count, type, op, Handle.ptr(placement), placement, algorithm);
  }

  /**
   * The same on an f32 array, in place.
   *
   * @param data the values, replaced by the result
   * @param op REDUCE_SUM, REDUCE_MAX or REDUCE_MIN
   * @param placement the ranks taking part; null: the world
   * @param algorithm ALLREDUCE_FLAT, ALLREDUCE_AUTO or ALLREDUCE_HIERARCHICAL
   */
  public static void allreduce(float[] data, int op, Placement placement, int algorithm) {
    inPlace(HostBuffers.bufferOf(data), data.length, "f32", op, placement, algorithm)
        .asFloatBuffer().get(data);
  }

  /** The same on an f64 array, in place (parameters as for the f32 overload). */
  public static void allreduce(double[] data, int op, Placement placement, int algorithm) {
    inPlace(HostBuffers.bufferOf(data), data.length, "f64", op, placement, algorithm)
        .asDoubleBuffer().get(data);
  }

  /** The same on an i32 array, in place (parameters as for the f32 overload). */
  public static void allreduce(int[] data, int op, Placement placement, int algorithm) {
    inPlace(HostBuffers.bufferOf(data), data.length, "i32", op, placement, algorithm)
        .asIntBuffer().get(data);
  }

  /** The same on an i64 array, in place (parameters as for the f32 overload). */
  public static void allreduce(long[] data, int op, Placement placement, int algorithm) {
    inPlace(HostBuffers.bufferOf(data), data.length, "i64", op, placement, algorithm)
        .asLongBuffer().get(data);
  }

  /** All-reduces the whole of {@code b} in place and returns it. */
  private static ByteBuffer inPlace(ByteBuffer b, long count, String dtype, int op,
      Placement placement, int algorithm) {
    allreduce(b, count, dtype, op, placement, algorithm);
    return b;
  }

  /**
   * Bounds every collective from now on, existing communicators included. Local; call
   * it with the same value on every rank. Needs no runtime.
   *
   * @param seconds the limit; 0: none
   */
  public static void setCollectiveTimeout(double seconds) {
    TesseraJNI.comm_set_collective_timeout(seconds);
  }

  /**
   * The process default collective timeout.
   *
   * @return seconds; 0: none
   */
  public static double collectiveTimeout() {
    double[] out = {0};
    TesseraJNI.comm_collective_timeout(out);
    return out[0];
  }
}
