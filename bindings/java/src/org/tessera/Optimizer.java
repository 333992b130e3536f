package org.tessera;

/**
 * An optimizer over parameters (leaf tensors that require a gradient; tessera/optim.h):
 * SGD, Adam or AdamW following PyTorch's update rules.
 *
 * <pre>{@code
 * try (Optimizer opt = Optimizer.adamW(params, new OptimizerOptions().lr(1e-3).fused(true))) {
 *   loss.backward(); opt.step(); opt.zeroGrad();
 * }
 * }</pre>
 *
 * <p>{@link #step} updates every parameter that has a gradient IN PLACE: the Tensor
 * objects keep their identity and see the new values. With fused the parameters' data
 * moves into flat buckets; the Tensors stay valid. Creating, step and zeroGrad are
 * collective over the parameters' placements. One thread at a time. Closing frees the C
 * object at once; an unclosed one is freed when collected.
 */
public final class Optimizer extends Handle {
  private final Tensor[] params;

  private Optimizer(long pointer, Tensor[] params) {
    super(pointer, TesseraJNI::delete_Optimizer);
    this.params = params;
  }

  /** torch.optim.SGD: momentum, dampening, Nesterov, weight decay. */
  public static Optimizer sgd(Tensor[] params, OptimizerOptions options) {
    return create(TesseraJNI.OPTIMIZER_SGD_get(), params, options);
  }

  /** torch.optim.Adam: weight decay added to the gradient. */
  public static Optimizer adam(Tensor[] params, OptimizerOptions options) {
    return create(TesseraJNI.OPTIMIZER_ADAM_get(), params, options);
  }

  /** torch.optim.AdamW: decoupled weight decay. */
  public static Optimizer adamW(Tensor[] params, OptimizerOptions options) {
    return create(TesseraJNI.OPTIMIZER_ADAMW_get(), params, options);
  }

  /**
   * INVALID_ARGUMENT naming the option and value (a negative or non-finite lr, a beta
   * outside [0, 1), ...) or the parameter's index (null, not a leaf requiring a gradient,
   * not floating, listed twice).
   */
  private static Optimizer create(int algorithm, Tensor[] params, OptimizerOptions o) {
    if (params == null) {
      throw TesseraException.of(Status.INVALID_ARGUMENT, "Optimizer: params is null");
    }
    if (o == null) o = new OptimizerOptions();
    long[] ptrs = new long[params.length];
    for (int i = 0; i < params.length; ++i) {
      if (params[i] == null) {
        throw TesseraException.of(Status.INVALID_ARGUMENT, "Optimizer: params[" + i + "] is null");
      }
      ptrs[i] = Handle.ptr(params[i]);
    }
    long[] out = {0};
    Tessera.init();
    TesseraJNI.optimizer_create(out, ptrs, algorithm, o.lr, o.weightDecay, o.momentum,
        o.dampening, o.nesterov ? 1 : 0, o.beta1, o.beta2, o.eps, o.fused ? 1 : 0, o.bucketBytes,
        o.zero1 ? 1 : 0);
    java.lang.ref.Reference.reachabilityFence(params);
    return new Optimizer(out[0], params.clone());
  }

  /** The parameters, in the order given. */
  public Tensor[] params() {
    return params.clone();
  }

  /**
   * Updates every parameter that has a gradient, in place (parameters without one are
   * skipped, as in PyTorch). Collective.
   */
  public void step() {
    TesseraJNI.optimizer_step(ptr(), this);
  }

  /**
   * Inside a {@link Capture} and after a captured backward: records one step (the update
   * ops, and {@link Capture#assign} of the new parameters and state) instead of taking
   * it, so every run of the compiled plan trains. Per-tensor mode only (UNIMPLEMENTED
   * when fused); FAILED_PRECONDITION without a capture. Plan runs do not count in the
   * stats' steps.
   */
  public void captureStep() {
    TesseraJNI.optimizer_capture_step(ptr(), this);
  }

  /** Drops every parameter's gradient. Collective. */
  public void zeroGrad() {
    TesseraJNI.optimizer_zero_grad(ptr(), this);
  }

  /** The learning rate of the next steps (INVALID_ARGUMENT if negative or not finite). */
  public void setLr(double lr) {
    TesseraJNI.optimizer_set_lr(ptr(), this, lr);
  }

  /** The optimizer's counters. */
  public OptimizerStats stats() {
    long[] steps = {0}, params = {0}, buckets = {0}, inBackward = {0}, state = {0};
    double[] seconds = {0}, wait = {0};
    TesseraJNI.optimizer_get_stats(
        steps, params, buckets, inBackward, seconds, wait, state, ptr(), this);
    return new OptimizerStats(
        steps[0], params[0], buckets[0], inBackward[0], seconds[0], wait[0], state[0]);
  }

  /** Destroys the optimizer now (the parameters stay valid); idempotent. */
  @Override
  public void close() {
    super.close();
  }
}
