/* The idiomatic Java methods of the handle classes (part of the Java section of
 * bindings/tessera.i). Each is a thin call to the raw function in Tessera; errors
 * arrive as TesseraException from the native call itself. */

%typemap(javacode) struct tess_placement %{
  /** Parses "cpu:[0,1,2,3]", "cuda:[[0,1],[2,3]]", "cpu:0-3", "cpu:[0-1,4]". */
  public static Placement parse(String text) {
    Placement[] out = {null};
    Tessera.placement_parse(out, text);
    return out[0];
  }

  /** {@code ranks} in row-major order over {@code hierarchy}. */
  public static Placement create(int deviceType, int[] ranks, long[] hierarchy) {
    Placement[] out = {null};
    Tessera.placement_create(out, deviceType, ranks, hierarchy);
    return out[0];
  }

  /** Destroys the placement now; idempotent. */
  @Override
  public void close() {
    delete();
  }

  /** Canonical text, e.g. "cpu:[[0,1],[2,3]]". */
  @Override
  public String toString() {
    return Tessera.placement_string(this);
  }

  /** Tessera.DEVICE_CPU or Tessera.DEVICE_CUDA. */
  public int deviceType() {
    int[] out = {0};
    Tessera.placement_device_type(out, this);
    return out[0];
  }

  public long numAxes() {
    long[] out = {0};
    Tessera.placement_num_axes(out, this);
    return out[0];
  }

  public long hierarchyDim(long axis) {
    long[] out = {0};
    Tessera.placement_hierarchy_dim(out, this, axis);
    return out[0];
  }

  /** The shape of the rank array. */
  public long[] hierarchy() {
    long[] dims = new long[(int) numAxes()];
    for (int axis = 0; axis < dims.length; ++axis) dims[axis] = hierarchyDim(axis);
    return dims;
  }

  public long parallelNum() {
    long[] out = {0};
    Tessera.placement_parallel_num(out, this);
    return out[0];
  }

  public int rankAt(long index) {
    int[] out = {0};
    Tessera.placement_rank_at(out, this, index);
    return out[0];
  }

  /** The parallel index of {@code rank}; NOT_FOUND if the placement does not hold it. */
  public long indexOf(int rank) {
    long[] out = {0};
    Tessera.placement_index_of(out, this, rank);
    return out[0];
  }

  public boolean contains(int rank) {
    int[] out = {0};
    Tessera.placement_contains(out, this, rank);
    return out[0] != 0;
  }

  /** {@code rank}'s communication group along hierarchy axis {@code axis}. */
  public Placement axisGroup(long axis, int rank) {
    Placement[] out = {null};
    Tessera.placement_axis_group(out, this, axis, rank);
    return out[0];
  }

  /** Same device type, hierarchy and ranks. */
  public boolean equal(Placement other) {
    int[] out = {0};
    Tessera.placement_equal(out, this, other);
    return out[0] != 0;
  }

  /** The C API's 64-bit hash (equal placements hash equally). */
  public long hash() {
    long[] out = {0};
    Tessera.placement_hash(out, this);
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
%}

%typemap(javacode) struct tess_nd_sbp %{
  /** Parses "(S(0), B)", "S(1)", "P", "P(max)", "(P(min), S(0))". */
  public static NdSbp parse(String text) {
    NdSbp[] out = {null};
    Tessera.nd_sbp_parse(out, text);
    return out[0];
  }

  /** kinds[i] (Tessera.SBP_*) with splitAxes[i] (ignored unless a split). */
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
    NdSbp[] out = {null};
    Tessera.nd_sbp_create(out, pairs);
    return out[0];
  }

  /** Destroys the nd-sbp now; idempotent. */
  @Override
  public void close() {
    delete();
  }

  /** "(S(0), B)" or, for one axis, "S(0)". */
  @Override
  public String toString() {
    return Tessera.nd_sbp_string(this);
  }

  public long numAxes() {
    long[] out = {0};
    Tessera.nd_sbp_num_axes(out, this);
    return out[0];
  }

  /** The SBP kind (Tessera.SBP_*) of hierarchy axis {@code axis}. */
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
    Tessera.nd_sbp_get(kind, split, this, axis);
    return new int[] {kind[0], split[0]};
  }

  public boolean equal(NdSbp other) {
    int[] out = {0};
    Tessera.nd_sbp_equal(out, this, other);
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
%}

%typemap(javacode) struct tess_layout %{
  /**
   * The part of a tensor of {@code shape} on {@code placement} with {@code ndSbp} that
   * {@code rank} holds; NOT_FOUND if the placement does not hold {@code rank}.
   */
  public static Layout create(Placement placement, NdSbp ndSbp, long[] shape, int rank) {
    Layout[] out = {null};
    Tessera.layout_create(out, placement, ndSbp, shape, rank);
    return out[0];
  }

  /** Destroys the layout now; idempotent. */
  @Override
  public void close() {
    delete();
  }

  /** "[0,3)x[3,5)". */
  @Override
  public String toString() {
    return Tessera.layout_string(this);
  }

  public long ndim() {
    long[] out = {0};
    Tessera.layout_ndim(out, this);
    return out[0];
  }

  public long localDim(long dim) {
    long[] out = {0};
    Tessera.layout_local_dim(out, this, dim);
    return out[0];
  }

  /** The local tensor's shape. */
  public long[] localShape() {
    long[] dims = new long[(int) ndim()];
    for (int dim = 0; dim < dims.length; ++dim) dims[dim] = localDim(dim);
    return dims;
  }

  /** {begin, end}: the logical index range held along {@code dim}. */
  public long[] range(long dim) {
    long[] begin = {0};
    long[] end = {0};
    Tessera.layout_range(begin, end, this, dim);
    return new long[] {begin[0], end[0]};
  }

  public long numElements() {
    long[] out = {0};
    Tessera.layout_num_elements(out, this);
    return out[0];
  }
%}
