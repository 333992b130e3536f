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

  /** Runs the op on tensors: Tensor.apply(this, inputs). */
  public Tensor[] apply(Tensor... inputs) {
    return Tensor.apply(this, inputs);
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

%typemap(javacode) struct tess_tensor %{
  // --- Creation. Every creation is collective: all ranks make the same calls. ---

  private static Tensor make(Tensor[] out) {
    return out[0];
  }

  /** Product of the dims; INVALID_ARGUMENT (as the C API would) for a negative one. */
  private static long count(String function, long[] shape) {
    if (shape == null) {
      throw new TesseraException(Tessera.INVALID_ARGUMENT, function + ": shape is null");
    }
    long n = 1;
    for (long d : shape) n *= Math.max(d, 0);
    return n;
  }

  private static String text(long[] shape) {
    return shape == null ? "null" : java.util.Arrays.toString(shape);
  }

  private static void checkLength(String function, long length, long[] shape) {
    long want = count(function, shape);
    if (length != want) {
      throw new TesseraException(Tessera.INVALID_ARGUMENT, function + ": data has " + length
          + " elements but shape " + text(shape) + " needs " + want);
    }
  }

  static java.nio.ByteBuffer direct(long bytes) {
    return java.nio.ByteBuffer.allocateDirect((int) bytes).order(java.nio.ByteOrder.nativeOrder());
  }

  static java.nio.ByteBuffer bufferOf(float[] data) {
    java.nio.ByteBuffer b = direct(4L * data.length);
    b.asFloatBuffer().put(data);
    return b;
  }

  static java.nio.ByteBuffer bufferOf(double[] data) {
    java.nio.ByteBuffer b = direct(8L * data.length);
    b.asDoubleBuffer().put(data);
    return b;
  }

  static java.nio.ByteBuffer bufferOf(int[] data) {
    java.nio.ByteBuffer b = direct(4L * data.length);
    b.asIntBuffer().put(data);
    return b;
  }

  static java.nio.ByteBuffer bufferOf(long[] data) {
    java.nio.ByteBuffer b = direct(8L * data.length);
    b.asLongBuffer().put(data);
    return b;
  }

  static long dtypeSize(int dtype) {
    return dtype == Tessera.DTYPE_F64 || dtype == Tessera.DTYPE_I64 ? 8
        : dtype == Tessera.DTYPE_F16 || dtype == Tessera.DTYPE_BF16 ? 2 : 4;
  }

  private static void checkBuffer(String function, java.nio.ByteBuffer data, long elements,
      int dtype) {
    if (data == null) return;  // the C API decides whether NULL is fine
    long need = elements * dtypeSize(dtype);
    if (data.capacity() < need) {
      throw new TesseraException(Tessera.INVALID_ARGUMENT, function + ": buffer has "
          + data.capacity() + " bytes but " + elements + " " + Tessera.dtypeName(dtype)
          + " elements need " + need);
    }
  }

  /** The logical tensor {@code data} (row-major, the same on every rank) of {@code shape}. */
  public static Tensor fromHost(float[] data, long[] shape, Placement placement, NdSbp ndSbp) {
    checkLength("Tensor.fromHost", data.length, shape);
    return fromHost(bufferOf(data), shape, "f32", placement, ndSbp);
  }

  public static Tensor fromHost(double[] data, long[] shape, Placement placement, NdSbp ndSbp) {
    checkLength("Tensor.fromHost", data.length, shape);
    return fromHost(bufferOf(data), shape, "f64", placement, ndSbp);
  }

  public static Tensor fromHost(int[] data, long[] shape, Placement placement, NdSbp ndSbp) {
    checkLength("Tensor.fromHost", data.length, shape);
    return fromHost(bufferOf(data), shape, "i32", placement, ndSbp);
  }

  public static Tensor fromHost(long[] data, long[] shape, Placement placement, NdSbp ndSbp) {
    checkLength("Tensor.fromHost", data.length, shape);
    return fromHost(bufferOf(data), shape, "i64", placement, ndSbp);
  }

  /**
   * As above from a direct buffer in native byte order (read from its start) holding
   * the elements of {@code dtype} ("f32", "f64", "i32", "i64").
   */
  public static Tensor fromHost(java.nio.ByteBuffer data, long[] shape, String dtype,
      Placement placement, NdSbp ndSbp) {
    int type = Tessera.dtypeParse(dtype);
    checkBuffer("Tensor.fromHost", data, count("Tensor.fromHost", shape), type);
    Tensor[] out = {null};
    Tessera.tensor_from_host(out, data, shape, type, placement, ndSbp);
    return make(out);
  }

  /**
   * The tensor whose piece on this rank is {@code local} of {@code localShape}: shards
   * for S, partial values for P, copies for B. {@code logicalShape} null infers the
   * logical shape from every rank's local shape (collective).
   */
  public static Tensor fromLocal(float[] local, long[] localShape, Placement placement,
      NdSbp ndSbp, long[] logicalShape) {
    checkLength("Tensor.fromLocal", local.length, localShape);
    return fromLocal(bufferOf(local), localShape, "f32", placement, ndSbp, logicalShape);
  }

  public static Tensor fromLocal(double[] local, long[] localShape, Placement placement,
      NdSbp ndSbp, long[] logicalShape) {
    checkLength("Tensor.fromLocal", local.length, localShape);
    return fromLocal(bufferOf(local), localShape, "f64", placement, ndSbp, logicalShape);
  }

  public static Tensor fromLocal(int[] local, long[] localShape, Placement placement,
      NdSbp ndSbp, long[] logicalShape) {
    checkLength("Tensor.fromLocal", local.length, localShape);
    return fromLocal(bufferOf(local), localShape, "i32", placement, ndSbp, logicalShape);
  }

  public static Tensor fromLocal(long[] local, long[] localShape, Placement placement,
      NdSbp ndSbp, long[] logicalShape) {
    checkLength("Tensor.fromLocal", local.length, localShape);
    return fromLocal(bufferOf(local), localShape, "i64", placement, ndSbp, logicalShape);
  }

  /** As above from a direct buffer in native byte order. */
  public static Tensor fromLocal(java.nio.ByteBuffer local, long[] localShape, String dtype,
      Placement placement, NdSbp ndSbp, long[] logicalShape) {
    int type = Tessera.dtypeParse(dtype);
    checkBuffer("Tensor.fromLocal", local, count("Tensor.fromLocal", localShape), type);
    if (logicalShape != null && logicalShape.length != localShape.length) {
      throw new TesseraException(Tessera.INVALID_ARGUMENT, "Tensor.fromLocal: logical shape "
          + text(logicalShape) + " has " + logicalShape.length + " dims but the local shape "
          + text(localShape) + " has " + localShape.length);
    }
    Tensor[] out = {null};
    Tessera.tensor_from_local(out, local, localShape, type, placement, ndSbp, logicalShape);
    return make(out);
  }

  /** Every element {@code value} (which {@code dtype} must hold exactly). */
  public static Tensor full(long[] shape, String dtype, double value, Placement placement,
      NdSbp ndSbp) {
    Tensor[] out = {null};
    Tessera.tensor_full(out, shape, Tessera.dtypeParse(dtype), value, placement, ndSbp);
    return make(out);
  }

  public static Tensor zeros(long[] shape, String dtype, Placement placement, NdSbp ndSbp) {
    return full(shape, dtype, 0, placement, ndSbp);
  }

  public static Tensor ones(long[] shape, String dtype, Placement placement, NdSbp ndSbp) {
    return full(shape, dtype, 1, placement, ndSbp);
  }

  /** start, start + step, ... up to but excluding stop. */
  public static Tensor arange(double start, double stop, double step, String dtype,
      Placement placement, NdSbp ndSbp) {
    Tensor[] out = {null};
    Tessera.tensor_arange(out, start, stop, step, Tessera.dtypeParse(dtype), placement, ndSbp);
    return make(out);
  }

  /** Uniform [0, 1) values depending only on (shape, dtype, seed); f32 or f64. */
  public static Tensor rand(long[] shape, String dtype, long seed, Placement placement,
      NdSbp ndSbp) {
    Tensor[] out = {null};
    Tessera.tensor_rand(out, shape, Tessera.dtypeParse(dtype), seed, placement, ndSbp);
    return make(out);
  }

  /** Standard normal values depending only on (shape, dtype, seed); f32 or f64. */
  public static Tensor randn(long[] shape, String dtype, long seed, Placement placement,
      NdSbp ndSbp) {
    Tensor[] out = {null};
    Tessera.tensor_randn(out, shape, Tessera.dtypeParse(dtype), seed, placement, ndSbp);
    return make(out);
  }

  /** Destroys this handle now; idempotent. Not collective. */
  @Override
  public void close() {
    delete();
  }

  // --- Metadata (local; no communication). ---

  /** "[4,6] f32 cpu:[0,1] S(0)". */
  @Override
  public String toString() {
    return Tessera.tensor_string(this);
  }

  public long ndim() {
    long[] out = {0};
    Tessera.tensor_ndim(out, this);
    return out[0];
  }

  public long dim(long dim) {
    long[] out = {0};
    Tessera.tensor_dim(out, this, dim);
    return out[0];
  }

  /** The logical shape. */
  public long[] shape() {
    long[] dims = new long[(int) ndim()];
    for (int d = 0; d < dims.length; ++d) dims[d] = dim(d);
    return dims;
  }

  public long numElements() {
    long[] out = {0};
    Tessera.tensor_num_elements(out, this);
    return out[0];
  }

  /** The dtype's name, e.g. "f32". */
  public String dtype() {
    return Tessera.dtypeName(dtypeCode());
  }

  private int dtypeCode() {
    int[] out = {0};
    Tessera.tensor_dtype(out, this);
    return out[0];
  }

  /** A new Placement handle. */
  public Placement placement() {
    Placement[] out = {null};
    Tessera.tensor_placement(out, this);
    return out[0];
  }

  /** A new NdSbp handle. */
  public NdSbp ndSbp() {
    NdSbp[] out = {null};
    Tessera.tensor_nd_sbp(out, this);
    return out[0];
  }

  /** Whether this rank holds a local piece. */
  public boolean hasLocal() {
    int[] out = {0};
    Tessera.tensor_has_local(out, this);
    return out[0] != 0;
  }

  /** This rank's piece's shape; FAILED_PRECONDITION outside the placement. */
  public long[] localShape() {
    long[] ndim = {0};
    Tessera.tensor_local_ndim(ndim, this);
    long[] dims = new long[(int) ndim[0]];
    for (int d = 0; d < dims.length; ++d) {
      long[] out = {0};
      Tessera.tensor_local_dim(out, this, d);
      dims[d] = out[0];
    }
    return dims;
  }

  public long localNumElements() {
    long[] out = {0};
    Tessera.tensor_local_num_elements(out, this);
    return out[0];
  }

  // --- Data. ---

  private void checkDType(String function, int want) {
    int have = dtypeCode();
    if (have != want) {
      throw new TesseraException(Tessera.INVALID_ARGUMENT, "Tensor." + function
          + ": the tensor is " + Tessera.dtypeName(have) + ", not " + Tessera.dtypeName(want));
    }
  }

  private java.nio.ByteBuffer host(String function, int dtype) {
    checkDType(function, dtype);
    java.nio.ByteBuffer b = direct(numElements() * dtypeSize(dtype));
    toHost(b);
    return b;
  }

  private java.nio.ByteBuffer local(String function, int dtype) {
    checkDType(function, dtype);
    java.nio.ByteBuffer b = direct(localNumElements() * dtypeSize(dtype));
    copyLocal(b);
    return b;
  }

  /**
   * Writes the logical value (row-major) into direct buffer {@code out} from its start,
   * on every rank; INVALID_ARGUMENT when its capacity is too small. Collective.
   */
  public void toHost(java.nio.ByteBuffer out) {
    Tessera.tensor_to_host(out, this);
  }

  /** The logical value of an f32 tensor (collective); likewise for the other types. */
  public float[] toFloatArray() {
    float[] a = new float[(int) numElements()];
    host("toFloatArray", Tessera.DTYPE_F32).asFloatBuffer().get(a);
    return a;
  }

  public double[] toDoubleArray() {
    double[] a = new double[(int) numElements()];
    host("toDoubleArray", Tessera.DTYPE_F64).asDoubleBuffer().get(a);
    return a;
  }

  public int[] toIntArray() {
    int[] a = new int[(int) numElements()];
    host("toIntArray", Tessera.DTYPE_I32).asIntBuffer().get(a);
    return a;
  }

  public long[] toLongArray() {
    long[] a = new long[(int) numElements()];
    host("toLongArray", Tessera.DTYPE_I64).asLongBuffer().get(a);
    return a;
  }

  /** Copies this rank's local piece into direct buffer {@code out}. Not collective. */
  public void copyLocal(java.nio.ByteBuffer out) {
    Tessera.tensor_copy_local(out, this);
  }

  /** A copy of this rank's local piece of an f32 tensor; likewise for the other types. */
  public float[] localFloatArray() {
    java.nio.ByteBuffer b = local("localFloatArray", Tessera.DTYPE_F32);
    float[] a = new float[b.capacity() / 4];
    b.asFloatBuffer().get(a);
    return a;
  }

  public double[] localDoubleArray() {
    java.nio.ByteBuffer b = local("localDoubleArray", Tessera.DTYPE_F64);
    double[] a = new double[b.capacity() / 8];
    b.asDoubleBuffer().get(a);
    return a;
  }

  public int[] localIntArray() {
    java.nio.ByteBuffer b = local("localIntArray", Tessera.DTYPE_I32);
    int[] a = new int[b.capacity() / 4];
    b.asIntBuffer().get(a);
    return a;
  }

  public long[] localLongArray() {
    java.nio.ByteBuffer b = local("localLongArray", Tessera.DTYPE_I64);
    long[] a = new long[b.capacity() / 8];
    b.asLongBuffer().get(a);
    return a;
  }

  /** The same logical value held as {@code ndSbp} on {@code placement}. Collective. */
  public Tensor toGlobal(Placement placement, NdSbp ndSbp) {
    Tensor[] out = {null};
    Tessera.tensor_to_global(out, this, placement, ndSbp);
    return make(out);
  }

  // --- Ops (collective over the inputs' placement). ---

  private interface Binary {
    void run(Tensor[] out, Tensor x, Tensor y);
  }

  private interface Unary {
    void run(Tensor[] out, Tensor x);
  }

  private Tensor binary(Binary op, Tensor y) {
    Tensor[] out = {null};
    op.run(out, this, y);
    return make(out);
  }

  private Tensor unary(Unary op) {
    Tensor[] out = {null};
    op.run(out, this);
    return make(out);
  }

  /** this + y, numpy broadcasting. */
  public Tensor add(Tensor y) {
    return binary(Tessera::add, y);
  }

  public Tensor sub(Tensor y) {
    return binary(Tessera::sub, y);
  }

  public Tensor mul(Tensor y) {
    return binary(Tessera::mul, y);
  }

  public Tensor div(Tensor y) {
    return binary(Tessera::div, y);
  }

  public Tensor maximum(Tensor y) {
    return binary(Tessera::maximum, y);
  }

  public Tensor minimum(Tensor y) {
    return binary(Tessera::minimum, y);
  }

  public Tensor relu() {
    return unary(Tessera::relu);
  }

  public Tensor gelu() {
    return unary(Tessera::gelu);
  }

  public Tensor sigmoid() {
    return unary(Tessera::sigmoid);
  }

  public Tensor tanh() {
    return unary(Tessera::tanh);
  }

  public Tensor exp() {
    return unary(Tessera::exp);
  }

  public Tensor neg() {
    return unary(Tessera::neg);
  }

  public Tensor sqrt() {
    return unary(Tessera::sqrt);
  }

  /** this @ b. */
  public Tensor matmul(Tensor b) {
    return matmul(b, false, false);
  }

  /** op(this) @ op(b), op transposing the last two dims when asked. */
  public Tensor matmul(Tensor b, boolean transposeA, boolean transposeB) {
    Tensor[] out = {null};
    Tessera.matmul(out, this, b, transposeA ? 1 : 0, transposeB ? 1 : 0);
    return make(out);
  }

  private interface Reduce {
    void run(Tensor[] out, Tensor x, long[] axes, int keepdims);
  }

  private Tensor reduce(Reduce op, long[] axes, boolean keepdims) {
    Tensor[] out = {null};
    op.run(out, this, axes == null ? new long[0] : axes, keepdims ? 1 : 0);
    return make(out);
  }

  /** Sum over {@code axes} (empty or null: every axis; negative from the end). */
  public Tensor reduceSum(long[] axes, boolean keepdims) {
    return reduce(Tessera::reduce_sum, axes, keepdims);
  }

  public Tensor reduceMean(long[] axes, boolean keepdims) {
    return reduce(Tessera::reduce_mean, axes, keepdims);
  }

  public Tensor reduceMax(long[] axes, boolean keepdims) {
    return reduce(Tessera::reduce_max, axes, keepdims);
  }

  public Tensor reduceMin(long[] axes, boolean keepdims) {
    return reduce(Tessera::reduce_min, axes, keepdims);
  }

  /** Normalised exponentials along {@code axis}. */
  public Tensor softmax(long axis) {
    Tensor[] out = {null};
    Tessera.softmax(out, this, axis);
    return make(out);
  }

  /** Runs {@code call} (attributes and constraints, no input metas) on {@code inputs}. */
  public static Tensor[] apply(OpCall call, Tensor... inputs) {
    long[] in = new long[inputs.length];
    for (int i = 0; i < inputs.length; ++i) in[i] = getCPtr(inputs[i]);
    long[] handles = new long[16];
    Tessera.apply(handles, call, in);
    int n = 0;
    while (n < handles.length && handles[n] != 0) ++n;
    Tensor[] outputs = new Tensor[n];
    for (int i = 0; i < n; ++i) outputs[i] = new Tensor(handles[i], true);
    return outputs;
  }
%}

/* --- Boxing and collectives on host buffers ---------------------------------------
 * Collective: every rank concerned makes the same calls in the same order. Arrays
 * are copied into direct buffers and back; the ByteBuffer forms take direct buffers
 * in native byte order and copy nothing. */

%pragma(java) modulecode=%{
  /**
   * Moves this rank's piece of the logical tensor of {@code shape} and {@code dtype}
   * ("f32", "f64", "i32", "i64") held as {@code src} on {@code srcPlacement} (read from
   * {@code inLocal}) to its piece held as {@code dst} on {@code dstPlacement} (written to
   * {@code outLocal}). Each buffer's capacity must be exactly this rank's piece's byte
   * count (0, or null, where the placement lacks this rank).
   */
  public static void box(java.nio.ByteBuffer outLocal, java.nio.ByteBuffer inLocal, long[] shape,
      String dtype, Placement srcPlacement, NdSbp src, Placement dstPlacement, NdSbp dst) {
    box(outLocal, inLocal, shape, dtypeParse(dtype), srcPlacement, src, dstPlacement, dst);
  }

  /**
   * The same moving an array: returns this rank's destination piece, or null where
   * dstPlacement lacks this rank. {@code local} is null where srcPlacement lacks it.
   */
  public static float[] box(float[] local, long[] shape, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    java.nio.ByteBuffer out = boxBuffer(local == null ? null : Tensor.bufferOf(local), shape,
        DTYPE_F32, srcPlacement, src, dstPlacement, dst);
    if (out == null) return null;
    float[] a = new float[out.capacity() / 4];
    out.asFloatBuffer().get(a);
    return a;
  }

  public static double[] box(double[] local, long[] shape, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    java.nio.ByteBuffer out = boxBuffer(local == null ? null : Tensor.bufferOf(local), shape,
        DTYPE_F64, srcPlacement, src, dstPlacement, dst);
    if (out == null) return null;
    double[] a = new double[out.capacity() / 8];
    out.asDoubleBuffer().get(a);
    return a;
  }

  public static int[] box(int[] local, long[] shape, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    java.nio.ByteBuffer out = boxBuffer(local == null ? null : Tensor.bufferOf(local), shape,
        DTYPE_I32, srcPlacement, src, dstPlacement, dst);
    if (out == null) return null;
    int[] a = new int[out.capacity() / 4];
    out.asIntBuffer().get(a);
    return a;
  }

  public static long[] box(long[] local, long[] shape, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    java.nio.ByteBuffer out = boxBuffer(local == null ? null : Tensor.bufferOf(local), shape,
        DTYPE_I64, srcPlacement, src, dstPlacement, dst);
    if (out == null) return null;
    long[] a = new long[out.capacity() / 8];
    out.asLongBuffer().get(a);
    return a;
  }

  /** A buffer for this rank's destination piece (null outside dstPlacement), filled by tess_box. */
  private static java.nio.ByteBuffer boxBuffer(java.nio.ByteBuffer in, long[] shape, int dtype,
      Placement srcPlacement, NdSbp src, Placement dstPlacement, NdSbp dst) {
    java.nio.ByteBuffer out = null;
    int rank = worldRank();
    if (dstPlacement != null && dstPlacement.contains(rank)) {
      try (Layout l = Layout.create(dstPlacement, dst, shape, rank)) {
        out = Tensor.direct(l.numElements() * Tensor.dtypeSize(dtype));
      }
    }
    box(out, in, shape, dtype, srcPlacement, src, dstPlacement, dst);
    return out;
  }

  /** The plan box runs for these arguments (needs no world). */
  public static BoxingPlan boxPlan(long[] shape, String dtype, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    return BoxingPlan.create(shape, dtype, srcPlacement, src, dstPlacement, dst);
  }

  /**
   * The first {@code count} elements of {@code dtype} in direct buffer {@code buffer}
   * := {@code op} (REDUCE_SUM, _MAX, _MIN) over the ranks of {@code placement} (null: the
   * world), in place. {@code algorithm}: ALLREDUCE_FLAT, _AUTO or _HIERARCHICAL. Ranks
   * outside the placement return at once.
   */
  public static void allreduce(java.nio.ByteBuffer buffer, long count, String dtype, int op,
      Placement placement, int algorithm) {
    int type = dtypeParse(dtype);
    if (buffer != null && buffer.capacity() < count * Tensor.dtypeSize(type)) {
      throw new TesseraException(INVALID_ARGUMENT, "Tessera.allreduce: buffer has "
          + buffer.capacity() + " bytes but " + count + " " + dtype + " elements need "
          + count * Tensor.dtypeSize(type));
    }
    allreduce(buffer, count, type, op, placement, algorithm);
  }

  /** The same on an array, in place. */
  public static void allreduce(float[] data, int op, Placement placement, int algorithm) {
    java.nio.ByteBuffer b = Tensor.bufferOf(data);
    allreduce(b, data.length, "f32", op, placement, algorithm);
    b.asFloatBuffer().get(data);
  }

  public static void allreduce(double[] data, int op, Placement placement, int algorithm) {
    java.nio.ByteBuffer b = Tensor.bufferOf(data);
    allreduce(b, data.length, "f64", op, placement, algorithm);
    b.asDoubleBuffer().get(data);
  }

  public static void allreduce(int[] data, int op, Placement placement, int algorithm) {
    java.nio.ByteBuffer b = Tensor.bufferOf(data);
    allreduce(b, data.length, "i32", op, placement, algorithm);
    b.asIntBuffer().get(data);
  }

  public static void allreduce(long[] data, int op, Placement placement, int algorithm) {
    java.nio.ByteBuffer b = Tensor.bufferOf(data);
    allreduce(b, data.length, "i64", op, placement, algorithm);
    b.asLongBuffer().get(data);
  }

  /**
   * Bounds every collective from now on to {@code seconds} (0: no limit), existing
   * communicators included. Local; call it with the same value on every rank.
   */
  public static void setCollectiveTimeout(double seconds) {
    set_collective_timeout(seconds);
  }

  /** The process default collective timeout in seconds (0: none). */
  public static double collectiveTimeout() {
    double[] out = {0};
    collective_timeout(out);
    return out[0];
  }
%}

%typemap(javacode) struct tess_boxing_plan %{
  /** The plan of boxing a tensor of {@code shape} and {@code dtype} between two layouts. */
  public static BoxingPlan create(long[] shape, String dtype, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    BoxingPlan[] out = {null};
    Tessera.boxing_plan_create(out, shape, Tessera.dtypeParse(dtype), srcPlacement, src,
        dstPlacement, dst);
    return out[0];
  }

  /** Destroys the plan now; idempotent. */
  @Override
  public void close() {
    delete();
  }

  /** The text explain shows: the conversion, one numbered line per step, the total. */
  @Override
  public String toString() {
    return Tessera.boxing_plan_string(this);
  }

  public long numSteps() {
    long[] out = {0};
    Tessera.boxing_plan_num_steps(out, this);
    return out[0];
  }

  /** Step {@code index}'s line without its number; "" past the last. */
  public String step(long index) {
    return Tessera.boxing_plan_step_string(this, index);
  }

  /** The modelled time of all steps, in seconds. */
  public double cost() {
    double[] out = {0};
    Tessera.boxing_plan_cost(out, this);
    return out[0];
  }
%}

%typemap(javacode) struct tess_bucketed_allreducer %{
  /** Packs into buckets of at most {@code bucketBytes} (0: 25 MiB). One thread at a time. */
  public static BucketedAllReducer create(long bucketBytes) {
    BucketedAllReducer[] out = {null};
    Tessera.bucketed_allreducer_create(out, bucketBytes);
    return out[0];
  }

  /** Destroys the reducer now; idempotent. */
  @Override
  public void close() {
    delete();
  }

  /**
   * buffers[i] (counts[i] elements of {@code dtype}, direct) := {@code op} over the ranks
   * of {@code placement} (null: the world), in place, one all-reduce per bucket.
   */
  public void allreduce(java.nio.ByteBuffer[] buffers, long[] counts, String dtype, int op,
      Placement placement) {
    if (buffers.length != counts.length) {
      throw new TesseraException(Tessera.INVALID_ARGUMENT, "BucketedAllReducer.allreduce: "
          + buffers.length + " buffers but " + counts.length + " counts");
    }
    int type = Tessera.dtypeParse(dtype);
    for (int i = 0; i < buffers.length; ++i) {
      long need = counts[i] * Tensor.dtypeSize(type);
      if (buffers[i] != null && buffers[i].capacity() < need) {
        throw new TesseraException(Tessera.INVALID_ARGUMENT, "BucketedAllReducer.allreduce: "
            + "buffers[" + i + "] has " + buffers[i].capacity() + " bytes but counts[" + i
            + "] = " + counts[i] + " " + dtype + " elements need " + need);
      }
    }
    Tessera.bucketed_allreduce(this, buffers, counts, type, op, placement);
  }

  /** The same on arrays, in place. */
  public void allreduce(float[][] arrays, int op, Placement placement) {
    java.nio.ByteBuffer[] buffers = new java.nio.ByteBuffer[arrays.length];
    long[] counts = new long[arrays.length];
    for (int i = 0; i < arrays.length; ++i) {
      buffers[i] = Tensor.bufferOf(arrays[i]);
      counts[i] = arrays[i].length;
    }
    allreduce(buffers, counts, "f32", op, placement);
    for (int i = 0; i < arrays.length; ++i) buffers[i].asFloatBuffer().get(arrays[i]);
  }

  public void allreduce(double[][] arrays, int op, Placement placement) {
    java.nio.ByteBuffer[] buffers = new java.nio.ByteBuffer[arrays.length];
    long[] counts = new long[arrays.length];
    for (int i = 0; i < arrays.length; ++i) {
      buffers[i] = Tensor.bufferOf(arrays[i]);
      counts[i] = arrays[i].length;
    }
    allreduce(buffers, counts, "f64", op, placement);
    for (int i = 0; i < arrays.length; ++i) buffers[i].asDoubleBuffer().get(arrays[i]);
  }

  /** {calls, plans built, the last call's buckets, of those reduced without a copy}. */
  public long[] stats() {
    long[] calls = {0}, plans = {0}, buckets = {0}, inPlace = {0};
    Tessera.bucketed_allreducer_stats(calls, plans, buckets, inPlace, this);
    return new long[] {calls[0], plans[0], buckets[0], inPlace[0]};
  }
%}
