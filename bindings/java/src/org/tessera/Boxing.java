package org.tessera;

import java.nio.ByteBuffer;
import java.util.function.Function;

/**
 * Boxing of host data: moving this rank's piece of a logical tensor from one
 * (placement, nd-sbp) to another, and the plan such a move runs. {@code box} is
 * collective: every rank concerned makes the same calls in the same order. Arrays are
 * copied into direct buffers and back; the ByteBuffer form takes direct buffers in
 * native byte order and copies nothing.
 */
public final class Boxing {
  private Boxing() {}

  /**
   * Moves this rank's piece of the logical tensor of {@code shape} and {@code dtype}
   * held as {@code src} on {@code srcPlacement} (read from {@code inLocal}) to its piece
   * held as {@code dst} on {@code dstPlacement} (written to {@code outLocal}). Each
   * buffer's capacity must be exactly this rank's piece's byte count (0, or null, where
   * the placement lacks this rank).
   *
   * @param outLocal the destination piece, a direct buffer (or null)
   * @param inLocal the source piece, a direct buffer (or null)
   * @param shape the logical shape
   * @param dtype "f32", "f64", "i32" or "i64"
   * @param srcPlacement where the source lives
   * @param src how the source maps onto it
   * @param dstPlacement where the destination lives
   * @param dst how the destination maps onto it
   */
  public static void box(ByteBuffer outLocal, ByteBuffer inLocal, long[] shape, String dtype,
      Placement srcPlacement, NdSbp src, Placement dstPlacement, NdSbp dst) {
    box(outLocal, inLocal, shape, DType.parse(dtype), srcPlacement, src, dstPlacement, dst);
  }

  private static void box(ByteBuffer outLocal, ByteBuffer inLocal, long[] shape, int dtype,
      Placement srcPlacement, NdSbp src, Placement dstPlacement, NdSbp dst) {
    Tessera.init();
    TesseraJNI.boxing_run(outLocal, inLocal, shape, dtype, Handle.ptr(srcPlacement), srcPlacement,
        Handle.ptr(src), src, Handle.ptr(dstPlacement), dstPlacement, Handle.ptr(dst), dst);
  }

  /**
   * {@link #box(ByteBuffer, ByteBuffer, long[], String, Placement, NdSbp, Placement, NdSbp)}
   * moving an array.
   *
   * @param local this rank's source piece; null where srcPlacement lacks this rank
   * @param shape the logical shape
   * @param srcPlacement where the source lives
   * @param src how the source maps onto it
   * @param dstPlacement where the destination lives
   * @param dst how the destination maps onto it
   * @return this rank's destination piece, or null where dstPlacement lacks this rank
   */
  public static float[] box(float[] local, long[] shape, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    return boxArray(local == null ? null : HostBuffers.bufferOf(local), DType.F32,
        HostBuffers::toFloats, shape, srcPlacement, src, dstPlacement, dst);
  }

  /** The same for f64 (parameters as for the f32 overload). */
  public static double[] box(double[] local, long[] shape, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    return boxArray(local == null ? null : HostBuffers.bufferOf(local), DType.F64,
        HostBuffers::toDoubles, shape, srcPlacement, src, dstPlacement, dst);
  }

  /** The same for i32 (parameters as for the f32 overload). */
  public static int[] box(int[] local, long[] shape, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    return boxArray(local == null ? null : HostBuffers.bufferOf(local), DType.I32,
        HostBuffers::toInts, shape, srcPlacement, src, dstPlacement, dst);
  }

  /** The same for i64 (parameters as for the f32 overload). */
  public static long[] box(long[] local, long[] shape, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    return boxArray(local == null ? null : HostBuffers.bufferOf(local), DType.I64,
        HostBuffers::toLongs, shape, srcPlacement, src, dstPlacement, dst);
  }

  /** Boxes {@code in} and reads this rank's destination piece with {@code read} (null outside dstPlacement). */
  private static <A> A boxArray(ByteBuffer in, int dtype, Function<ByteBuffer, A> read,
      long[] shape, Placement srcPlacement, NdSbp src, Placement dstPlacement, NdSbp dst) {
    ByteBuffer out = boxBuffer(in, shape, dtype, srcPlacement, src, dstPlacement, dst);
    return out == null ? null : read.apply(out);
  }

  /** A buffer for this rank's destination piece (null outside dstPlacement), filled by tess_boxing_run. */
  private static ByteBuffer boxBuffer(ByteBuffer in, long[] shape, int dtype,
      Placement srcPlacement, NdSbp src, Placement dstPlacement, NdSbp dst) {
    ByteBuffer out = null;
    int rank = Tessera.worldRank();
    if (dstPlacement != null && dstPlacement.contains(rank)) {
      try (Layout l = Layout.create(dstPlacement, dst, shape, rank)) {
        out = HostBuffers.direct(l.numElements() * DType.size(dtype));
      }
    }
    box(out, in, shape, dtype, srcPlacement, src, dstPlacement, dst);
    return out;
  }

  /**
   * The plan box runs for these arguments (needs no runtime); the same as
   * {@link BoxingPlan#create}.
   *
   * @param shape the logical shape
   * @param dtype "f32", "f64", "i32" or "i64"
   * @param srcPlacement where the source lives
   * @param src how the source maps onto it
   * @param dstPlacement where the destination lives
   * @param dst how the destination maps onto it
   * @return a new BoxingPlan
   */
  public static BoxingPlan plan(long[] shape, String dtype, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    return BoxingPlan.create(shape, dtype, srcPlacement, src, dstPlacement, dst);
  }
}
