package org.tessera;

/**
 * Options of {@link Optimizer}: a builder whose defaults are the C API's
 * (TESS_OPTIMIZER_OPTIONS_INIT: lr 0.01, no weight decay or momentum, betas 0.9 and
 * 0.999, eps 1e-8, per-tensor updates, 25 MiB buckets). Each setter returns this; the
 * values are checked by {@link Optimizer}'s factories, which name the offending one.
 */
public final class OptimizerOptions {
  double lr = 0.01;
  double weightDecay = 0;
  double momentum = 0;
  double dampening = 0;
  boolean nesterov = false;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  boolean fused = false;
  long bucketBytes = 25L << 20;
  boolean zero1 = false;

  /** Learning rate, >= 0 and finite. */
  public OptimizerOptions lr(double value) {
    lr = value;
    return this;
  }

  /** Weight decay, >= 0 (added to the gradient for SGD and Adam; decoupled for AdamW). */
  public OptimizerOptions weightDecay(double value) {
    weightDecay = value;
    return this;
  }

  /** SGD momentum, >= 0. */
  public OptimizerOptions momentum(double value) {
    momentum = value;
    return this;
  }

  /** SGD dampening, >= 0. */
  public OptimizerOptions dampening(double value) {
    dampening = value;
    return this;
  }

  /** SGD Nesterov momentum (needs momentum > 0 and dampening 0). */
  public OptimizerOptions nesterov(boolean value) {
    nesterov = value;
    return this;
  }

  /** Adam/AdamW betas, each in [0, 1). */
  public OptimizerOptions betas(double beta1, double beta2) {
    this.beta1 = beta1;
    this.beta2 = beta2;
    return this;
  }

  /** Adam/AdamW eps. */
  public OptimizerOptions eps(double value) {
    eps = value;
    return this;
  }

  /**
   * Flat buckets: one update kernel per bucket, each bucket's gradient all-reduce started
   * during backward.
   */
  public OptimizerOptions fused(boolean value) {
    fused = value;
    return this;
  }

  /** With fused: the largest bucket in bytes, > 0. */
  public OptimizerOptions bucketBytes(long value) {
    bucketBytes = value;
    return this;
  }

  /** With fused: optimizer state split across the data-parallel ranks (ZeRO-1). */
  public OptimizerOptions zero1(boolean value) {
    zero1 = value;
    return this;
  }
}
