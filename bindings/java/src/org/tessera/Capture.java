package org.tessera;

/**
 * Records eager ops into a Program instead of running them, as a try-with-resources
 * scope:
 *
 * <pre>
 * try (Capture cap = Capture.begin()) {
 *   Tensor x = cap.placeholder("x", new long[] {8, 16}, "f32", p, null);
 *   Tensor y = x.matmul(w1).relu();   // recorded: y is a placeholder, w1 a variable
 *   program = cap.end(y);
 * }                                    // closing without end() aborts the capture
 * </pre>
 *
 * While the capture is active on its thread, every op there with a placeholder input
 * is recorded and returns a placeholder (metadata, no data); a real tensor such an op
 * uses becomes a variable; ops on real tensors alone run as usual. One capture per
 * thread; its placeholders work on that thread only. Local: every rank captures the
 * same calls.
 */
public final class Capture implements AutoCloseable {
  private final Thread owner;
  private boolean open = true;

  private Capture() {
    owner = Thread.currentThread();
  }

  /** Starts a capture on the calling thread; FAILED_PRECONDITION when one is active. */
  public static Capture begin() {
    Tessera.init();
    TesseraJNI.capture_begin();
    return new Capture();
  }

  /** Whether a capture is active on the calling thread. */
  public static boolean active() {
    int[] out = {0};
    TesseraJNI.capture_active(out);
    return out[0] != 0;
  }

  /** Whether this capture has neither ended nor been aborted. */
  public boolean isOpen() {
    return open;
  }

  private boolean mine() {
    return open && Thread.currentThread() == owner;
  }

  /**
   * The C API acts on the calling thread's capture, whichever object the call comes
   * through: a stale or foreign Capture must not reach another live capture. With no
   * capture active the C API reports the misuse itself.
   */
  private void checkMine(String function) {
    if (mine() || !active()) {
      return;
    }
    throw new FailedPreconditionException("Capture." + function + ": "
        + (open ? "this capture belongs to thread \"" + owner.getName() + "\""
                : "this capture has ended")
        + ", and another capture is active on this thread");
  }

  /**
   * A data input of the program (Program.addInput's arguments; {@code ndSbp} null: S(0))
   * as a placeholder tensor. FAILED_PRECONDITION without an active capture.
   */
  public Tensor placeholder(String name, long[] shape, String dtype, Placement placement,
      NdSbp ndSbp) {
    checkMine("placeholder");
    long[] out = {0};
    TesseraJNI.capture_placeholder(out, name, shape, DType.parse(dtype),
        Handle.ptr(placement), placement, Handle.ptr(ndSbp), ndSbp);
    return new Tensor(out[0]);
  }

  /**
   * Training in plan mode (docs/training.md, "Plan mode"): every run of the program ends,
   * after all its steps, by copying {@code value} (a placeholder of this capture) into
   * {@code target} (a real tensor of the same shape, dtype and layout, which becomes a
   * variable). FAILED_PRECONDITION without an active capture; INVALID_ARGUMENT for a
   * null, a placeholder target, a real value, a mismatch or a target assigned twice.
   */
  public void assign(Tensor target, Tensor value) {
    checkMine("assign");
    TesseraJNI.capture_assign(Handle.ptr(target), target, Handle.ptr(value), value);
  }

  /**
   * Ends the capture and returns its program, whose outputs are {@code outputs}
   * (placeholders of this capture, in order). The capture ends whether or not this
   * succeeds: INVALID_ARGUMENT for no outputs, a real tensor, a placeholder of another
   * capture or one listed twice.
   */
  public Program end(Tensor... outputs) {
    checkMine("end");
    long[] handles = new long[outputs == null ? 0 : outputs.length];
    for (int i = 0; i < handles.length; ++i) handles[i] = Handle.ptr(outputs[i]);
    boolean ending = mine();
    long[] out = {0};
    try {
      TesseraJNI.capture_end(out, handles);
      java.lang.ref.Reference.reachabilityFence(outputs);
    } finally {
      if (ending) {
        open = false;
      }
    }
    return new Program(out[0]);
  }

  /** Ends the capture, dropping what it recorded; nothing once it has ended. */
  public void abort() {
    if (!open) {
      return;
    }
    if (Thread.currentThread() != owner) {
      throw new FailedPreconditionException("Capture.abort: called on thread \""
          + Thread.currentThread().getName() + "\" but the capture belongs to thread \""
          + owner.getName() + "\"");
    }
    open = false;
    TesseraJNI.capture_abort();
  }

  /** abort(): a scope left without end() (an exception, say) records nothing. */
  @Override
  public void close() {
    abort();
  }
}
