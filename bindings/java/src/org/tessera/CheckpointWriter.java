package org.tessera;

/**
 * The named tensors of one checkpoint save (docs/checkpoints.md): {@link #add} them
 * (local), then {@link #save} them into a directory (collective over the world). Holds
 * a reference to each tensor. One thread at a time.
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class CheckpointWriter extends Handle {
  CheckpointWriter(long pointer) {
    super(pointer, TesseraJNI::delete_CheckpointWriter);
  }

  /** An empty writer. */
  public static CheckpointWriter create() {
    long[] out = {0};
    TesseraJNI.checkpoint_writer_create(out);
    return new CheckpointWriter(out[0]);
  }

  /**
   * Adds {@code tensor} as {@code name} (1 to 1024 bytes, no control characters, not
   * "__metadata__", not added before; InvalidArgumentException otherwise). Returns this
   * writer.
   */
  public CheckpointWriter add(String name, Tensor tensor) {
    TesseraJNI.checkpoint_writer_add(ptr(), this, name, Handle.ptr(tensor), tensor);
    return this;
  }

  /**
   * Saves the tensors into {@code dir}, atomically: written aside, renamed into place
   * once every rank has finished, so {@code dir} holds the previous checkpoint, intact,
   * until then. {@code dir} may be absent, empty or a checkpoint; its parent must exist.
   * Collective over the world: every rank calls with the same arguments, and an error on
   * any rank is thrown on every rank.
   */
  public void save(String dir) {
    Tessera.init();
    TesseraJNI.checkpoint_writer_save(ptr(), this, dir);
  }

  /** Destroys the writer now; idempotent. */
  @Override
  public void close() {
    super.close();
  }
}
