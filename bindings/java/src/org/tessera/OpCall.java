package org.tessera;

/**
 * A call of a registered op with its attributes, input metas and constraints, for SBP
 * signature inference ({@link #infer}, {@link #explain}) or to run on tensors
 * ({@link #apply}).
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class OpCall extends Handle {
  OpCall(long pointer) {
    super(pointer, TesseraJNI::delete_OpCall);
  }

  private static long newHandle(String opName) {
    long[] out = {0};
    TesseraJNI.op_call_create(out, opName);
    return out[0];
  }

  /**
   * A call of the registered op {@code opName}; NOT_FOUND, naming close op names, for an
   * unknown one. The builder methods return the call, so they chain.
   */
  public OpCall(String opName) {
    this(newHandle(opName));
  }

  /** Same as {@code new OpCall(opName)}. */
  public static OpCall create(String opName) {
    return new OpCall(opName);
  }

  /** Destroys the call now; idempotent. */
  @Override
  public void close() {
    super.close();
  }

  /** The op's signature, e.g. "add(x, y) -> (out)". */
  public String signature() {
    return TesseraJNI.op_call_signature(ptr(), this);
  }

  @Override
  public String toString() {
    return signature();
  }

  /** Sets a bool attribute; INVALID_ARGUMENT for an unknown name or another type. */
  public OpCall attr(String name, boolean value) {
    TesseraJNI.op_call_set_attr_bool(ptr(), this, name, value ? 1 : 0);
    return this;
  }

  /** Sets an int attribute. */
  public OpCall attr(String name, long value) {
    TesseraJNI.op_call_set_attr_int(ptr(), this, name, value);
    return this;
  }

  /** Sets a float attribute. */
  public OpCall attr(String name, double value) {
    TesseraJNI.op_call_set_attr_float(ptr(), this, name, value);
    return this;
  }

  /** Sets an ints attribute. */
  public OpCall attr(String name, long[] values) {
    TesseraJNI.op_call_set_attr_ints(ptr(), this, name, values);
    return this;
  }

  /** Sets a dtype attribute from its name, e.g. "f64". */
  public OpCall attr(String name, String dtype) {
    TesseraJNI.op_call_set_attr_dtype(ptr(), this, name, DType.parse(dtype));
    return this;
  }

  /** Appends the next input: {@code shape}, dtype name ("f32"), placement and nd-sbp. */
  public OpCall input(long[] shape, String dtype, Placement placement, NdSbp ndSbp) {
    TesseraJNI.op_call_add_input(ptr(), this, shape, DType.parse(dtype),
        Handle.ptr(placement), placement, Handle.ptr(ndSbp), ndSbp);
    return this;
  }

  /** As above with the placement and nd-sbp as text, e.g. "cpu:[0,1]", "S(0)". */
  public OpCall input(long[] shape, String dtype, String placement, String ndSbp) {
    try (Placement p = Placement.parse(placement);
        NdSbp s = NdSbp.parse(ndSbp)) {
      return input(shape, dtype, p, s);
    }
  }

  /** The number of inputs appended so far. */
  public long numInputs() {
    long[] out = {0};
    TesseraJNI.op_call_num_inputs(out, ptr(), this);
    return out[0];
  }

  /** Requires input {@code slot} to have {@code ndSbp} (text); replaces an earlier one. */
  public OpCall constrainInput(long slot, String ndSbp) {
    try (NdSbp s = NdSbp.parse(ndSbp)) {
      TesseraJNI.op_call_constrain_input(ptr(), this, slot, Handle.ptr(s), s);
    }
    return this;
  }

  /** Requires output {@code slot} to have {@code ndSbp} (text); replaces an earlier one. */
  public OpCall constrainOutput(long slot, String ndSbp) {
    try (NdSbp s = NdSbp.parse(ndSbp)) {
      TesseraJNI.op_call_constrain_output(ptr(), this, slot, Handle.ptr(s), s);
    }
    return this;
  }

  /** Infers the SBP signature through this thread's inference cache. */
  public InferResult infer() {
    long[] out = {0};
    TesseraJNI.op_call_infer(out, ptr(), this);
    return new InferResult(out[0]);
  }

  /** Runs the op on tensors: Tensor.apply(this, inputs). */
  public Tensor[] apply(Tensor... inputs) {
    return Tensor.apply(this, inputs);
  }

  /** The full explain record (uncached); see Explanation.failure(). */
  public Explanation explain() {
    long[] out = {0};
    TesseraJNI.op_call_explain(out, ptr(), this);
    return new Explanation(out[0]);
  }
}
