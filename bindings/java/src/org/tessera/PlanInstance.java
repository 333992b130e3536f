package org.tessera;

import java.nio.ByteBuffer;

/**
 * A runnable instance of a {@link Plan}, owning its register memory (allocated once).
 * {@code run}, {@code output} and {@code outputs} are collective.
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class PlanInstance extends Handle {
  PlanInstance(long pointer) {
    super(pointer, TesseraJNI::delete_PlanInstance);
  }

  /** Destroys the instance and its register memory now; idempotent. */
  @Override
  public void close() {
    super.close();
  }

  /**
   * Runs the plan on {@code inputs} (the program's data inputs, in order; a different
   * nd-sbp is boxed in). The outputs stay here until the next run. Collective.
   */
  public PlanInstance run(Tensor... inputs) {
    long[] handles = new long[inputs == null ? 0 : inputs.length];
    for (int i = 0; i < handles.length; ++i) handles[i] = Handle.ptr(inputs[i]);
    TesseraJNI.plan_instance_run(ptr(), this, handles);
    java.lang.ref.Reference.reachabilityFence(inputs);
    return this;
  }

  /**
   * Runs the plan on this rank's pieces of the inputs: {@code locals[i]}, a direct
   * buffer in native byte order, holds input i's piece in its declared nd-sbp
   * (row-major); its capacity must be the piece's byte count exactly (null, or empty,
   * on a rank the input's placement lacks). Nothing is boxed or copied into tensors.
   * Collective, like {@link #run}.
   */
  public PlanInstance runLocal(ByteBuffer... locals) {
    TesseraJNI.plan_instance_run_local(ptr(), this, locals);
    return this;
  }

  /**
   * Direct copies of {@code locals}' arrays (float[], double[], int[], long[]; null
   * stays null); INVALID_ARGUMENT naming any other element.
   */
  private static ByteBuffer[] buffersOf(String function, Object[] locals) {
    if (locals == null) {
      return null;
    }
    ByteBuffer[] buffers = new ByteBuffer[locals.length];
    for (int i = 0; i < locals.length; ++i) {
      Object a = locals[i];
      if (a == null) {
        continue;
      } else if (a instanceof float[]) {
        buffers[i] = HostBuffers.bufferOf((float[]) a);
      } else if (a instanceof double[]) {
        buffers[i] = HostBuffers.bufferOf((double[]) a);
      } else if (a instanceof int[]) {
        buffers[i] = HostBuffers.bufferOf((int[]) a);
      } else if (a instanceof long[]) {
        buffers[i] = HostBuffers.bufferOf((long[]) a);
      } else {
        throw TesseraException.of(Status.INVALID_ARGUMENT, "PlanInstance." + function
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

  /** The same, every input f64. */
  public PlanInstance runLocal(double[]... locals) {
    return runLocal(buffersOf("runLocal", locals));
  }

  /** The same, every input i32. */
  public PlanInstance runLocal(int[]... locals) {
    return runLocal(buffersOf("runLocal", locals));
  }

  /** The same, every input i64. */
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
    for (int i = 0; i < handles.length; ++i) handles[i] = Handle.ptr(inputs[i]);
    TesseraJNI.plan_instance_push(ptr(), this, handles, timeoutSeconds);
    java.lang.ref.Reference.reachabilityFence(inputs);
    return this;
  }

  /**
   * Runs the plan on the oldest pushed set, waiting up to {@code timeoutSeconds}
   * (negative: forever) for one; the outputs then read as after {@link #run}.
   * DEADLINE_EXCEEDED when nothing was pushed in time. Collective.
   */
  public PlanInstance runPushed(double timeoutSeconds) {
    TesseraJNI.plan_instance_run_pushed(ptr(), this, timeoutSeconds);
    return this;
  }

  /**
   * Wakes every waiting push / runPushed with CANCELLED and makes later ones fail the
   * same way; the instance stays readable. Any thread.
   */
  public void closePipeline() {
    TesseraJNI.plan_instance_close(ptr(), this);
  }

  /** The number of the program's outputs. */
  public long numOutputs() {
    long[] out = {0};
    TesseraJNI.plan_instance_num_outputs(out, ptr(), this);
    return out[0];
  }

  private static long index(String function, long index) {
    return Handle.sizeIndex("PlanInstance." + function, "output index", index);
  }

  /** Output {@code index} of the last run as a new tensor (a copy). Collective. */
  public Tensor output(long index) {
    long[] out = {0};
    TesseraJNI.plan_instance_output(out, ptr(), this, index("output", index));
    return new Tensor(out[0]);
  }

  /** Every output of the last run as new tensors. Collective. */
  public Tensor[] outputs() {
    Tensor[] all = new Tensor[(int) numOutputs()];
    for (int i = 0; i < all.length; ++i) all[i] = output(i);
    return all;
  }

  private int dtypeCode(long index) {
    int[] out = {0};
    TesseraJNI.plan_instance_output_dtype(out, ptr(), this, index("outputDType", index));
    return out[0];
  }

  /** Output {@code index}'s dtype name, e.g. "f32". */
  public String outputDType(long index) {
    return DType.name(dtypeCode(index));
  }

  /** The shape of this rank's piece of output {@code index}; FAILED_PRECONDITION outside. */
  public long[] outputLocalShape(long index) {
    long[][] out = {null};
    TesseraJNI.plan_instance_output_local_shape(out, ptr(), this,
        index("outputLocalShape", index));
    return out[0];
  }

  /** The element count of this rank's piece of output {@code index} (0 outside). */
  public long outputLocalNumElements(long index) {
    long[] out = {0};
    TesseraJNI.plan_instance_output_local_num_elements(
        out, ptr(), this, index("outputLocalNumElements", index));
    return out[0];
  }

  /**
   * Copies this rank's piece of output {@code index} (row-major) into direct buffer
   * {@code out} from its start, allocating nothing. Local.
   */
  public void outputLocal(long index, ByteBuffer out) {
    TesseraJNI.plan_instance_output_local(out, ptr(), this, index("outputLocal", index));
  }

  private ByteBuffer local(String function, long index, int dtype) {
    int have = dtypeCode(index);
    if (have != dtype) {
      throw TesseraException.of(Status.INVALID_ARGUMENT, "PlanInstance." + function
          + ": output #" + index + " is " + DType.name(have) + ", not "
          + DType.name(dtype));
    }
    ByteBuffer b =
        HostBuffers.direct(outputLocalNumElements(index) * DType.size(dtype));
    outputLocal(index, b);
    return b;
  }

  /** A copy of this rank's piece of f32 output {@code index}; likewise for the other types. */
  public float[] outputLocalFloatArray(long index) {
    return HostBuffers.toFloats(local("outputLocalFloatArray", index, DType.F32));
  }

  /** The same for an f64 output. */
  public double[] outputLocalDoubleArray(long index) {
    return HostBuffers.toDoubles(local("outputLocalDoubleArray", index, DType.F64));
  }

  /** The same for an i32 output. */
  public int[] outputLocalIntArray(long index) {
    return HostBuffers.toInts(local("outputLocalIntArray", index, DType.I32));
  }

  /** The same for an i64 output. */
  public long[] outputLocalLongArray(long index) {
    return HostBuffers.toLongs(local("outputLocalLongArray", index, DType.I64));
  }

  /** One memory case's register memory: its packed block, the lower bound, no reuse. */
  public static final class MemCase {
    /** "cpu", "cuda:0". */
    public final String name;
    /** The packed block's bytes. */
    public final long blockBytes;
    /** The most bytes live at one step: no packing does better. */
    public final long lowerBound;
    /** The bytes without any reuse. */
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
    /** Registers (blobs) the plan allocated. */
    public final long registers;
    /** Kernel and boxing steps. */
    public final long steps;
    /** Of the steps, explicit boxing. */
    public final long boxingSteps;
    /** Runs so far. */
    public final long runs;
    /** Calls to the host caching allocator during the last run: 0 once warm. */
    public final long allocatorCallsLastRun;
    /** Heap allocations on the calling thread during the last run; -1: not counted. */
    public final long heapAllocationsLastRun;
    /**
     * CUDA graphs captured: one per input slot and stretch of kernels between boxing steps
     * (cuda placements; 0 elsewhere).
     */
    public final long cudaGraphs;
    /** Launches of those graphs. */
    public final long cudaGraphLaunches;
    /** Register memory per memory case. */
    public final MemCase[] memCases;

    Stats(long registers, long steps, long boxingSteps, long runs, long allocatorCallsLastRun,
        long heapAllocationsLastRun, long cudaGraphs, long cudaGraphLaunches,
        MemCase[] memCases) {
      this.registers = registers;
      this.steps = steps;
      this.boxingSteps = boxingSteps;
      this.runs = runs;
      this.allocatorCallsLastRun = allocatorCallsLastRun;
      this.heapAllocationsLastRun = heapAllocationsLastRun;
      this.cudaGraphs = cudaGraphs;
      this.cudaGraphLaunches = cudaGraphLaunches;
      this.memCases = memCases;
    }

    @Override
    public String toString() {
      return registers + " registers, " + steps + " steps (" + boxingSteps + " boxing), " + runs
          + " runs, last run: " + allocatorCallsLastRun + " allocator calls, "
          + heapAllocationsLastRun + " heap allocations, " + cudaGraphs + " CUDA graphs launched "
          + cudaGraphLaunches + " times; " + java.util.Arrays.toString(memCases);
    }
  }

  /** The instance's counters and its memory cases. Local. */
  public Stats stats() {
    long[] registers = {0}, steps = {0}, boxing = {0}, runs = {0}, calls = {0}, heap = {0};
    long[] graphs = {0}, launches = {0};
    TesseraJNI.plan_instance_get_stats(
        registers, steps, boxing, runs, calls, heap, graphs, launches, ptr(), this);
    long[] n = {0};
    TesseraJNI.plan_instance_num_mem_cases(n, ptr(), this);
    MemCase[] cases = new MemCase[(int) n[0]];
    for (int i = 0; i < cases.length; ++i) {
      long[] block = {0}, lower = {0}, noReuse = {0};
      TesseraJNI.plan_instance_mem_case_bytes(block, lower, noReuse, ptr(), this, i);
      cases[i] = new MemCase(
          TesseraJNI.plan_instance_mem_case_name(ptr(), this, i), block[0], lower[0], noReuse[0]);
    }
    return new Stats(registers[0], steps[0], boxing[0], runs[0], calls[0], heap[0], graphs[0],
        launches[0], cases);
  }

  /** "PlanInstance(1 outputs, 3 runs)"; "PlanInstance(closed)" once closed. */
  @Override
  public String toString() {
    if (isClosed()) {
      return "PlanInstance(closed)";
    }
    return "PlanInstance(" + numOutputs() + " outputs, " + stats().runs + " runs)";
  }
}
