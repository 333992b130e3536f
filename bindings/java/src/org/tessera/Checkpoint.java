package org.tessera;

import java.util.Map;

/**
 * Sharded checkpoints of global tensors (docs/checkpoints.md): a directory of
 * safetensors files, one per rank that holds shards, and index.json. {@link #save}
 * and {@link #load} are collective over the world: every rank calls with the same
 * arguments, and an error on any rank (a corrupt shard only one rank reads) is thrown
 * on every rank, naming the file and the tensor. {@link CheckpointIndex} lists a
 * checkpoint; {@link CheckpointWriter} is the step-by-step form of save.
 */
public final class Checkpoint {
  private Checkpoint() {}

  /**
   * Saves {@code tensors} (in the map's iteration order; a LinkedHashMap keeps the
   * caller's) into {@code dir}, atomically (see {@link CheckpointWriter#save}).
   */
  public static void save(String dir, Map<String, Tensor> tensors) {
    try (CheckpointWriter writer = CheckpointWriter.create()) {
      for (Map.Entry<String, Tensor> e : tensors.entrySet()) writer.add(e.getKey(), e.getValue());
      writer.save(dir);
    }
  }

  /**
   * Tensor {@code name} of the checkpoint at {@code dir}, held as {@code ndSbp} on
   * {@code placement}: any layout, also on another number of ranks than it was saved
   * from (loading reshards). Each rank reads only the shards overlapping its piece and
   * checks their CRC32C. NotFoundException: no index, no such tensor, a missing shard;
   * DataLossException: a malformed, truncated or corrupt file.
   */
  public static Tensor load(String dir, String name, Placement placement, NdSbp ndSbp) {
    long[] out = {0};
    Tessera.init();
    TesseraJNI.checkpoint_load(
        out, dir, name, Handle.ptr(placement), placement, Handle.ptr(ndSbp), ndSbp);
    return new Tensor(out[0]);
  }

  /**
   * As {@link #load(String, String, Placement, NdSbp)}, and InvalidArgumentException on
   * every rank unless the saved tensor has {@code shape} and {@code dtype} ("f32", ...).
   */
  public static Tensor load(String dir, String name, Placement placement, NdSbp ndSbp,
      long[] shape, String dtype) {
    long[] out = {0};
    int type = DType.parse(dtype);
    Tessera.init();
    TesseraJNI.checkpoint_load_checked(out, dir, name, Handle.ptr(placement), placement,
        Handle.ptr(ndSbp), ndSbp, shape, type);
    return new Tensor(out[0]);
  }
}
