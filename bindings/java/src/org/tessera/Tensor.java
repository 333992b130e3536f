package org.tessera;

import java.nio.ByteBuffer;

/**
 * A global tensor: a logical shape and dtype on a placement with an nd-sbp; this rank
 * holds its local piece. Creation, {@code toHost}, {@code toGlobal} and ops are collective
 * (every rank makes the same calls in the same order); metadata is local. Immutable: ops
 * return new tensors.
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class Tensor extends Handle {
  Tensor(long pointer) {
    super(pointer, TesseraJNI::delete_Tensor);
  }

  // --- Creation. Every creation is collective: all ranks make the same calls. ---

  private static Tensor make(long[] out) {
    return new Tensor(out[0]);
  }

  /** Product of the dims; INVALID_ARGUMENT (as the C API would) for a negative one. */
  private static long count(String function, long[] shape) {
    if (shape == null) {
      throw TesseraException.of(Status.INVALID_ARGUMENT, function + ": shape is null");
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
      throw TesseraException.of(Status.INVALID_ARGUMENT, function + ": data has " + length
          + " elements but shape " + text(shape) + " needs " + want);
    }
  }

  private static void checkBuffer(String function, ByteBuffer data, long elements,
      int dtype) {
    if (data == null) return;  // the C API decides whether NULL is fine
    long need = elements * DType.size(dtype);
    if (data.capacity() < need) {
      throw TesseraException.of(Status.INVALID_ARGUMENT, function + ": buffer has "
          + data.capacity() + " bytes but " + elements + " " + DType.name(dtype)
          + " elements need " + need);
    }
  }

  /** The logical tensor {@code data} (row-major, the same on every rank) of {@code shape}. */
  public static Tensor fromHost(float[] data, long[] shape, Placement placement, NdSbp ndSbp) {
    checkLength("Tensor.fromHost", data.length, shape);
    return fromHost(HostBuffers.bufferOf(data), shape, "f32", placement, ndSbp);
  }

  /** The same for f64. */
  public static Tensor fromHost(double[] data, long[] shape, Placement placement, NdSbp ndSbp) {
    checkLength("Tensor.fromHost", data.length, shape);
    return fromHost(HostBuffers.bufferOf(data), shape, "f64", placement, ndSbp);
  }

  /** The same for i32. */
  public static Tensor fromHost(int[] data, long[] shape, Placement placement, NdSbp ndSbp) {
    checkLength("Tensor.fromHost", data.length, shape);
    return fromHost(HostBuffers.bufferOf(data), shape, "i32", placement, ndSbp);
  }

  /** The same for i64. */
  public static Tensor fromHost(long[] data, long[] shape, Placement placement, NdSbp ndSbp) {
    checkLength("Tensor.fromHost", data.length, shape);
    return fromHost(HostBuffers.bufferOf(data), shape, "i64", placement, ndSbp);
  }

  /**
   * As above from a direct buffer in native byte order (read from its start) holding
   * the elements of {@code dtype} ("f32", "f64", "i32", "i64").
   */
  public static Tensor fromHost(ByteBuffer data, long[] shape, String dtype,
      Placement placement, NdSbp ndSbp) {
    int type = DType.parse(dtype);
    checkBuffer("Tensor.fromHost", data, count("Tensor.fromHost", shape), type);
    long[] out = {0};
    Tessera.init();
    TesseraJNI.tensor_from_host(
        out, data, shape, type, Handle.ptr(placement), placement, Handle.ptr(ndSbp), ndSbp);
    return make(out);
  }

  /**
   * The logical f16 or bf16 tensor ({@code dtype} "f16" or "bf16") whose elements' raw
   * 2-byte bits are {@code bits}: Java has no 2-byte float, so the data moves as bits.
   * Kernels compute such tensors in f32 and round to nearest even on store.
   */
  public static Tensor fromHostBits(short[] bits, long[] shape, String dtype,
      Placement placement, NdSbp ndSbp) {
    checkHalf("Tensor.fromHostBits", DType.parse(dtype));
    checkLength("Tensor.fromHostBits", bits.length, shape);
    ByteBuffer b = HostBuffers.direct(2L * bits.length);
    b.asShortBuffer().put(bits);
    return fromHost(b, shape, dtype, placement, ndSbp);
  }

  private static void checkHalf(String function, int dtype) {
    if (dtype != DType.F16 && dtype != DType.BF16) {
      throw TesseraException.of(Status.INVALID_ARGUMENT, function + ": dtype "
          + DType.name(dtype) + " is not a 2-byte float (f16 or bf16)");
    }
  }

  /**
   * The tensor whose piece on this rank is {@code local} of {@code localShape}: shards
   * for S, partial values for P, copies for B. {@code logicalShape} null infers the
   * logical shape from every rank's local shape (collective).
   */
  public static Tensor fromLocal(float[] local, long[] localShape, Placement placement,
      NdSbp ndSbp, long[] logicalShape) {
    checkLength("Tensor.fromLocal", local.length, localShape);
    return fromLocal(HostBuffers.bufferOf(local), localShape, "f32", placement, ndSbp, logicalShape);
  }

  /** The same for f64. */
  public static Tensor fromLocal(double[] local, long[] localShape, Placement placement,
      NdSbp ndSbp, long[] logicalShape) {
    checkLength("Tensor.fromLocal", local.length, localShape);
    return fromLocal(HostBuffers.bufferOf(local), localShape, "f64", placement, ndSbp, logicalShape);
  }

  /** The same for i32. */
  public static Tensor fromLocal(int[] local, long[] localShape, Placement placement,
      NdSbp ndSbp, long[] logicalShape) {
    checkLength("Tensor.fromLocal", local.length, localShape);
    return fromLocal(HostBuffers.bufferOf(local), localShape, "i32", placement, ndSbp, logicalShape);
  }

  /** The same for i64. */
  public static Tensor fromLocal(long[] local, long[] localShape, Placement placement,
      NdSbp ndSbp, long[] logicalShape) {
    checkLength("Tensor.fromLocal", local.length, localShape);
    return fromLocal(HostBuffers.bufferOf(local), localShape, "i64", placement, ndSbp, logicalShape);
  }

  /** As above from a direct buffer in native byte order. */
  public static Tensor fromLocal(ByteBuffer local, long[] localShape, String dtype,
      Placement placement, NdSbp ndSbp, long[] logicalShape) {
    int type = DType.parse(dtype);
    checkBuffer("Tensor.fromLocal", local, count("Tensor.fromLocal", localShape), type);
    if (logicalShape != null && logicalShape.length != localShape.length) {
      throw TesseraException.of(Status.INVALID_ARGUMENT, "Tensor.fromLocal: logical shape "
          + text(logicalShape) + " has " + logicalShape.length + " dims but the local shape "
          + text(localShape) + " has " + localShape.length);
    }
    long[] out = {0};
    Tessera.init();
    TesseraJNI.tensor_from_local(out, local, localShape, type, Handle.ptr(placement), placement,
        Handle.ptr(ndSbp), ndSbp, logicalShape);
    return make(out);
  }

  /** Every element {@code value} (which {@code dtype} must hold exactly). */
  public static Tensor full(long[] shape, String dtype, double value, Placement placement,
      NdSbp ndSbp) {
    long[] out = {0};
    Tessera.init();
    TesseraJNI.tensor_full(out, shape, DType.parse(dtype), value, Handle.ptr(placement),
        placement, Handle.ptr(ndSbp), ndSbp);
    return make(out);
  }

  /** Every element 0. */
  public static Tensor zeros(long[] shape, String dtype, Placement placement, NdSbp ndSbp) {
    return full(shape, dtype, 0, placement, ndSbp);
  }

  /** Every element 1. */
  public static Tensor ones(long[] shape, String dtype, Placement placement, NdSbp ndSbp) {
    return full(shape, dtype, 1, placement, ndSbp);
  }

  /** start, start + step, ... up to but excluding stop. */
  public static Tensor arange(double start, double stop, double step, String dtype,
      Placement placement, NdSbp ndSbp) {
    long[] out = {0};
    Tessera.init();
    TesseraJNI.tensor_arange(out, start, stop, step, DType.parse(dtype),
        Handle.ptr(placement), placement, Handle.ptr(ndSbp), ndSbp);
    return make(out);
  }

  /** Uniform [0, 1) values depending only on (shape, dtype, seed); f32, f64, f16 or bf16. */
  public static Tensor rand(long[] shape, String dtype, long seed, Placement placement,
      NdSbp ndSbp) {
    long[] out = {0};
    Tessera.init();
    TesseraJNI.tensor_rand(out, shape, DType.parse(dtype), seed, Handle.ptr(placement),
        placement, Handle.ptr(ndSbp), ndSbp);
    return make(out);
  }

  /** Standard normal values depending only on (shape, dtype, seed); f32, f64, f16 or bf16. */
  public static Tensor randn(long[] shape, String dtype, long seed, Placement placement,
      NdSbp ndSbp) {
    long[] out = {0};
    Tessera.init();
    TesseraJNI.tensor_randn(out, shape, DType.parse(dtype), seed, Handle.ptr(placement),
        placement, Handle.ptr(ndSbp), ndSbp);
    return make(out);
  }

  /** Destroys this handle now; idempotent. Not collective. */
  @Override
  public void close() {
    super.close();
  }

  // --- Metadata (local; no communication). ---

  /** "[4,6] f32 cpu:[0,1] S(0)". */
  @Override
  public String toString() {
    return TesseraJNI.tensor_string(ptr(), this);
  }

  /** The number of logical dims. */
  public long ndim() {
    return shape().length;
  }

  /** The logical size along {@code dim}; OUT_OF_RANGE past the last dim. */
  public long dim(long dim) {
    return dimOf("Tensor.dim", shape(), dim);
  }

  /** The logical shape (a new array). */
  public long[] shape() {
    long[][] out = {null};
    TesseraJNI.tensor_shape(out, ptr(), this);
    return out[0];
  }

  /** The logical element count. */
  public long numElements() {
    long[] out = {0};
    TesseraJNI.tensor_num_elements(out, ptr(), this);
    return out[0];
  }

  /** The dtype's name, e.g. "f32". */
  public String dtype() {
    return DType.name(dtypeCode());
  }

  private int dtypeCode() {
    int[] out = {0};
    TesseraJNI.tensor_dtype(out, ptr(), this);
    return out[0];
  }

  /** A new Placement handle. */
  public Placement placement() {
    long[] out = {0};
    TesseraJNI.tensor_placement(out, ptr(), this);
    return new Placement(out[0]);
  }

  /** A new NdSbp handle. */
  public NdSbp ndSbp() {
    long[] out = {0};
    TesseraJNI.tensor_nd_sbp(out, ptr(), this);
    return new NdSbp(out[0]);
  }

  /** Whether this rank holds a local piece. */
  public boolean hasLocal() {
    int[] out = {0};
    TesseraJNI.tensor_has_local(out, ptr(), this);
    return out[0] != 0;
  }

  /** This rank's piece's shape; FAILED_PRECONDITION outside the placement. */
  public long[] localShape() {
    long[][] out = {null};
    TesseraJNI.tensor_local_shape(out, ptr(), this);
    return out[0];
  }

  /** This rank's piece's element count (0 outside the placement). */
  public long localNumElements() {
    long[] out = {0};
    TesseraJNI.tensor_local_num_elements(out, ptr(), this);
    return out[0];
  }

  // --- Data. ---

  private void checkDType(String function, int want) {
    int have = dtypeCode();
    if (have != want) {
      throw TesseraException.of(Status.INVALID_ARGUMENT, "Tensor." + function
          + ": the tensor is " + DType.name(have) + ", not " + DType.name(want));
    }
  }

  private ByteBuffer host(String function, int dtype) {
    checkDType(function, dtype);
    ByteBuffer b = HostBuffers.direct(numElements() * DType.size(dtype));
    toHost(b);
    return b;
  }

  private ByteBuffer local(String function, int dtype) {
    checkDType(function, dtype);
    ByteBuffer b = HostBuffers.direct(localNumElements() * DType.size(dtype));
    copyLocal(b);
    return b;
  }

  /**
   * Writes the logical value (row-major) into direct buffer {@code out} from its start,
   * on every rank; INVALID_ARGUMENT when its capacity is too small. Collective.
   */
  public void toHost(ByteBuffer out) {
    TesseraJNI.tensor_to_host(out, ptr(), this);
  }

  /** The logical value of an f32 tensor (collective); likewise for the other types. */
  public float[] toFloatArray() {
    float[] a = new float[(int) numElements()];
    host("toFloatArray", DType.F32).asFloatBuffer().get(a);
    return a;
  }

  /** The logical value of an f16 or bf16 tensor as raw 2-byte bits (collective). */
  public short[] toBitsArray() {
    checkHalf("Tensor.toBitsArray", dtypeCode());
    short[] a = new short[(int) numElements()];
    ByteBuffer b = HostBuffers.direct(2 * numElements());
    toHost(b);
    b.asShortBuffer().get(a);
    return a;
  }

  /** The same for an f64 tensor. */
  public double[] toDoubleArray() {
    double[] a = new double[(int) numElements()];
    host("toDoubleArray", DType.F64).asDoubleBuffer().get(a);
    return a;
  }

  /** The same for an i32 tensor. */
  public int[] toIntArray() {
    int[] a = new int[(int) numElements()];
    host("toIntArray", DType.I32).asIntBuffer().get(a);
    return a;
  }

  /** The same for an i64 tensor. */
  public long[] toLongArray() {
    long[] a = new long[(int) numElements()];
    host("toLongArray", DType.I64).asLongBuffer().get(a);
    return a;
  }

  /** Copies this rank's local piece into direct buffer {@code out}. Not collective. */
  public void copyLocal(ByteBuffer out) {
    TesseraJNI.tensor_copy_local(out, ptr(), this);
  }

  /**
   * Waits until the work queued so far on the device holding this rank's piece has
   * finished, and throws the error any of it hit (ops on cuda placements return once
   * queued). Returns at once on cpu placements. Not collective.
   */
  public void synchronize() {
    TesseraJNI.tensor_synchronize(ptr(), this);
  }

  /** A copy of this rank's local piece of an f32 tensor; likewise for the other types. */
  public float[] localFloatArray() {
    return HostBuffers.toFloats(local("localFloatArray", DType.F32));
  }

  /** The same for an f64 tensor. */
  public double[] localDoubleArray() {
    return HostBuffers.toDoubles(local("localDoubleArray", DType.F64));
  }

  /** The same for an i32 tensor. */
  public int[] localIntArray() {
    return HostBuffers.toInts(local("localIntArray", DType.I32));
  }

  /** The same for an i64 tensor. */
  public long[] localLongArray() {
    return HostBuffers.toLongs(local("localLongArray", DType.I64));
  }

  /** The same logical value held as {@code ndSbp} on {@code placement}. Collective. */
  public Tensor toGlobal(Placement placement, NdSbp ndSbp) {
    long[] out = {0};
    TesseraJNI.tensor_to_global(
        out, ptr(), this, Handle.ptr(placement), placement, Handle.ptr(ndSbp), ndSbp);
    return make(out);
  }

  // --- Ops (collective over the inputs' placement): shorthands for the generated
  // Ops class, which has every registered op. ---

  /** this + y, numpy broadcasting. */
  public Tensor add(Tensor y) {
    return Ops.add(this, y);
  }

  /** this - y, numpy broadcasting. */
  public Tensor sub(Tensor y) {
    return Ops.sub(this, y);
  }

  /** this * y (elementwise), numpy broadcasting. */
  public Tensor mul(Tensor y) {
    return Ops.mul(this, y);
  }

  /** this / y, numpy broadcasting. */
  public Tensor div(Tensor y) {
    return Ops.div(this, y);
  }

  /** Elementwise max(this, y), numpy broadcasting. */
  public Tensor maximum(Tensor y) {
    return Ops.maximum(this, y);
  }

  /** Elementwise min(this, y), numpy broadcasting. */
  public Tensor minimum(Tensor y) {
    return Ops.minimum(this, y);
  }

  /** Elementwise max(x, 0). */
  public Tensor relu() {
    return Ops.relu(this);
  }

  /** Elementwise GELU. */
  public Tensor gelu() {
    return Ops.gelu(this);
  }

  /** Elementwise 1 / (1 + e^-x). */
  public Tensor sigmoid() {
    return Ops.sigmoid(this);
  }

  /** Elementwise tanh. */
  public Tensor tanh() {
    return Ops.tanh(this);
  }

  /** Elementwise e^x. */
  public Tensor exp() {
    return Ops.exp(this);
  }

  /** Elementwise -x. */
  public Tensor neg() {
    return Ops.neg(this);
  }

  /** Elementwise |x|. */
  public Tensor abs() {
    return Ops.abs(this);
  }

  /** this^y elementwise, numpy broadcasting; floating types. */
  public Tensor pow(Tensor y) {
    return Ops.pow(this, y);
  }

  /** Elementwise square root. */
  public Tensor sqrt() {
    return Ops.sqrt(this);
  }

  /** this @ b. */
  public Tensor matmul(Tensor b) {
    return matmul(b, false, false);
  }

  /** op(this) @ op(b), op transposing the last two dims when asked. */
  public Tensor matmul(Tensor b, boolean transposeA, boolean transposeB) {
    return Ops.matmul(this, b, transposeA, transposeB);
  }

  /** Sum over {@code axes} (empty or null: every axis; negative from the end). */
  public Tensor reduceSum(long[] axes, boolean keepdims) {
    return Ops.reduceSum(this, axes, keepdims);
  }

  /** Mean over {@code axes}, as reduceSum. */
  public Tensor reduceMean(long[] axes, boolean keepdims) {
    return Ops.reduceMean(this, axes, keepdims);
  }

  /** Max over {@code axes}, as reduceSum. */
  public Tensor reduceMax(long[] axes, boolean keepdims) {
    return Ops.reduceMax(this, axes, keepdims);
  }

  /** Min over {@code axes}, as reduceSum. */
  public Tensor reduceMin(long[] axes, boolean keepdims) {
    return Ops.reduceMin(this, axes, keepdims);
  }

  /** Normalised exponentials along {@code axis}. */
  public Tensor softmax(long axis) {
    return Ops.softmax(this, axis);
  }

  /** Runs {@code call} (attributes and constraints, no input metas) on {@code inputs}. */
  public static Tensor[] apply(OpCall call, Tensor... inputs) {
    long[] in = new long[inputs.length];
    for (int i = 0; i < inputs.length; ++i) in[i] = Handle.ptr(inputs[i]);
    long[] handles = new long[16];
    TesseraJNI.op_call_apply(handles, Handle.ptr(call), call, in);
    java.lang.ref.Reference.reachabilityFence(inputs);
    int n = 0;
    while (n < handles.length && handles[n] != 0) ++n;
    Tensor[] outputs = new Tensor[n];
    for (int i = 0; i < n; ++i) outputs[i] = new Tensor(handles[i]);
    return outputs;
  }

  // --- Autograd (tessera/autograd.h; see Autograd for backward over several roots). ---

  /**
   * Makes this floating tensor a leaf that requires a gradient (a parameter), or not.
   * INVALID_ARGUMENT for an integer tensor or the output of a recorded op ({@link
   * #detach} it first). Not collective.
   */
  public void setRequiresGrad(boolean requiresGrad) {
    TesseraJNI.tensor_set_requires_grad(ptr(), this, requiresGrad ? 1 : 0);
  }

  /** Whether gradients flow into this tensor (a parameter, or a recorded op's output). */
  public boolean requiresGrad() {
    int[] out = {0};
    TesseraJNI.tensor_requires_grad(out, ptr(), this);
    return out[0] != 0;
  }

  /** True unless this tensor is the output of a recorded op. */
  public boolean isLeaf() {
    int[] out = {0};
    TesseraJNI.tensor_is_leaf(out, ptr(), this);
    return out[0] != 0;
  }

  /**
   * The accumulated gradient of this leaf (same shape, dtype and placement; the SBP that
   * backward produced), or null before any backward reached it or after {@link #zeroGrad}.
   */
  public Tensor grad() {
    long[] out = {0};
    TesseraJNI.tensor_grad(out, ptr(), this);
    return out[0] == 0 ? null : new Tensor(out[0]);
  }

  /** Drops the accumulated gradient: the next backward starts from zero. */
  public void zeroGrad() {
    TesseraJNI.tensor_zero_grad(ptr(), this);
  }

  /** The same data as a new tensor that requires no gradient and records nothing. */
  public Tensor detach() {
    long[] out = {0};
    TesseraJNI.tensor_detach(out, ptr(), this);
    return new Tensor(out[0]);
  }

  /**
   * Backpropagates from this one-element tensor (its gradient is one), adding into the
   * gradient of every leaf reached; the graph is freed. Collective.
   */
  public void backward() {
    Autograd.backward(new Tensor[] {this}, null, false);
  }

  /** Backpropagates from this tensor with {@code grad} (its shape and dtype) as its gradient. */
  public void backward(Tensor grad, boolean retainGraph) {
    Autograd.backward(new Tensor[] {this}, new Tensor[] {grad}, retainGraph);
  }
}
