package org.tessera;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The runtime's life cycle and this process's view of it: versions, start
 * ({@link #init()}, {@link #init(InitOptions)}) and stop ({@link #shutdown()}), the
 * world's rank and size, CUDA and the host allocators.
 *
 * <p>Loading the binding loads its native library and nothing more (from
 * {@code -Dtessera.library.path}, {@code java.library.path} or, from the jar, a
 * private temporary copy; see {@link #nativeLibrary()}): the runtime (and MPI) starts
 * on the first call that needs it (a tensor, a collective, the world's rank or size,
 * compiling a plan), or at an explicit {@code init}. Call {@link #shutdown()} before
 * exiting a program started by {@code mpirun}: mpirun fails a job whose ranks skip
 * {@code MPI_Finalize}.
 *
 * <p>The rest of the API by concern: {@link Placement}, {@link NdSbp}, {@link Layout}
 * and {@link DType} describe data; {@link Tensor} and {@link Ops} compute;
 * {@link OpCall} and {@link Inference} infer SBP signatures; {@link Boxing} and
 * {@link Collectives} move host data; {@link Program}, {@link Capture}, {@link Plan} and
 * {@link PlanInstance} are plan mode. Failures throw a {@link TesseraException}
 * subclass carrying a {@link Status} code and the C API's message.
 */
public final class Tessera {
  private Tessera() {}

  /** TESS_VERSION_MAJOR from tessera.h. */
  public static final int VERSION_MAJOR = TesseraJNI.VERSION_MAJOR_get();
  /** TESS_VERSION_MINOR from tessera.h. */
  public static final int VERSION_MINOR = TesseraJNI.VERSION_MINOR_get();
  /** TESS_VERSION_PATCH from tessera.h. */
  public static final int VERSION_PATCH = TesseraJNI.VERSION_PATCH_get();
  /** TESS_VERSION_NUMBER from tessera.h. */
  public static final int VERSION_NUMBER = TesseraJNI.VERSION_NUMBER_get();

  static {
    if (TesseraJNI.version_number() != VERSION_NUMBER) {
      throw new IllegalStateException("tessera: bindings built for " + VERSION_NUMBER
          + " but the library is " + TesseraJNI.version());
    }
  }

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
      if (!started) {
        start(TesseraJNI::runtime_init);
      }
    }
  }

  /**
   * Starts the runtime with {@code options} (tess_runtime_init_with_options): as
   * {@link #init()}, the options applied before MPI starts. Called again once started,
   * the library still checks the options and applies the timeout. INVALID_ARGUMENT,
   * naming the field, for a bad value (a cudaDevice below -1, a NaN timeout, a
   * checkMode other than -1, 0 or 1);
   * UNIMPLEMENTED for a cudaDevice in a build without CUDA; nothing starts then.
   *
   * @param options the options; see {@link InitOptions#builder()}
   */
  public static void init(InitOptions options) {
    if (options == null) {
      throw new InvalidArgumentException("Tessera.init: options is null");
    }
    synchronized (Tessera.class) {
      start(() -> TesseraJNI.runtime_init_with_options(options.collectiveTimeoutSeconds(),
          options.cudaDevice(), options.checkMode()));
    }
  }

  /** Runs {@code init} under the life-cycle lock; marks the runtime started if it returns. */
  private static void start(Runnable init) {
    LIFECYCLE.writeLock().lock();
    try {
      init.run();
    } finally {
      LIFECYCLE.writeLock().unlock();
    }
    started = true;
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
   * The file the JNI library was loaded from: in {@code -Dtessera.library.path}, on
   * {@code java.library.path}, or a private temporary copy extracted from the jar
   * (deleted once loaded).
   *
   * @return an absolute path
   */
  public static String nativeLibrary() {
    return NativeLoader.loadedFrom();
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

  /**
   * Where the ranks sit: this rank's host, its place there and the world's hosts (starts
   * the runtime). Local: the runtime found it at start-up.
   *
   * @return an immutable snapshot
   */
  public static Topology topology() {
    init();
    int[][] f = new int[10][1];
    TesseraJNI.runtime_topology(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9]);
    int[] fields = new int[10];
    for (int i = 0; i < 10; ++i) {
      fields[i] = f[i][0];
    }
    return new Topology(fields);
  }

  /**
   * The host of a world rank and its index there (starts the runtime). Local.
   *
   * @param worldRank a rank of the world
   * @return {host, local rank}
   * @throws TesseraException OUT_OF_RANGE for a rank outside the world
   */
  public static int[] rankHost(int worldRank) {
    init();
    int[] host = {0};
    int[] local = {0};
    TesseraJNI.runtime_rank_host(host, local, worldRank);
    return new int[] {host[0], local[0]};
  }

  /**
   * The topology as text, the same on every rank: a line for the world, then one per
   * host with its name and ranks (and each rank's GPU, when ranks drive one). Starts the
   * runtime.
   *
   * @return the text
   */
  public static String topologyString() {
    init();
    return TesseraJNI.runtime_topology_string();
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
   * A host caching allocator's counters now. Local; needs no runtime.
   *
   * @param allocator {@link Allocator#HOST} or {@link Allocator#HOST_THREAD} (the
   *     calling thread's)
   * @return an immutable snapshot
   */
  public static AllocatorStats allocatorStats(Allocator allocator) {
    return AllocatorStats.read(allocator);
  }
}
