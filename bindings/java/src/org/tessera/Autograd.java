package org.tessera;

/**
 * Reverse-mode autograd over global tensors (tessera/autograd.h): backward over several
 * roots and the calling thread's grad mode. Per tensor: {@link Tensor#setRequiresGrad},
 * {@link Tensor#grad}, {@link Tensor#zeroGrad}, {@link Tensor#detach}, {@link
 * Tensor#backward()}.
 *
 * <p>Ops record themselves when an input requires a gradient and grad mode is on;
 * backward adds into each reached leaf's gradient, so call zeroGrad between steps.
 * Gradients are global tensors with the SBP backward chose (a broadcast weight under
 * batch-split data gets a partial-sum gradient).
 */
public final class Autograd {
  private Autograd() {}

  /**
   * Backpropagates from {@code roots}, adding into the gradient of every leaf reached.
   * {@code grads}: null (ones for every root, which must then have one element) or one
   * entry per root (a null entry: ones). {@code retainGraph} keeps the graph for another
   * backward; without it a second one throws FailedPreconditionException. INVALID_ARGUMENT
   * for no roots, a root that requires no gradient or a gradient whose shape or dtype
   * differs from its root's. Collective over the recorded ops' placements.
   */
  public static void backward(Tensor[] roots, Tensor[] grads, boolean retainGraph) {
    if (roots == null) {
      throw TesseraException.of(Status.INVALID_ARGUMENT, "Autograd.backward: roots is null");
    }
    if (grads != null && grads.length != roots.length) {
      throw TesseraException.of(Status.INVALID_ARGUMENT, "Autograd.backward: grads has "
          + grads.length + " entries for " + roots.length + " roots");
    }
    TesseraJNI.autograd_backward(ptrs(roots), grads == null ? null : ptrs(grads),
        retainGraph ? 1 : 0);
    java.lang.ref.Reference.reachabilityFence(roots);
    java.lang.ref.Reference.reachabilityFence(grads);
  }

  private static long[] ptrs(Tensor[] tensors) {
    long[] p = new long[tensors.length];
    for (int i = 0; i < tensors.length; ++i) p[i] = Handle.ptr(tensors[i]);
    return p;
  }

  /** Whether ops record for autograd on this thread (on by default). */
  public static boolean isGradEnabled() {
    int[] out = {0};
    TesseraJNI.autograd_is_grad_enabled(out);
    return out[0] != 0;
  }

  /** Turns grad mode on or off for this thread; returns the previous mode. */
  public static boolean setGradEnabled(boolean enabled) {
    int[] previous = {0};
    TesseraJNI.autograd_set_grad_enabled(enabled ? 1 : 0, previous);
    return previous[0] != 0;
  }

  /**
   * Turns grad mode off for this thread until the scope closes, then restores the mode
   * before it: {@code try (Autograd.Scope s = Autograd.noGrad()) { ... }}.
   */
  public static Scope noGrad() {
    return new Scope(setGradEnabled(false));
  }

  /** Turns grad mode on until the scope closes (inside noGrad, say), then restores it. */
  public static Scope enableGrad() {
    return new Scope(setGradEnabled(true));
  }

  /** A grad-mode scope: close() restores the mode it replaced (once). */
  public static final class Scope implements AutoCloseable {
    private final boolean previous;
    private boolean closed;

    private Scope(boolean previous) {
      this.previous = previous;
    }

    /** Restores the grad mode from before the scope; later calls do nothing. */
    @Override
    public void close() {
      if (closed) return;
      closed = true;
      setGradEnabled(previous);
    }
  }
}
