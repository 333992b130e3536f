package org.tessera;

/**
 * The steps (and their modelled cost) that box a tensor between two placed nd-sbps.
 * Immutable; any thread may read it.
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class BoxingPlan extends Handle {
  BoxingPlan(long pointer) {
    super(pointer, TesseraJNI::delete_BoxingPlan);
  }

  /** The plan of boxing a tensor of {@code shape} and {@code dtype} between two layouts. */
  public static BoxingPlan create(long[] shape, String dtype, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    long[] out = {0};
    TesseraJNI.boxing_plan_create(out, shape, DType.parse(dtype), Handle.ptr(srcPlacement),
        srcPlacement, Handle.ptr(src), src, Handle.ptr(dstPlacement), dstPlacement, Handle.ptr(dst),
        dst);
    return new BoxingPlan(out[0]);
  }

  /** Destroys the plan now; idempotent. */
  @Override
  public void close() {
    super.close();
  }

  /** The text explain shows: the conversion, one numbered line per step, the total. */
  @Override
  public String toString() {
    return TesseraJNI.boxing_plan_string(ptr(), this);
  }

  /** The number of steps. */
  public long numSteps() {
    long[] out = {0};
    TesseraJNI.boxing_plan_num_steps(out, ptr(), this);
    return out[0];
  }

  /** Step {@code index}'s line without its number; "" past the last. */
  public String step(long index) {
    return TesseraJNI.boxing_plan_step_string(ptr(), this, index);
  }

  /** The modelled time of all steps, in seconds. */
  public double cost() {
    double[] out = {0};
    TesseraJNI.boxing_plan_cost(out, ptr(), this);
    return out[0];
  }
}
