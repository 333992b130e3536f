package org.tessera;

/**
 * An SBP per placement axis (split, broadcast, partial), e.g. {@code (S(0), B)}: how a
 * tensor's logical value maps onto the ranks of its placement. Immutable.
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class NdSbp extends Handle {
  NdSbp(long pointer) {
    super(pointer, TesseraJNI::delete_NdSbp);
  }

  // SBP kinds of one placement axis.
  /** TESS_SBP_SPLIT from tessera.h. */
  public static final int SPLIT = TesseraJNI.SBP_SPLIT_get();
  /** TESS_SBP_BROADCAST from tessera.h. */
  public static final int BROADCAST = TesseraJNI.SBP_BROADCAST_get();
  /** TESS_SBP_PARTIAL_SUM from tessera.h. */
  public static final int PARTIAL_SUM = TesseraJNI.SBP_PARTIAL_SUM_get();
  /** TESS_SBP_PARTIAL_MAX from tessera.h. */
  public static final int PARTIAL_MAX = TesseraJNI.SBP_PARTIAL_MAX_get();
  /** TESS_SBP_PARTIAL_MIN from tessera.h. */
  public static final int PARTIAL_MIN = TesseraJNI.SBP_PARTIAL_MIN_get();

  /** Parses "(S(0), B)", "S(1)", "P", "P(max)", "(P(min), S(0))". */
  public static NdSbp parse(String text) {
    long[] out = {0};
    TesseraJNI.nd_sbp_parse(out, text);
    return new NdSbp(out[0]);
  }

  /** kinds[i] (SPLIT, BROADCAST, PARTIAL_*) with splitAxes[i] (ignored unless a split). */
  public static NdSbp create(int[] kinds, int[] splitAxes) {
    if (kinds.length != splitAxes.length) {
      throw new IllegalArgumentException("NdSbp.create: " + kinds.length + " kinds but "
          + splitAxes.length + " split axes");
    }
    int[] pairs = new int[2 * kinds.length];
    for (int i = 0; i < kinds.length; ++i) {
      pairs[2 * i] = kinds[i];
      pairs[2 * i + 1] = splitAxes[i];
    }
    long[] out = {0};
    TesseraJNI.nd_sbp_create(out, pairs);
    return new NdSbp(out[0]);
  }

  /** Destroys the nd-sbp now; idempotent. */
  @Override
  public void close() {
    super.close();
  }

  /** "(S(0), B)" or, for one axis, "S(0)". */
  @Override
  public String toString() {
    return TesseraJNI.nd_sbp_string(ptr(), this);
  }

  /** The number of placement axes it describes. */
  public long numAxes() {
    long[] out = {0};
    TesseraJNI.nd_sbp_num_axes(out, ptr(), this);
    return out[0];
  }

  /** The SBP kind (SPLIT, BROADCAST, PARTIAL_*) of hierarchy axis {@code axis}. */
  public int kind(long axis) {
    return get(axis)[0];
  }

  /** The split tensor axis of hierarchy axis {@code axis}; -1 unless a split. */
  public int splitAxis(long axis) {
    return get(axis)[1];
  }

  /** {kind, splitAxis} of hierarchy axis {@code axis}. */
  public int[] get(long axis) {
    int[] kind = {0};
    int[] split = {0};
    TesseraJNI.nd_sbp_get(kind, split, ptr(), this, axis);
    return new int[] {kind[0], split[0]};
  }

  /** The same SBP on every axis. */
  public boolean equal(NdSbp other) {
    int[] out = {0};
    TesseraJNI.nd_sbp_equal(out, ptr(), this, Handle.ptr(other), other);
    return out[0] != 0;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof NdSbp && equal((NdSbp) other);
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }
}
