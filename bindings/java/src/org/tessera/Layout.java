package org.tessera;

/**
 * The part of a tensor one rank holds: its local shape and the logical index range
 * along each dim.
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class Layout extends Handle {
  Layout(long pointer) {
    super(pointer, TesseraJNI::delete_Layout);
  }

  /**
   * The part of a tensor of {@code shape} on {@code placement} with {@code ndSbp} that
   * {@code rank} holds; NOT_FOUND if the placement does not hold {@code rank}.
   */
  public static Layout create(Placement placement, NdSbp ndSbp, long[] shape, int rank) {
    long[] out = {0};
    TesseraJNI.layout_create(
        out, Handle.ptr(placement), placement, Handle.ptr(ndSbp), ndSbp, shape, rank);
    return new Layout(out[0]);
  }

  /** Destroys the layout now; idempotent. */
  @Override
  public void close() {
    super.close();
  }

  /** "[0,3)x[3,5)". */
  @Override
  public String toString() {
    return TesseraJNI.layout_string(ptr(), this);
  }

  /** The number of dims. */
  public long ndim() {
    return localShape().length;
  }

  /** The local tensor's size along {@code dim}; OUT_OF_RANGE past the last dim. */
  public long localDim(long dim) {
    return dimOf("Layout.localDim", localShape(), dim);
  }

  /** The local tensor's shape (a new array). */
  public long[] localShape() {
    long[][] out = {null};
    TesseraJNI.layout_local_shape(out, ptr(), this);
    return out[0];
  }

  /** {begin, end}: the logical index range held along {@code dim}. */
  public long[] range(long dim) {
    long[] begin = {0};
    long[] end = {0};
    TesseraJNI.layout_range(begin, end, ptr(), this, dim);
    return new long[] {begin[0], end[0]};
  }

  /** The local tensor's element count. */
  public long numElements() {
    long[] out = {0};
    TesseraJNI.layout_num_elements(out, ptr(), this);
    return out[0];
  }
}
