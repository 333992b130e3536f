package org.tessera;

import java.nio.ByteBuffer;

/**
 * Reduces many arrays with few collectives, packing them into buckets (Bagua/Horovod
 * style). One thread at a time.
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class BucketedAllReducer extends Handle {
  BucketedAllReducer(long pointer) {
    super(pointer, TesseraJNI::delete_BucketedAllReducer);
  }

  /**
   * Packs into buckets of at most {@code bucketBytes} (0: 25 MiB; negative: INVALID_ARGUMENT).
   * One thread at a time.
   */
  public static BucketedAllReducer create(long bucketBytes) {
    long[] out = {0};
    Tessera.init();
    TesseraJNI.bucketed_allreducer_create(out, bucketBytes);
    return new BucketedAllReducer(out[0]);
  }

  /** Destroys the reducer now; idempotent. */
  @Override
  public void close() {
    super.close();
  }

  /**
   * buffers[i] (counts[i] elements of {@code dtype}, direct) := {@code op} over the ranks
   * of {@code placement} (null: the world), in place, one all-reduce per bucket.
   */
  public void allreduce(ByteBuffer[] buffers, long[] counts, String dtype, int op,
      Placement placement) {
    if (buffers.length != counts.length) {
      throw TesseraException.of(Status.INVALID_ARGUMENT, "BucketedAllReducer.allreduce: "
          + buffers.length + " buffers but " + counts.length + " counts");
    }
    int type = DType.parse(dtype);
    for (int i = 0; i < buffers.length; ++i) {
      long need = counts[i] * DType.size(type);
      if (buffers[i] != null && buffers[i].capacity() < need) {
        throw TesseraException.of(Status.INVALID_ARGUMENT, "BucketedAllReducer.allreduce: "
            + "buffers[" + i + "] has " + buffers[i].capacity() + " bytes but counts[" + i
            + "] = " + counts[i] + " " + dtype + " elements need " + need);
      }
    }
    TesseraJNI.bucketed_allreducer_run(
        ptr(), this, buffers, counts, type, op, Handle.ptr(placement), placement);
  }

  /** The same on arrays, in place. */
  public void allreduce(float[][] arrays, int op, Placement placement) {
    ByteBuffer[] buffers = new ByteBuffer[arrays.length];
    long[] counts = new long[arrays.length];
    for (int i = 0; i < arrays.length; ++i) {
      buffers[i] = HostBuffers.bufferOf(arrays[i]);
      counts[i] = arrays[i].length;
    }
    allreduce(buffers, counts, "f32", op, placement);
    for (int i = 0; i < arrays.length; ++i) buffers[i].asFloatBuffer().get(arrays[i]);
  }

  /** The same on f64 arrays, in place. */
  public void allreduce(double[][] arrays, int op, Placement placement) {
    ByteBuffer[] buffers = new ByteBuffer[arrays.length];
    long[] counts = new long[arrays.length];
    for (int i = 0; i < arrays.length; ++i) {
      buffers[i] = HostBuffers.bufferOf(arrays[i]);
      counts[i] = arrays[i].length;
    }
    allreduce(buffers, counts, "f64", op, placement);
    for (int i = 0; i < arrays.length; ++i) buffers[i].asDoubleBuffer().get(arrays[i]);
  }

  /** {calls, plans built, the last call's buckets, of those reduced without a copy}. */
  public long[] stats() {
    long[] calls = {0}, plans = {0}, buckets = {0}, inPlace = {0};
    TesseraJNI.bucketed_allreducer_get_stats(calls, plans, buckets, inPlace, ptr(), this);
    return new long[] {calls[0], plans[0], buckets[0], inPlace[0]};
  }
}
