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

%typemap(javacode) struct tess_op_call %{
  private static long newHandle(String opName) {
    OpCall[] out = {null};
    Tessera.op_call_create(out, opName);
    out[0].swigCMemOwn = false;
    return out[0].swigCPtr;
  }

  /**
   * A call of the registered op {@code opName}; NOT_FOUND, naming close op names, for an
   * unknown one. The builder methods return the call, so they chain.
   */
  public OpCall(String opName) {
    this(newHandle(opName), true);
  }

  /** Same as {@code new OpCall(opName)}. */
  public static OpCall create(String opName) {
    return new OpCall(opName);
  }

  /** Destroys the call now; idempotent. */
  @Override
  public void close() {
    delete();
  }

  /** The op's signature, e.g. "add(x, y) -> (out)". */
  public String signature() {
    return Tessera.op_call_signature(this);
  }

  @Override
  public String toString() {
    return signature();
  }

  /** Sets a bool attribute; INVALID_ARGUMENT for an unknown name or another type. */
  public OpCall attr(String name, boolean value) {
    Tessera.op_call_set_attr_bool(this, name, value ? 1 : 0);
    return this;
  }

  /** Sets an int attribute. */
  public OpCall attr(String name, long value) {
    Tessera.op_call_set_attr_int(this, name, value);
    return this;
  }

  /** Sets a float attribute. */
  public OpCall attr(String name, double value) {
    Tessera.op_call_set_attr_float(this, name, value);
    return this;
  }

  /** Sets an ints attribute. */
  public OpCall attr(String name, long[] values) {
    Tessera.op_call_set_attr_ints(this, name, values);
    return this;
  }

  /** Sets a dtype attribute from its name, e.g. "f64". */
  public OpCall attr(String name, String dtype) {
    Tessera.op_call_set_attr_dtype(this, name, Tessera.dtypeParse(dtype));
    return this;
  }

  /** Appends the next input: {@code shape}, dtype name ("f32"), placement and nd-sbp. */
  public OpCall input(long[] shape, String dtype, Placement placement, NdSbp ndSbp) {
    Tessera.op_call_add_input(this, shape, Tessera.dtypeParse(dtype), placement, ndSbp);
    return this;
  }

  /** As above with the placement and nd-sbp as text, e.g. "cpu:[0,1]", "S(0)". */
  public OpCall input(long[] shape, String dtype, String placement, String ndSbp) {
    try (Placement p = Placement.parse(placement);
        NdSbp s = NdSbp.parse(ndSbp)) {
      return input(shape, dtype, p, s);
    }
  }

  public long numInputs() {
    long[] out = {0};
    Tessera.op_call_num_inputs(out, this);
    return out[0];
  }

  /** Requires input {@code slot} to have {@code ndSbp} (text); replaces an earlier one. */
  public OpCall constrainInput(long slot, String ndSbp) {
    try (NdSbp s = NdSbp.parse(ndSbp)) {
      Tessera.op_call_constrain_input(this, slot, s);
    }
    return this;
  }

  /** Requires output {@code slot} to have {@code ndSbp} (text); replaces an earlier one. */
  public OpCall constrainOutput(long slot, String ndSbp) {
    try (NdSbp s = NdSbp.parse(ndSbp)) {
      Tessera.op_call_constrain_output(this, slot, s);
    }
    return this;
  }

  /** Infers the SBP signature through this thread's inference cache. */
  public InferResult infer() {
    InferResult[] out = {null};
    Tessera.infer(out, this);
    return out[0];
  }

  /** The full explain record (uncached); see Explanation.failure(). */
  public Explanation explain() {
    Explanation[] out = {null};
    Tessera.explain(out, this);
    return out[0];
  }
%}

%typemap(javacode) struct tess_infer_result %{
  /** Destroys the result now; idempotent. */
  @Override
  public void close() {
    delete();
  }

  public long numOutputs() {
    long[] out = {0};
    Tessera.infer_result_num_outputs(out, this);
    return out[0];
  }

  /** Output {@code output}'s logical shape. */
  public long[] outputShape(long output) {
    long[] ndim = {0};
    Tessera.infer_result_output_ndim(ndim, this, output);
    long[] dims = new long[(int) ndim[0]];
    for (int d = 0; d < dims.length; ++d) {
      long[] dim = {0};
      Tessera.infer_result_output_dim(dim, this, output, d);
      dims[d] = dim[0];
    }
    return dims;
  }

  /** Output {@code output}'s dtype name, e.g. "f32". */
  public String outputDType(long output) {
    int[] out = {0};
    Tessera.infer_result_output_dtype(out, this, output);
    return Tessera.dtypeName(out[0]);
  }

  /** Output {@code output}'s placement (a new handle). */
  public Placement outputPlacement(long output) {
    Placement[] out = {null};
    Tessera.infer_result_output_placement(out, this, output);
    return out[0];
  }

  /** Output {@code output}'s nd-sbp (a new handle). */
  public NdSbp outputNdSbp(long output) {
    NdSbp[] out = {null};
    Tessera.infer_result_output_nd_sbp(out, this, output);
    return out[0];
  }

  public long numInputs() {
    long[] out = {0};
    Tessera.infer_result_num_inputs(out, this);
    return out[0];
  }

  /** The nd-sbp input {@code input} must be boxed into (a new handle). */
  public NdSbp inputNdSbp(long input) {
    NdSbp[] out = {null};
    Tessera.infer_result_input_nd_sbp(out, this, input);
    return out[0];
  }

  /** Whether input {@code input}'s data must move. */
  public boolean needsBoxing(long input) {
    int[] out = {0};
    Tessera.infer_result_needs_boxing(out, this, input);
    return out[0] != 0;
  }

  /** Modelled bytes moved to box input {@code input}. */
  public double inputCost(long input) {
    double[] out = {0};
    Tessera.infer_result_input_cost(out, this, input);
    return out[0];
  }

  public double totalCost() {
    double[] out = {0};
    Tessera.infer_result_total_cost(out, this);
    return out[0];
  }

  /** The chosen signature's declared position; -1 on a 1-rank placement. */
  public int signatureIndex() {
    int[] out = {0};
    Tessera.infer_result_signature_index(out, this);
    return out[0];
  }

  public int numCandidates() {
    int[] out = {0};
    Tessera.infer_result_num_candidates(out, this);
    return out[0];
  }
%}

%typemap(javacode) struct tess_explanation %{
  /** Destroys the explanation now; idempotent. */
  @Override
  public void close() {
    delete();
  }

  /** The multi-line readable record. */
  public String text() {
    return Tessera.explanation_text(this);
  }

  /** The record as one JSON object. */
  public String json() {
    return Tessera.explanation_json(this);
  }

  /** "" when a signature was chosen; else the message inference fails with. */
  public String failure() {
    return Tessera.explanation_failure(this);
  }

  @Override
  public String toString() {
    return text();
  }
%}
