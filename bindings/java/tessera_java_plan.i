/* Plan mode in Java (part of the Java section of bindings/tessera.i): the methods of
 * Program, Plan and PlanInstance. Capture, which is no C handle, is a plain class
 * (src/org/tessera/Capture.java). Building and compiling are local; run, output and
 * outputs are collective, like the ops they stand for. */

%typemap(javacode) struct tess_program %{
  /** An empty program. Values (inputs, variables, op outputs) are numbered 0, 1, ... */
  public static Program create() {
    Program[] out = {null};
    Tessera.program_create(out);
    return out[0];
  }

  /** Destroys the program now; idempotent. Plans compiled from it keep their copy. */
  @Override
  public void close() {
    delete();
  }

  /**
   * A data input (fed at every run) of {@code shape}, {@code dtype} ("f32", ...) and
   * {@code placement}, held as {@code ndSbp} (null: S(0) on every placement axis, B for a
   * 0-d input). Returns its value id.
   */
  public long addInput(String name, long[] shape, String dtype, Placement placement,
      NdSbp ndSbp) {
    long[] out = {0};
    Tessera.program_add_input(out, this, name, shape, Tessera.dtypeParse(dtype), placement,
        ndSbp);
    return out[0];
  }

  /** A variable: the program keeps {@code value} and every run reads it. Returns its id. */
  public long addVariable(String name, Tensor value) {
    long[] out = {0};
    Tessera.program_add_variable(out, this, name, value);
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
    Tessera.program_add_op(first, count, this, call, valueIds);
    long[] ids = new long[(int) count[0]];
    for (int i = 0; i < ids.length; ++i) ids[i] = first[0] + i;
    return ids;
  }

  /** Makes value {@code valueId} the program's next output. */
  public void markOutput(long valueId) {
    Tessera.program_mark_output(this, valueId);
  }

  /** A program's counts of values, ops, data inputs and outputs. */
  public static final class Sizes {
    public final long values;
    public final long ops;
    public final long inputs;
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

  public Sizes sizes() {
    long[] values = {0}, ops = {0}, inputs = {0}, outputs = {0};
    Tessera.program_sizes(values, ops, inputs, outputs, this);
    return new Sizes(values[0], ops[0], inputs[0], outputs[0]);
  }

  /** The graph: one line per value and op ("%3 = matmul(%0, %1) {} -> ..."), then the outputs. */
  @Override
  public String toString() {
    return Tessera.program_string(this);
  }

  /** Plan.compile(this, inputRegisterNum). */
  public Plan compile(int inputRegisterNum) {
    return Plan.compile(this, inputRegisterNum);
  }
%}

%typemap(javacode) struct tess_plan %{
  /**
   * Compiles {@code program} for this rank: its steps (kernels and explicit boxing) and
   * its register memory, packed with reuse. {@code inputRegisterNum}: copies of each
   * data input's register (0 means 1; tess_plan_compile gives the range). Local.
   */
  public static Plan compile(Program program, int inputRegisterNum) {
    Plan[] out = {null};
    Tessera.plan_compile(out, program, inputRegisterNum);
    return out[0];
  }

  /** Destroys the plan now; idempotent. Its instances keep what they need. */
  @Override
  public void close() {
    delete();
  }

  /** The program, the steps ("3: box %1 S(1) -> B into r4") and the memory table. */
  @Override
  public String toString() {
    return Tessera.plan_string(this);
  }

  /** A runnable instance: its register memory is allocated once, here. Local. */
  public PlanInstance instantiate() {
    PlanInstance[] out = {null};
    Tessera.plan_instantiate(out, this);
    return out[0];
  }
%}

%typemap(javacode) struct tess_plan_instance %{
  /** Destroys the instance and its register memory now; idempotent. */
  @Override
  public void close() {
    delete();
  }

  /**
   * Runs the plan on {@code inputs} (the program's data inputs, in order; a different
   * nd-sbp is boxed in). The outputs stay here until the next run. Collective.
   */
  public PlanInstance run(Tensor... inputs) {
    long[] handles = new long[inputs == null ? 0 : inputs.length];
    for (int i = 0; i < handles.length; ++i) handles[i] = Tensor.getCPtr(inputs[i]);
    Tessera.plan_run(this, handles);
    return this;
  }

  /**
   * Runs the plan on this rank's pieces of the inputs: {@code locals[i]}, a direct
   * buffer in native byte order, holds input i's piece in its declared nd-sbp
   * (row-major); its capacity must be the piece's byte count exactly (null, or empty,
   * on a rank the input's placement lacks). Nothing is boxed or copied into tensors.
   * Collective, like {@link #run}.
   */
  public PlanInstance runLocal(java.nio.ByteBuffer... locals) {
    Tessera.plan_run_local(this, locals);
    return this;
  }

  /**
   * Direct copies of {@code locals}' arrays (float[], double[], int[], long[]; null
   * stays null); INVALID_ARGUMENT naming any other element.
   */
  private static java.nio.ByteBuffer[] buffersOf(String function, Object[] locals) {
    if (locals == null) {
      return null;
    }
    java.nio.ByteBuffer[] buffers = new java.nio.ByteBuffer[locals.length];
    for (int i = 0; i < locals.length; ++i) {
      Object a = locals[i];
      if (a == null) {
        continue;
      } else if (a instanceof float[]) {
        buffers[i] = Tensor.bufferOf((float[]) a);
      } else if (a instanceof double[]) {
        buffers[i] = Tensor.bufferOf((double[]) a);
      } else if (a instanceof int[]) {
        buffers[i] = Tensor.bufferOf((int[]) a);
      } else if (a instanceof long[]) {
        buffers[i] = Tensor.bufferOf((long[]) a);
      } else {
        throw new TesseraException(Tessera.INVALID_ARGUMENT, "PlanInstance." + function
            + ": locals[" + i + "] is a " + a.getClass().getSimpleName()
            + ", not a float[], double[], int[] or long[]");
      }
    }
    return buffers;
  }

  /** The same from arrays (copied into direct buffers), every input f32; likewise below. */
  public PlanInstance runLocal(float[]... locals) {
    return runLocal(buffersOf("runLocal", locals));
  }

  public PlanInstance runLocal(double[]... locals) {
    return runLocal(buffersOf("runLocal", locals));
  }

  public PlanInstance runLocal(int[]... locals) {
    return runLocal(buffersOf("runLocal", locals));
  }

  public PlanInstance runLocal(long[]... locals) {
    return runLocal(buffersOf("runLocal", locals));
  }

  /**
   * The same for inputs of several dtypes: each of {@code locals} a float[], double[],
   * int[] or long[] (the input's dtype) or null.
   */
  public PlanInstance runLocalMixed(Object... locals) {
    return runLocal(buffersOf("runLocalMixed", locals));
  }

  /**
   * Pipelining (a plan compiled with inputRegisterNum >= 2): copies one input set into
   * the next free slot, waiting up to {@code timeoutSeconds} (negative: forever; 0: only
   * try) while every slot is full. One pusher thread may call this while another runs
   * {@link #runPushed}. An input in another nd-sbp is boxed (collective), which first
   * waits until every earlier set has run. DEADLINE_EXCEEDED when the wait times out,
   * CANCELLED after {@link #closePipeline}.
   */
  public PlanInstance push(double timeoutSeconds, Tensor... inputs) {
    long[] handles = new long[inputs == null ? 0 : inputs.length];
    for (int i = 0; i < handles.length; ++i) handles[i] = Tensor.getCPtr(inputs[i]);
    Tessera.plan_push(this, handles, timeoutSeconds);
    return this;
  }

  /**
   * Runs the plan on the oldest pushed set, waiting up to {@code timeoutSeconds}
   * (negative: forever) for one; the outputs then read as after {@link #run}.
   * DEADLINE_EXCEEDED when nothing was pushed in time. Collective.
   */
  public PlanInstance runPushed(double timeoutSeconds) {
    Tessera.plan_run_pushed(this, timeoutSeconds);
    return this;
  }

  /**
   * Wakes every waiting push / runPushed with CANCELLED and makes later ones fail the
   * same way; the instance stays readable. Any thread.
   */
  public void closePipeline() {
    Tessera.plan_close(this);
  }

  public long numOutputs() {
    long[] out = {0};
    Tessera.plan_num_outputs(out, this);
    return out[0];
  }

  /** size_t would turn a negative index into a huge one; name the one the caller gave. */
  private static long index(String function, long index) {
    if (index < 0) {
      throw new TesseraException(Tessera.OUT_OF_RANGE,
          "PlanInstance." + function + ": output index " + index + " is negative");
    }
    return index;
  }

  /** Output {@code index} of the last run as a new tensor (a copy). Collective. */
  public Tensor output(long index) {
    Tensor[] out = {null};
    Tessera.plan_output(out, this, index("output", index));
    return out[0];
  }

  /** Every output of the last run as new tensors. Collective. */
  public Tensor[] outputs() {
    Tensor[] all = new Tensor[(int) numOutputs()];
    for (int i = 0; i < all.length; ++i) all[i] = output(i);
    return all;
  }

  private int dtypeCode(long index) {
    int[] out = {0};
    Tessera.plan_output_dtype(out, this, index("outputDType", index));
    return out[0];
  }

  /** Output {@code index}'s dtype name, e.g. "f32". */
  public String outputDType(long index) {
    return Tessera.dtypeName(dtypeCode(index));
  }

  /** The shape of this rank's piece of output {@code index}; FAILED_PRECONDITION outside. */
  public long[] outputLocalShape(long index) {
    long[] ndim = {0};
    Tessera.plan_output_local_ndim(ndim, this, index("outputLocalShape", index));
    long[] dims = new long[(int) ndim[0]];
    for (int d = 0; d < dims.length; ++d) {
      long[] out = {0};
      Tessera.plan_output_local_dim(out, this, index, d);
      dims[d] = out[0];
    }
    return dims;
  }

  /** The element count of this rank's piece of output {@code index} (0 outside). */
  public long outputLocalNumElements(long index) {
    long[] out = {0};
    Tessera.plan_output_local_num_elements(out, this, index("outputLocalNumElements", index));
    return out[0];
  }

  /**
   * Copies this rank's piece of output {@code index} (row-major) into direct buffer
   * {@code out} from its start, allocating nothing. Local.
   */
  public void outputLocal(long index, java.nio.ByteBuffer out) {
    Tessera.plan_output_local(out, this, index("outputLocal", index));
  }

  private java.nio.ByteBuffer local(String function, long index, int dtype) {
    int have = dtypeCode(index);
    if (have != dtype) {
      throw new TesseraException(Tessera.INVALID_ARGUMENT, "PlanInstance." + function
          + ": output #" + index + " is " + Tessera.dtypeName(have) + ", not "
          + Tessera.dtypeName(dtype));
    }
    java.nio.ByteBuffer b =
        Tensor.direct(outputLocalNumElements(index) * Tensor.dtypeSize(dtype));
    outputLocal(index, b);
    return b;
  }

  /** A copy of this rank's piece of f32 output {@code index}; likewise for the other types. */
  public float[] outputLocalFloatArray(long index) {
    java.nio.ByteBuffer b = local("outputLocalFloatArray", index, Tessera.DTYPE_F32);
    float[] a = new float[b.capacity() / 4];
    b.asFloatBuffer().get(a);
    return a;
  }

  public double[] outputLocalDoubleArray(long index) {
    java.nio.ByteBuffer b = local("outputLocalDoubleArray", index, Tessera.DTYPE_F64);
    double[] a = new double[b.capacity() / 8];
    b.asDoubleBuffer().get(a);
    return a;
  }

  public int[] outputLocalIntArray(long index) {
    java.nio.ByteBuffer b = local("outputLocalIntArray", index, Tessera.DTYPE_I32);
    int[] a = new int[b.capacity() / 4];
    b.asIntBuffer().get(a);
    return a;
  }

  public long[] outputLocalLongArray(long index) {
    java.nio.ByteBuffer b = local("outputLocalLongArray", index, Tessera.DTYPE_I64);
    long[] a = new long[b.capacity() / 8];
    b.asLongBuffer().get(a);
    return a;
  }

  /** One memory case's register memory: its packed block, the lower bound, no reuse. */
  public static final class MemCase {
    /** "cpu", "cuda:0". */
    public final String name;
    public final long blockBytes;
    /** The most bytes live at one step: no packing does better. */
    public final long lowerBound;
    public final long noReuseBytes;

    MemCase(String name, long blockBytes, long lowerBound, long noReuseBytes) {
      this.name = name;
      this.blockBytes = blockBytes;
      this.lowerBound = lowerBound;
      this.noReuseBytes = noReuseBytes;
    }

    @Override
    public String toString() {
      return name + ": block " + blockBytes + " B, lower bound " + lowerBound + " B, no reuse "
          + noReuseBytes + " B";
    }
  }

  /** The instance's counters. */
  public static final class Stats {
    public final long registers;
    /** Kernel and boxing steps. */
    public final long steps;
    public final long boxingSteps;
    public final long runs;
    /** Calls to the host caching allocator during the last run: 0 once warm. */
    public final long allocatorCallsLastRun;
    /** Heap allocations on the calling thread during the last run; -1: not counted. */
    public final long heapAllocationsLastRun;
    public final MemCase[] memCases;

    Stats(long registers, long steps, long boxingSteps, long runs, long allocatorCallsLastRun,
        long heapAllocationsLastRun, MemCase[] memCases) {
      this.registers = registers;
      this.steps = steps;
      this.boxingSteps = boxingSteps;
      this.runs = runs;
      this.allocatorCallsLastRun = allocatorCallsLastRun;
      this.heapAllocationsLastRun = heapAllocationsLastRun;
      this.memCases = memCases;
    }

    @Override
    public String toString() {
      return registers + " registers, " + steps + " steps (" + boxingSteps + " boxing), " + runs
          + " runs, last run: " + allocatorCallsLastRun + " allocator calls, "
          + heapAllocationsLastRun + " heap allocations; " + java.util.Arrays.toString(memCases);
    }
  }

  public Stats stats() {
    long[] registers = {0}, steps = {0}, boxing = {0}, runs = {0}, calls = {0}, heap = {0};
    Tessera.plan_stats(registers, steps, boxing, runs, this);
    Tessera.plan_last_run_allocations(calls, heap, this);
    long[] n = {0};
    Tessera.plan_num_mem_cases(n, this);
    MemCase[] cases = new MemCase[(int) n[0]];
    for (int i = 0; i < cases.length; ++i) {
      long[] block = {0}, lower = {0}, noReuse = {0};
      Tessera.plan_mem_case_bytes(block, lower, noReuse, this, i);
      cases[i] = new MemCase(Tessera.plan_mem_case_name(this, i), block[0], lower[0], noReuse[0]);
    }
    return new Stats(registers[0], steps[0], boxing[0], runs[0], calls[0], heap[0], cases);
  }

  /** "PlanInstance(1 outputs, 3 runs)"; "PlanInstance(closed)" once closed. */
  @Override
  public String toString() {
    if (swigCPtr == 0) {
      return "PlanInstance(closed)";
    }
    long[] registers = {0}, steps = {0}, boxing = {0}, runs = {0};
    Tessera.plan_stats(registers, steps, boxing, runs, this);
    return "PlanInstance(" + numOutputs() + " outputs, " + runs[0] + " runs)";
  }
%}
