package org.tessera;

/**
 * A placement: a device type and an N-d array of ranks, e.g. {@code cpu:[[0,1],[2,3]]}.
 * Immutable; any thread may read it.
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class Placement extends Handle {
  Placement(long pointer) {
    super(pointer, TesseraJNI::delete_Placement);
  }

  /** TESS_DEVICE_CPU from tessera.h. */
  public static final int DEVICE_CPU = TesseraJNI.DEVICE_CPU_get();
  /** TESS_DEVICE_CUDA from tessera.h. */
  public static final int DEVICE_CUDA = TesseraJNI.DEVICE_CUDA_get();

  /** Parses "cpu:[0,1,2,3]", "cuda:[[0,1],[2,3]]", "cpu:0-3", "cpu:[0-1,4]". */
  public static Placement parse(String text) {
    long[] out = {0};
    TesseraJNI.placement_parse(out, text);
    return new Placement(out[0]);
  }

  /** {@code ranks} in row-major order over {@code hierarchy}. */
  public static Placement create(int deviceType, int[] ranks, long[] hierarchy) {
    long[] out = {0};
    TesseraJNI.placement_create(out, deviceType, ranks, hierarchy);
    return new Placement(out[0]);
  }

  /** Destroys the placement now; idempotent. */
  @Override
  public void close() {
    super.close();
  }

  /** Canonical text, e.g. "cpu:[[0,1],[2,3]]". */
  @Override
  public String toString() {
    return TesseraJNI.placement_string(ptr(), this);
  }

  /** DEVICE_CPU or DEVICE_CUDA. */
  public int deviceType() {
    int[] out = {0};
    TesseraJNI.placement_device_type(out, ptr(), this);
    return out[0];
  }

  /** The number of hierarchy axes. */
  public long numAxes() {
    long[] out = {0};
    TesseraJNI.placement_num_axes(out, ptr(), this);
    return out[0];
  }

  /** The size of hierarchy axis {@code axis}. */
  public long hierarchyDim(long axis) {
    long[] out = {0};
    TesseraJNI.placement_hierarchy_dim(out, ptr(), this, axis);
    return out[0];
  }

  /** The shape of the rank array. */
  public long[] hierarchy() {
    long[] dims = new long[(int) numAxes()];
    for (int axis = 0; axis < dims.length; ++axis) dims[axis] = hierarchyDim(axis);
    return dims;
  }

  /** The number of ranks. */
  public long parallelNum() {
    long[] out = {0};
    TesseraJNI.placement_parallel_num(out, ptr(), this);
    return out[0];
  }

  /** The rank at parallel index {@code index} (row-major). */
  public int rankAt(long index) {
    int[] out = {0};
    TesseraJNI.placement_rank_at(out, ptr(), this, index);
    return out[0];
  }

  /** The parallel index of {@code rank}; NOT_FOUND if the placement does not hold it. */
  public long indexOf(int rank) {
    long[] out = {0};
    TesseraJNI.placement_index_of(out, ptr(), this, rank);
    return out[0];
  }

  /** Whether the placement holds {@code rank}. */
  public boolean contains(int rank) {
    int[] out = {0};
    TesseraJNI.placement_contains(out, ptr(), this, rank);
    return out[0] != 0;
  }

  /** {@code rank}'s communication group along hierarchy axis {@code axis}. */
  public Placement axisGroup(long axis, int rank) {
    long[] out = {0};
    TesseraJNI.placement_axis_group(out, ptr(), this, axis, rank);
    return new Placement(out[0]);
  }

  /** Same device type, hierarchy and ranks. */
  public boolean equal(Placement other) {
    int[] out = {0};
    TesseraJNI.placement_equal(out, ptr(), this, Handle.ptr(other), other);
    return out[0] != 0;
  }

  /** The C API's 64-bit hash (equal placements hash equally). */
  public long hash() {
    long[] out = {0};
    TesseraJNI.placement_hash(out, ptr(), this);
    return out[0];
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Placement && equal((Placement) other);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(hash());
  }
}
