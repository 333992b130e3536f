package org.tessera;

import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The runtime and the functions that belong to no handle: versions, status names, the
 * world, dtypes, the inference cache, boxing and collectives on host arrays.
 *
 * <p>Loading this class loads {@code libtessera_jni.so} and nothing more: the runtime
 * (and MPI) starts on the first call that needs it (a tensor, a collective, the
 * world's rank or size, compiling a plan), or at an explicit {@link #init()}. Call
 * {@link #shutdown()} before exiting a program started by {@code mpirun}: mpirun fails
 * a job whose ranks skip {@code MPI_Finalize}.
 *
 * <p>Failures throw a {@link TesseraException} subclass carrying the C API's code and
 * message.
 */
public final class Tessera {
  private Tessera() {}

  // Version of the bindings' header (TESS_VERSION_*).
  /** TESS_VERSION_MAJOR from tessera.h. */
  public static final int VERSION_MAJOR = TesseraJNI.VERSION_MAJOR_get();
  /** TESS_VERSION_MINOR from tessera.h. */
  public static final int VERSION_MINOR = TesseraJNI.VERSION_MINOR_get();
  /** TESS_VERSION_PATCH from tessera.h. */
  public static final int VERSION_PATCH = TesseraJNI.VERSION_PATCH_get();
  /** TESS_VERSION_NUMBER from tessera.h. */
  public static final int VERSION_NUMBER = TesseraJNI.VERSION_NUMBER_get();

  // Status codes (tess_status): TesseraException.getCode() and the subclasses.
  /** TESS_OK from tessera.h. */
  public static final int OK = TesseraJNI.OK_get();
  /** TESS_CANCELLED from tessera.h. */
  public static final int CANCELLED = TesseraJNI.CANCELLED_get();
  /** TESS_UNKNOWN from tessera.h. */
  public static final int UNKNOWN = TesseraJNI.UNKNOWN_get();
  /** TESS_INVALID_ARGUMENT from tessera.h. */
  public static final int INVALID_ARGUMENT = TesseraJNI.INVALID_ARGUMENT_get();
  /** TESS_DEADLINE_EXCEEDED from tessera.h. */
  public static final int DEADLINE_EXCEEDED = TesseraJNI.DEADLINE_EXCEEDED_get();
  /** TESS_NOT_FOUND from tessera.h. */
  public static final int NOT_FOUND = TesseraJNI.NOT_FOUND_get();
  /** TESS_ALREADY_EXISTS from tessera.h. */
  public static final int ALREADY_EXISTS = TesseraJNI.ALREADY_EXISTS_get();
  /** TESS_PERMISSION_DENIED from tessera.h. */
  public static final int PERMISSION_DENIED = TesseraJNI.PERMISSION_DENIED_get();
  /** TESS_RESOURCE_EXHAUSTED from tessera.h. */
  public static final int RESOURCE_EXHAUSTED = TesseraJNI.RESOURCE_EXHAUSTED_get();
  /** TESS_FAILED_PRECONDITION from tessera.h. */
  public static final int FAILED_PRECONDITION = TesseraJNI.FAILED_PRECONDITION_get();
  /** TESS_ABORTED from tessera.h. */
  public static final int ABORTED = TesseraJNI.ABORTED_get();
  /** TESS_OUT_OF_RANGE from tessera.h. */
  public static final int OUT_OF_RANGE = TesseraJNI.OUT_OF_RANGE_get();
  /** TESS_UNIMPLEMENTED from tessera.h. */
  public static final int UNIMPLEMENTED = TesseraJNI.UNIMPLEMENTED_get();
  /** TESS_INTERNAL from tessera.h. */
  public static final int INTERNAL = TesseraJNI.INTERNAL_get();
  /** TESS_UNAVAILABLE from tessera.h. */
  public static final int UNAVAILABLE = TesseraJNI.UNAVAILABLE_get();
  /** TESS_DATA_LOSS from tessera.h. */
  public static final int DATA_LOSS = TesseraJNI.DATA_LOSS_get();

  // Device types of a placement.
  /** TESS_DEVICE_CPU from tessera.h. */
  public static final int DEVICE_CPU = TesseraJNI.DEVICE_CPU_get();
  /** TESS_DEVICE_CUDA from tessera.h. */
  public static final int DEVICE_CUDA = TesseraJNI.DEVICE_CUDA_get();

  // SBP kinds of one placement axis.
  /** TESS_SBP_SPLIT from tessera.h. */
  public static final int SBP_SPLIT = TesseraJNI.SBP_SPLIT_get();
  /** TESS_SBP_BROADCAST from tessera.h. */
  public static final int SBP_BROADCAST = TesseraJNI.SBP_BROADCAST_get();
  /** TESS_SBP_PARTIAL_SUM from tessera.h. */
  public static final int SBP_PARTIAL_SUM = TesseraJNI.SBP_PARTIAL_SUM_get();
  /** TESS_SBP_PARTIAL_MAX from tessera.h. */
  public static final int SBP_PARTIAL_MAX = TesseraJNI.SBP_PARTIAL_MAX_get();
  /** TESS_SBP_PARTIAL_MIN from tessera.h. */
  public static final int SBP_PARTIAL_MIN = TesseraJNI.SBP_PARTIAL_MIN_get();

  // Element types (tess_dtype).
  /** TESS_DTYPE_F32 from tessera.h. */
  public static final int DTYPE_F32 = TesseraJNI.DTYPE_F32_get();
  /** TESS_DTYPE_F64 from tessera.h. */
  public static final int DTYPE_F64 = TesseraJNI.DTYPE_F64_get();
  /** TESS_DTYPE_I32 from tessera.h. */
  public static final int DTYPE_I32 = TesseraJNI.DTYPE_I32_get();
  /** TESS_DTYPE_I64 from tessera.h. */
  public static final int DTYPE_I64 = TesseraJNI.DTYPE_I64_get();
  /** TESS_DTYPE_F16 from tessera.h. */
  public static final int DTYPE_F16 = TesseraJNI.DTYPE_F16_get();
  /** TESS_DTYPE_BF16 from tessera.h. */
  public static final int DTYPE_BF16 = TesseraJNI.DTYPE_BF16_get();

  // Reduce ops of the collectives.
  /** TESS_REDUCE_SUM from tessera.h. */
  public static final int REDUCE_SUM = TesseraJNI.REDUCE_SUM_get();
  /** TESS_REDUCE_MAX from tessera.h. */
  public static final int REDUCE_MAX = TesseraJNI.REDUCE_MAX_get();
  /** TESS_REDUCE_MIN from tessera.h. */
  public static final int REDUCE_MIN = TesseraJNI.REDUCE_MIN_get();

  // All-reduce algorithms.
  /** TESS_ALLREDUCE_FLAT from tessera.h. */
  public static final int ALLREDUCE_FLAT = TesseraJNI.ALLREDUCE_FLAT_get();
  /** TESS_ALLREDUCE_AUTO from tessera.h. */
  public static final int ALLREDUCE_AUTO = TesseraJNI.ALLREDUCE_AUTO_get();
  /** TESS_ALLREDUCE_HIERARCHICAL from tessera.h. */
  public static final int ALLREDUCE_HIERARCHICAL = TesseraJNI.ALLREDUCE_HIERARCHICAL_get();

  static {
    if (TesseraJNI.version_number() != VERSION_NUMBER) {
      throw new IllegalStateException("tessera: bindings built for " + VERSION_NUMBER
          + " but the library is " + TesseraJNI.version());
    }
  }

  // --- Runtime. ---

  /**
   * Guards the runtime's start and stop against other calls that may run on another
   * thread without the caller's say: the Cleaner's destroys (tess_runtime_init and
   * tess_runtime_finalize must not race with any call).
   */
  static final ReentrantReadWriteLock LIFECYCLE = new ReentrantReadWriteLock();

  private static volatile boolean started = false;

  /**
   * Starts the runtime unless it has started: initialises MPI (unless the host program
   * did) or, without mpirun, a world of one rank. Every call that needs the runtime
   * calls this first, so calling it is optional. FAILED_PRECONDITION after
   * {@link #shutdown()} (MPI cannot restart).
   */
  public static void init() {
    if (started) {
      return;
    }
    synchronized (Tessera.class) {
      if (started) {
        return;
      }
      LIFECYCLE.writeLock().lock();
      try {
        TesseraJNI.runtime_init();
      } finally {
        LIFECYCLE.writeLock().unlock();
      }
      started = true;
    }
  }

  /**
   * Starts the runtime with {@code options} (tess_runtime_init_with_options): as
   * {@link #init()}, the options applied before MPI starts. Called again once started,
   * the library still checks the options and applies the timeout. INVALID_ARGUMENT,
   * naming the field, for a bad value (a cudaDevice below -1, a NaN timeout);
   * UNIMPLEMENTED for a cudaDevice in a build without CUDA; nothing starts then.
   *
   * @param options the options; see {@link InitOptions#builder()}
   */
  public static void init(InitOptions options) {
    if (options == null) {
      throw new InvalidArgumentException("Tessera.init: options is null");
    }
    synchronized (Tessera.class) {
      LIFECYCLE.writeLock().lock();
      try {
        TesseraJNI.runtime_init_with_options(options.collectiveTimeoutSeconds(),
            options.cudaDevice());
      } finally {
        LIFECYCLE.writeLock().unlock();
      }
      started = true;
    }
  }

  /**
   * A host caching allocator's counters now. Local; needs no runtime.
   *
   * @param allocator {@link Allocator#HOST} or {@link Allocator#HOST_THREAD} (the
   *     calling thread's)
   * @return an immutable snapshot
   */
  public static AllocatorStats allocatorStats(Allocator allocator) {
    return AllocatorStats.read(allocator);
  }

  /**
   * Whether this process started the runtime through the binding ({@link #init()} or a
   * call that needs it), also once it has shut down.
   *
   * @return true once started
   */
  public static boolean isInitialized() {
    return started;
  }

  /**
   * Stops the runtime and finalises MPI if Tessera initialised it; a no-op when never
   * started. Call it once, from the thread that uses Tessera, when every collective
   * has finished.
   */
  public static void shutdown() {
    synchronized (Tessera.class) {
      LIFECYCLE.writeLock().lock();
      try {
        TesseraJNI.shutdown();
      } finally {
        LIFECYCLE.writeLock().unlock();
      }
    }
  }

  /**
   * The loaded library's version.
   *
   * @return "MAJOR.MINOR.PATCH"
   */
  public static String version() {
    return TesseraJNI.version();
  }

  /**
   * The loaded library's version number.
   *
   * @return MAJOR * 10000 + MINOR * 100 + PATCH
   */
  public static int versionNumber() {
    return TesseraJNI.version_number();
  }

  /**
   * The name of a status code.
   *
   * @param code a status code
   * @return "INVALID_ARGUMENT" etc.; "UNKNOWN_CODE" for other values
   */
  public static String statusString(int code) {
    return TesseraJNI.status_string(code);
  }

  /**
   * This process's rank in the world (starts the runtime).
   *
   * @return the rank, 0 without mpirun
   */
  public static int worldRank() {
    init();
    int[] out = {0};
    TesseraJNI.runtime_world_rank(out);
    return out[0];
  }

  /**
   * The number of ranks in the world (starts the runtime).
   *
   * @return the world size, 1 without mpirun
   */
  public static int worldSize() {
    init();
    int[] out = {0};
    TesseraJNI.runtime_world_size(out);
    return out[0];
  }

  /** What CUDA this process has: see {@link #cudaInfo}. */
  public static final class CudaInfo {
    /** The library was built with CUDA (--config=cuda). */
    public final boolean builtWithCuda;
    /** CUDA devices visible to this process (0 without a CUDA build or a GPU). */
    public final int deviceCount;

    CudaInfo(boolean builtWithCuda, int deviceCount) {
      this.builtWithCuda = builtWithCuda;
      this.deviceCount = deviceCount;
    }

    @Override
    public String toString() {
      return "CudaInfo(builtWithCuda=" + builtWithCuda + ", deviceCount=" + deviceCount + ")";
    }
  }

  /**
   * Whether cuda placements can hold tensors here: without a CUDA build their tensor
   * calls throw UNIMPLEMENTED, with one but no device UNAVAILABLE. Local; needs no
   * runtime.
   *
   * @return the build's and the machine's CUDA
   */
  public static CudaInfo cudaInfo() {
    int[] built = {0};
    int[] count = {0};
    TesseraJNI.runtime_cuda_info(built, count);
    return new CudaInfo(built[0] != 0, count[0]);
  }

  /**
   * Parses a dtype name.
   *
   * @param text "f32", "f64", "i32", "i64", "f16" or "bf16"
   * @return the DTYPE_* value
   */
  public static int dtypeParse(String text) {
    int[] out = {0};
    TesseraJNI.dtype_parse(out, text);
    return out[0];
  }

  /**
   * The name of a dtype.
   *
   * @param dtype a DTYPE_* value
   * @return its name; "" for an unknown one
   */
  public static String dtypeName(int dtype) {
    return TesseraJNI.dtype_name(dtype);
  }

  /**
   * The registered ops.
   *
   * @return their names, sorted
   */
  public static String[] opNames() {
    String[] names = new String[(int) TesseraJNI.op_count()];
    for (int i = 0; i < names.length; ++i) names[i] = TesseraJNI.op_name(i);
    return names;
  }

  /** The calling thread's inference-cache counters. */
  public static final class InferCacheStats {
    /** Lookups that found an entry. */
    public final long hits;
    /** Lookups that did not. */
    public final long misses;
    /** Entries dropped for room. */
    public final long evictions;
    /** Entries now. */
    public final long size;
    /** The most entries kept. */
    public final long capacity;

    InferCacheStats(long hits, long misses, long evictions, long size, long capacity) {
      this.hits = hits;
      this.misses = misses;
      this.evictions = evictions;
      this.size = size;
      this.capacity = capacity;
    }
  }

  /**
   * The calling thread's inference-cache statistics (the cache is per thread).
   *
   * @return the counters
   */
  public static InferCacheStats inferCacheStats() {
    long[] hits = {0}, misses = {0}, evictions = {0}, size = {0}, capacity = {0};
    TesseraJNI.infer_cache_get_stats(hits, misses, evictions, size, capacity);
    return new InferCacheStats(hits[0], misses[0], evictions[0], size[0], capacity[0]);
  }

  /** Drops every entry of this thread's inference cache and zeroes its counters. */
  public static void inferCacheClear() {
    TesseraJNI.infer_cache_clear();
  }

  /**
   * Drops every entry (counters kept) and sets the capacity.
   *
   * @param capacity the most entries, at least 1
   */
  public static void inferCacheSetCapacity(long capacity) {
    TesseraJNI.infer_cache_set_capacity(capacity);
  }

  /**
   * The full inference record of this thread's last op on tensors (also one that
   * failed); FAILED_PRECONDITION before the thread's first op.
   *
   * @return a new Explanation
   */
  public static Explanation explainLast() {
    long[] out = {0};
    TesseraJNI.explanation_last(out);
    return new Explanation(out[0]);
  }

  /**
   * The layout {@code rank} holds of a tensor of {@code shape}; see
   * {@link Layout#create}.
   *
   * @param placement the ranks
   * @param ndSbp how the tensor maps onto them
   * @param shape the logical shape
   * @param rank a rank of the placement
   * @return a new Layout
   */
  public static Layout layout(Placement placement, NdSbp ndSbp, long[] shape, int rank) {
    return Layout.create(placement, ndSbp, shape, rank);
  }

  // --- Boxing and collectives on host buffers. ---
  // Collective: every rank concerned makes the same calls in the same order. Arrays are
  // copied into direct buffers and back; the ByteBuffer forms take direct buffers in
  // native byte order and copy nothing.

  /**
   * Moves this rank's piece of the logical tensor of {@code shape} and {@code dtype}
   * held as {@code src} on {@code srcPlacement} (read from {@code inLocal}) to its piece
   * held as {@code dst} on {@code dstPlacement} (written to {@code outLocal}). Each
   * buffer's capacity must be exactly this rank's piece's byte count (0, or null, where
   * the placement lacks this rank).
   *
   * @param outLocal the destination piece, a direct buffer (or null)
   * @param inLocal the source piece, a direct buffer (or null)
   * @param shape the logical shape
   * @param dtype "f32", "f64", "i32" or "i64"
   * @param srcPlacement where the source lives
   * @param src how the source maps onto it
   * @param dstPlacement where the destination lives
   * @param dst how the destination maps onto it
   */
  public static void box(ByteBuffer outLocal, ByteBuffer inLocal, long[] shape, String dtype,
      Placement srcPlacement, NdSbp src, Placement dstPlacement, NdSbp dst) {
    box(outLocal, inLocal, shape, dtypeParse(dtype), srcPlacement, src, dstPlacement, dst);
  }

  private static void box(ByteBuffer outLocal, ByteBuffer inLocal, long[] shape, int dtype,
      Placement srcPlacement, NdSbp src, Placement dstPlacement, NdSbp dst) {
    init();
    TesseraJNI.boxing_run(outLocal, inLocal, shape, dtype, Handle.ptr(srcPlacement), srcPlacement,
        Handle.ptr(src), src, Handle.ptr(dstPlacement), dstPlacement, Handle.ptr(dst), dst);
  }

  /**
   * {@link #box(ByteBuffer, ByteBuffer, long[], String, Placement, NdSbp, Placement, NdSbp)}
   * moving an array.
   *
   * @param local this rank's source piece; null where srcPlacement lacks this rank
   * @param shape the logical shape
   * @param srcPlacement where the source lives
   * @param src how the source maps onto it
   * @param dstPlacement where the destination lives
   * @param dst how the destination maps onto it
   * @return this rank's destination piece, or null where dstPlacement lacks this rank
   */
  public static float[] box(float[] local, long[] shape, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    ByteBuffer out = boxBuffer(local == null ? null : Tensor.bufferOf(local), shape,
        DTYPE_F32, srcPlacement, src, dstPlacement, dst);
    return out == null ? null : Tensor.toFloats(out);
  }

  /** The same for f64 (parameters as for the f32 overload). */
  public static double[] box(double[] local, long[] shape, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    ByteBuffer out = boxBuffer(local == null ? null : Tensor.bufferOf(local), shape,
        DTYPE_F64, srcPlacement, src, dstPlacement, dst);
    return out == null ? null : Tensor.toDoubles(out);
  }

  /** The same for i32 (parameters as for the f32 overload). */
  public static int[] box(int[] local, long[] shape, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    ByteBuffer out = boxBuffer(local == null ? null : Tensor.bufferOf(local), shape,
        DTYPE_I32, srcPlacement, src, dstPlacement, dst);
    return out == null ? null : Tensor.toInts(out);
  }

  /** The same for i64 (parameters as for the f32 overload). */
  public static long[] box(long[] local, long[] shape, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    ByteBuffer out = boxBuffer(local == null ? null : Tensor.bufferOf(local), shape,
        DTYPE_I64, srcPlacement, src, dstPlacement, dst);
    return out == null ? null : Tensor.toLongs(out);
  }

  /** A buffer for this rank's destination piece (null outside dstPlacement), filled by tess_boxing_run. */
  private static ByteBuffer boxBuffer(ByteBuffer in, long[] shape, int dtype,
      Placement srcPlacement, NdSbp src, Placement dstPlacement, NdSbp dst) {
    ByteBuffer out = null;
    int rank = worldRank();
    if (dstPlacement != null && dstPlacement.contains(rank)) {
      try (Layout l = Layout.create(dstPlacement, dst, shape, rank)) {
        out = Tensor.direct(l.numElements() * Tensor.dtypeSize(dtype));
      }
    }
    box(out, in, shape, dtype, srcPlacement, src, dstPlacement, dst);
    return out;
  }

  /**
   * The plan box runs for these arguments (needs no runtime).
   *
   * @param shape the logical shape
   * @param dtype "f32", "f64", "i32" or "i64"
   * @param srcPlacement where the source lives
   * @param src how the source maps onto it
   * @param dstPlacement where the destination lives
   * @param dst how the destination maps onto it
   * @return a new BoxingPlan
   */
  public static BoxingPlan boxPlan(long[] shape, String dtype, Placement srcPlacement, NdSbp src,
      Placement dstPlacement, NdSbp dst) {
    return BoxingPlan.create(shape, dtype, srcPlacement, src, dstPlacement, dst);
  }

  /**
   * The first {@code count} elements of {@code dtype} in {@code buffer} := {@code op}
   * over the ranks of {@code placement}, in place. Ranks outside the placement return at
   * once.
   *
   * @param buffer a direct buffer in native byte order
   * @param count the number of elements
   * @param dtype "f32", "f64", "i32" or "i64"
   * @param op REDUCE_SUM, REDUCE_MAX or REDUCE_MIN
   * @param placement the ranks taking part; null: the world
   * @param algorithm ALLREDUCE_FLAT, ALLREDUCE_AUTO or ALLREDUCE_HIERARCHICAL
   */
  public static void allreduce(ByteBuffer buffer, long count, String dtype, int op,
      Placement placement, int algorithm) {
    int type = dtypeParse(dtype);
    if (buffer != null && buffer.capacity() < count * Tensor.dtypeSize(type)) {
      throw new InvalidArgumentException("Tessera.allreduce: buffer has "
          + buffer.capacity() + " bytes but " + count + " " + dtype + " elements need "
          + count * Tensor.dtypeSize(type));
    }
    init();
    TesseraJNI.comm_allreduce(buffer, count, type, op, Handle.ptr(placement), placement, algorithm);
  }

  /**
   * The same on an f32 array, in place.
   *
   * @param data the values, replaced by the result
   * @param op REDUCE_SUM, REDUCE_MAX or REDUCE_MIN
   * @param placement the ranks taking part; null: the world
   * @param algorithm ALLREDUCE_FLAT, ALLREDUCE_AUTO or ALLREDUCE_HIERARCHICAL
   */
  public static void allreduce(float[] data, int op, Placement placement, int algorithm) {
    ByteBuffer b = Tensor.bufferOf(data);
    allreduce(b, data.length, "f32", op, placement, algorithm);
    b.asFloatBuffer().get(data);
  }

  /**
   * The same on an f64 array, in place.
   *
   * @param data the values, replaced by the result
   * @param op REDUCE_SUM, REDUCE_MAX or REDUCE_MIN
   * @param placement the ranks taking part; null: the world
   * @param algorithm ALLREDUCE_FLAT, ALLREDUCE_AUTO or ALLREDUCE_HIERARCHICAL
   */
  public static void allreduce(double[] data, int op, Placement placement, int algorithm) {
    ByteBuffer b = Tensor.bufferOf(data);
    allreduce(b, data.length, "f64", op, placement, algorithm);
    b.asDoubleBuffer().get(data);
  }

  /**
   * The same on an i32 array, in place.
   *
   * @param data the values, replaced by the result
   * @param op REDUCE_SUM, REDUCE_MAX or REDUCE_MIN
   * @param placement the ranks taking part; null: the world
   * @param algorithm ALLREDUCE_FLAT, ALLREDUCE_AUTO or ALLREDUCE_HIERARCHICAL
   */
  public static void allreduce(int[] data, int op, Placement placement, int algorithm) {
    ByteBuffer b = Tensor.bufferOf(data);
    allreduce(b, data.length, "i32", op, placement, algorithm);
    b.asIntBuffer().get(data);
  }

  /**
   * The same on an i64 array, in place.
   *
   * @param data the values, replaced by the result
   * @param op REDUCE_SUM, REDUCE_MAX or REDUCE_MIN
   * @param placement the ranks taking part; null: the world
   * @param algorithm ALLREDUCE_FLAT, ALLREDUCE_AUTO or ALLREDUCE_HIERARCHICAL
   */
  public static void allreduce(long[] data, int op, Placement placement, int algorithm) {
    ByteBuffer b = Tensor.bufferOf(data);
    allreduce(b, data.length, "i64", op, placement, algorithm);
    b.asLongBuffer().get(data);
  }

  /**
   * Bounds every collective from now on, existing communicators included. Local; call
   * it with the same value on every rank. Needs no runtime.
   *
   * @param seconds the limit; 0: none
   */
  public static void setCollectiveTimeout(double seconds) {
    TesseraJNI.comm_set_collective_timeout(seconds);
  }

  /**
   * The process default collective timeout.
   *
   * @return seconds; 0: none
   */
  public static double collectiveTimeout() {
    double[] out = {0};
    TesseraJNI.comm_collective_timeout(out);
    return out[0];
  }
}
