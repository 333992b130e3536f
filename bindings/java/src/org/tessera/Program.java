package org.tessera;

/**
 * A plan-mode program: data inputs, variables and ops on value ids, and its outputs.
 * Built explicitly or by {@link Capture}; compiled by {@link Plan#compile}. Local.
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class Program extends Handle {
  Program(long pointer) {
    super(pointer, TesseraJNI::delete_Program);
  }

  /** An empty program. Values (inputs, variables, op outputs) are numbered 0, 1, ... */
  public static Program create() {
    long[] out = {0};
    TesseraJNI.program_create(out);
    return new Program(out[0]);
  }

  /** Destroys the program now; idempotent. Plans compiled from it keep their copy. */
  @Override
  public void close() {
    super.close();
  }

  /**
   * A data input (fed at every run) of {@code shape}, {@code dtype} ("f32", ...) and
   * {@code placement}, held as {@code ndSbp} (null: S(0) on every placement axis, B for a
   * 0-d input). Returns its value id.
   */
  public long addInput(String name, long[] shape, String dtype, Placement placement,
      NdSbp ndSbp) {
    long[] out = {0};
    TesseraJNI.program_add_input(out, ptr(), this, name, shape, DType.parse(dtype),
        Handle.ptr(placement), placement, Handle.ptr(ndSbp), ndSbp);
    return out[0];
  }

  /** A variable: the program keeps {@code value} and every run reads it. Returns its id. */
  public long addVariable(String name, Tensor value) {
    long[] out = {0};
    TesseraJNI.program_add_variable(out, ptr(), this, name, Handle.ptr(value), value);
    return out[0];
  }

  /** Appends op {@code opName} applied to the values {@code valueIds}; returns its outputs' ids. */
  public long[] addOp(String opName, long... valueIds) {
    try (OpCall call = new OpCall(opName)) {
      return addOp(call, valueIds);
    }
  }

  /**
   * Appends {@code call} (its attributes and constraints; no input metas) applied to the
   * values {@code valueIds}; inferred at once, so a bad call throws here. Returns the ids
   * of its outputs.
   */
  public long[] addOp(OpCall call, long... valueIds) {
    long[] first = {0};
    long[] count = {0};
    TesseraJNI.program_add_op(first, count, ptr(), this, Handle.ptr(call), call, valueIds);
    long[] ids = new long[(int) count[0]];
    for (int i = 0; i < ids.length; ++i) ids[i] = first[0] + i;
    return ids;
  }

  /** Makes value {@code valueId} the program's next output. */
  public void markOutput(long valueId) {
    TesseraJNI.program_mark_output(ptr(), this, valueId);
  }

  /** A program's counts of values, ops, data inputs and outputs. */
  public static final class Sizes {
    /** Values (inputs, variables and op outputs). */
    public final long values;
    /** Ops. */
    public final long ops;
    /** Data inputs. */
    public final long inputs;
    /** Marked outputs. */
    public final long outputs;

    Sizes(long values, long ops, long inputs, long outputs) {
      this.values = values;
      this.ops = ops;
      this.inputs = inputs;
      this.outputs = outputs;
    }

    @Override
    public String toString() {
      return values + " values, " + ops + " ops, " + inputs + " inputs, " + outputs + " outputs";
    }
  }

  /** The counts of values, ops, data inputs and outputs. */
  public Sizes sizes() {
    long[] values = {0}, ops = {0}, inputs = {0}, outputs = {0};
    TesseraJNI.program_sizes(values, ops, inputs, outputs, ptr(), this);
    return new Sizes(values[0], ops[0], inputs[0], outputs[0]);
  }

  /** The graph: one line per value and op ("%3 = matmul(%0, %1) {} -> ..."), then the outputs. */
  @Override
  public String toString() {
    return TesseraJNI.program_string(ptr(), this);
  }

  /** Plan.compile(this, inputRegisterNum). */
  public Plan compile(int inputRegisterNum) {
    return Plan.compile(this, inputRegisterNum);
  }
}
