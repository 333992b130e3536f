package org.tessera;

/**
 * What a checkpoint holds, read once from its index.json: the tensors in saved order,
 * each with its shape, dtype, the placement and nd-sbp it was saved from, and its
 * number of shards. Local (no communication); immutable, so any thread may read it.
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class CheckpointIndex extends Handle {
  CheckpointIndex(long pointer) {
    super(pointer, TesseraJNI::delete_CheckpointIndex);
  }

  /**
   * The index of the checkpoint at {@code dir}: NotFoundException when it has none,
   * DataLossException when it is malformed (naming the file).
   */
  public static CheckpointIndex open(String dir) {
    long[] out = {0};
    TesseraJNI.checkpoint_index_open(out, dir);
    return new CheckpointIndex(out[0]);
  }

  /** Destroys the index now; idempotent. */
  @Override
  public void close() {
    super.close();
  }

  /** The number of tensors. */
  public long numTensors() {
    long[] out = {0};
    TesseraJNI.checkpoint_index_num_tensors(out, ptr(), this);
    return out[0];
  }

  /** Tensor {@code i}'s name; "" past the last. */
  public String name(long i) {
    return TesseraJNI.checkpoint_index_name(ptr(), this, i);
  }

  /** The placement tensor {@code i} was saved from, e.g. "cpu:[0,1]"; "" past the last. */
  public String placement(long i) {
    return TesseraJNI.checkpoint_index_placement(ptr(), this, i);
  }

  /** The nd-sbp tensor {@code i} was saved as, e.g. "S(0)"; "" past the last. */
  public String ndSbp(long i) {
    return TesseraJNI.checkpoint_index_nd_sbp(ptr(), this, i);
  }

  /** Tensor {@code i}'s logical shape; InvalidArgumentException past the last. */
  public long[] shape(long i) {
    long[][] out = {null};
    TesseraJNI.checkpoint_index_shape(out, ptr(), this, i);
    return out[0];
  }

  /** Tensor {@code i}'s dtype ("f32", ...); InvalidArgumentException past the last. */
  public String dtype(long i) {
    int[] out = {0};
    TesseraJNI.checkpoint_index_dtype(out, ptr(), this, i);
    return DType.name(out[0]);
  }

  /** The number of shards tensor {@code i} was written in. */
  public long numShards(long i) {
    long[] out = {0};
    TesseraJNI.checkpoint_index_num_shards(out, ptr(), this, i);
    return out[0];
  }
}
