package org.tessera;

/**
 * A server: one rank (the driver) takes requests, the others (the followers) run in
 * lockstep what it issues (the C API's {@code tess_server}; docs/serving.md).
 *
 * <pre>{@code
 * // every rank: build the program, compile it, then
 * try (Server server = Server.create();
 *     Plan plan = program.compile(1)) {
 *   int id = server.addPlan(plan, ServePlanOptions.builder().batching(true).build());
 *   if (server.isDriver()) {
 *     // any number of threads, each with its own request:
 *     try (ServeRequest r = server.newRequest(id)) {
 *       r.setInput(0, rows);
 *       server.run(r);
 *       float[] y = r.outputFloatArray(0);
 *     }
 *     server.stop();  // at the end: answers what is queued, releases the followers
 *   } else {
 *     server.follow();  // returns once the driver stops
 *   }
 * }
 * Tessera.shutdown();
 * }</pre>
 *
 * <p>Thread safety: {@link #run}, {@link #checkHealth}, {@link #stats} and the plan
 * queries may be called from any thread at once (no lock is held on the Java side);
 * create, addPlan, follow, stop and close from one thread. Close every request of the
 * server before the server. Closing frees the C object at once (on the driver it stops
 * the server first); an unclosed one is freed when collected.
 */
public final class Server extends Handle {
  private Server(long pointer) {
    super(pointer, TesseraJNI::delete_Server);
  }

  /**
   * A server over every rank of the world with the default options. Collective.
   *
   * @return the new server
   */
  public static Server create() {
    return create(ServerOptions.builder().build());
  }

  /**
   * A server over every rank of the world, starting the runtime if needed. Collective:
   * every rank calls it, in the same order relative to its other server creations.
   * INVALID_ARGUMENT, naming the field and value, for a driverRank outside the world,
   * a followerTimeoutSeconds that is negative, NaN or above 1e6, or a followerPollMaxUs
   * outside [0, 100000].
   *
   * @param options the options; see {@link ServerOptions#builder()}
   * @return the new server
   */
  public static Server create(ServerOptions options) {
    if (options == null) {
      throw new InvalidArgumentException("Server.create: options is null");
    }
    Tessera.init();
    long[] out = {0};
    TesseraJNI.server_create(out, options.driverRank(), options.followerTimeoutSeconds(),
        options.followerPollMaxUs());
    return new Server(out[0]);
  }

  /**
   * Destroys the server now; idempotent. On the driver it stops the server first (as
   * {@link #stop}); on a follower call it after {@link #follow} returned.
   */
  @Override
  public void close() {
    super.close();
  }

  /**
   * Whether this rank drives. Local.
   *
   * @return true on the driver rank, false on a follower
   */
  public boolean isDriver() {
    int[] out = {0};
    TesseraJNI.server_is_driver(out, ptr(), this);
    return out[0] != 0;
  }

  /**
   * Makes {@code plan} servable with the default options (no batching).
   *
   * @param plan a compiled plan
   * @return its plan id
   */
  public int addPlan(Plan plan) {
    return addPlan(plan, ServePlanOptions.builder().build());
  }

  /**
   * Makes {@code plan} servable. Every rank adds the plans it compiled from the same
   * program, in the same order. The plan's data inputs and outputs must all be batched
   * along axis 0 with one size, the capacity. The server keeps the plan alive (closing
   * {@code plan} afterwards is fine). Local. INVALID_ARGUMENT naming the input or output
   * whose shape breaks that, or an option out of range (naming it and the value);
   * FAILED_PRECONDITION once the server is following, stopped or serving.
   *
   * @param plan a compiled plan
   * @param options the options; see {@link ServePlanOptions#builder()}
   * @return its plan id: 0, 1, ... in the order added
   */
  public int addPlan(Plan plan, ServePlanOptions options) {
    if (options == null) {
      throw new InvalidArgumentException("Server.addPlan: options is null");
    }
    int[] out = {0};
    TesseraJNI.server_add_plan(out, ptr(), this, Handle.ptr(plan), plan,
        options.batching() ? 1 : 0, options.maxBatchRows(), options.maxQueueDelayUs(),
        options.maxQueuedRequests());
    return out[0];
  }

  /**
   * The number of plans added.
   *
   * @return the count
   */
  public int numPlans() {
    int[] out = {0};
    TesseraJNI.server_num_plans(out, ptr(), this);
    return out[0];
  }

  /** What a served plan takes and gives, and its options as resolved. */
  public static final class PlanInfo {
    /** The plan's data inputs. */
    public final long numInputs;
    /** The plan's outputs. */
    public final long numOutputs;
    /** The plan's dim 0: the most rows one run holds. */
    public final long capacityRows;
    /** The most rows a request or batch may hold (0 resolved to the capacity). */
    public final long maxBatchRows;
    /** The batching delay in microseconds. */
    public final long maxQueueDelayUs;
    /** The most requests that may wait (0 resolved to 4096). */
    public final long maxQueuedRequests;
    /** Whether requests share runs. */
    public final boolean batching;

    PlanInfo(long numInputs, long numOutputs, long capacityRows, long maxBatchRows,
        long maxQueueDelayUs, long maxQueuedRequests, boolean batching) {
      this.numInputs = numInputs;
      this.numOutputs = numOutputs;
      this.capacityRows = capacityRows;
      this.maxBatchRows = maxBatchRows;
      this.maxQueueDelayUs = maxQueueDelayUs;
      this.maxQueuedRequests = maxQueuedRequests;
      this.batching = batching;
    }

    @Override
    public String toString() {
      return "PlanInfo(" + numInputs + " inputs, " + numOutputs + " outputs, capacity "
          + capacityRows + " rows, batching " + batching + ", maxBatchRows " + maxBatchRows
          + ", maxQueueDelayUs " + maxQueueDelayUs + ", maxQueuedRequests "
          + maxQueuedRequests + ")";
    }
  }

  /**
   * What plan {@code planId} takes and gives. Local. OUT_OF_RANGE for an unknown id.
   *
   * @param planId an id from {@link #addPlan}
   * @return its info
   */
  public PlanInfo planInfo(int planId) {
    long[] inputs = {0}, outputs = {0}, capacity = {0}, maxRows = {0}, delay = {0},
        queued = {0};
    int[] batching = {0};
    TesseraJNI.server_get_plan_info(inputs, outputs, capacity, maxRows, delay, queued, batching,
        ptr(), this, planId);
    return new PlanInfo(inputs[0], outputs[0], capacity[0], maxRows[0], delay[0], queued[0],
        batching[0] != 0);
  }

  /**
   * Elements per row (the product of dims 1..) of input {@code index} of plan
   * {@code planId}. OUT_OF_RANGE for an unknown id or index.
   *
   * @param planId an id from {@link #addPlan}
   * @param index the input's index
   * @return its width
   */
  public long planInputWidth(int planId, long index) {
    long[] out = {0};
    TesseraJNI.server_plan_input_width(out, ptr(), this, planId,
        sizeIndex("Server.planInputWidth", "input index", index));
    return out[0];
  }

  /**
   * Elements per row of output {@code index} of plan {@code planId}. OUT_OF_RANGE for
   * an unknown id or index.
   *
   * @param planId an id from {@link #addPlan}
   * @param index the output's index
   * @return its width
   */
  public long planOutputWidth(int planId, long index) {
    long[] out = {0};
    TesseraJNI.server_plan_output_width(out, ptr(), this, planId,
        sizeIndex("Server.planOutputWidth", "output index", index));
    return out[0];
  }

  /** Input {@code index}'s dtype code ({@link DType}). */
  int planInputDTypeCode(int planId, long index) {
    int[] out = {0};
    TesseraJNI.server_plan_input_dtype(out, ptr(), this, planId,
        sizeIndex("Server.planInputDType", "input index", index));
    return out[0];
  }

  /** Output {@code index}'s dtype code ({@link DType}). */
  int planOutputDTypeCode(int planId, long index) {
    int[] out = {0};
    TesseraJNI.server_plan_output_dtype(out, ptr(), this, planId,
        sizeIndex("Server.planOutputDType", "output index", index));
    return out[0];
  }

  /**
   * The dtype of input {@code index} of plan {@code planId}. OUT_OF_RANGE for an unknown
   * id or index.
   *
   * @param planId an id from {@link #addPlan}
   * @param index the input's index
   * @return its name, e.g. "f32"
   */
  public String planInputDType(int planId, long index) {
    return DType.name(planInputDTypeCode(planId, index));
  }

  /**
   * The dtype of output {@code index} of plan {@code planId}. OUT_OF_RANGE for an
   * unknown id or index.
   *
   * @param planId an id from {@link #addPlan}
   * @param index the output's index
   * @return its name, e.g. "f32"
   */
  public String planOutputDType(int planId, long index) {
    return DType.name(planOutputDTypeCode(planId, index));
  }

  /**
   * A new request for plan {@code planId}, to fill with {@link ServeRequest#setInput} and
   * run with {@link #run}. Local. OUT_OF_RANGE for an unknown id.
   *
   * @param planId an id from {@link #addPlan}
   * @return the request (close it before the server)
   */
  public ServeRequest newRequest(int planId) {
    long[] out = {0};
    TesseraJNI.serve_request_create(out, ptr(), this, planId);
    return new ServeRequest(out[0], this, planId);
  }

  /**
   * Followers: executes, in lockstep with the driver, what it issues until the driver
   * stops the server, then returns. Blocks; costs no CPU while the driver is idle.
   * FAILED_PRECONDITION on the driver or when called twice.
   */
  public void follow() {
    TesseraJNI.server_follow(ptr(), this);
  }

  /**
   * Driver: stops taking requests ({@link #run} fails with CANCELLED from now on),
   * answers those already queued, releases the followers. Idempotent.
   * FAILED_PRECONDITION on a follower.
   */
  public void stop() {
    TesseraJNI.server_stop(ptr(), this);
  }

  /**
   * Driver: queues {@code request} and blocks until it is answered; its outputs then
   * hold one row per input row. Any thread, many at once (each with its own request).
   * INVALID_ARGUMENT for an input never set, inputs with different row counts or a
   * request of another server;
   * RESOURCE_EXHAUSTED when the plan's queue is full; CANCELLED after {@link #stop}
   * began; UNAVAILABLE once the server has failed; DEADLINE_EXCEEDED on a collective
   * timeout; FAILED_PRECONDITION on a follower.
   *
   * @param request a request of this server
   */
  public void run(ServeRequest request) {
    TesseraJNI.server_run(ptr(), this, Handle.ptr(request), request);
  }

  /**
   * Driver: asks every follower to answer and waits up to {@code timeoutSeconds} for the
   * answers (behind requests queued before). Returns when all answered; UNAVAILABLE,
   * quoting the first error, once the server has failed; DEADLINE_EXCEEDED when the
   * time passed first; CANCELLED once stopped; FAILED_PRECONDITION on a follower;
   * INVALID_ARGUMENT for a timeout not above 0 or above 1e6.
   *
   * @param timeoutSeconds above 0, at most 1e6
   */
  public void checkHealth(double timeoutSeconds) {
    TesseraJNI.server_check_health(ptr(), this, timeoutSeconds);
  }

  /** The server's counters. */
  public static final class Stats {
    /** run calls that were queued. */
    public final long requests;
    /** Those answered with an error (and calls refused). */
    public final long failedRequests;
    /** Plan runs (batches). */
    public final long runs;
    /** Request rows served. */
    public final long rows;
    /** Requests waiting now. */
    public final long queuedRequests;
    /** Health checks every follower answered. */
    public final long healthChecks;
    /** False once the server has failed. */
    public final boolean available;
    /** True once stopped (driver) or released (follower). */
    public final boolean stopped;
    /**
     * Heap allocations of the last batch on the thread that ran it; -1: not counted
     * (libtessera.so does not count; tests linking Tessera statically do).
     */
    public final long heapAllocationsLastBatch;

    Stats(long requests, long failedRequests, long runs, long rows, long queuedRequests,
        long healthChecks, boolean available, boolean stopped, long heapAllocationsLastBatch) {
      this.requests = requests;
      this.failedRequests = failedRequests;
      this.runs = runs;
      this.rows = rows;
      this.queuedRequests = queuedRequests;
      this.healthChecks = healthChecks;
      this.available = available;
      this.stopped = stopped;
      this.heapAllocationsLastBatch = heapAllocationsLastBatch;
    }

    @Override
    public String toString() {
      return requests + " requests (" + failedRequests + " failed), " + runs + " runs, " + rows
          + " rows, " + queuedRequests + " queued, " + healthChecks + " health checks, "
          + (available ? "available" : "unavailable") + (stopped ? ", stopped" : "");
    }
  }

  /**
   * The server's counters. Any thread; local.
   *
   * @return a snapshot
   */
  public Stats stats() {
    long[] requests = {0}, failed = {0}, runs = {0}, rows = {0}, queued = {0}, health = {0};
    int[] available = {0}, stopped = {0};
    long[] heap = {0};
    TesseraJNI.server_get_stats(requests, failed, runs, rows, queued, health, available,
        stopped, heap, ptr(), this);
    return new Stats(requests[0], failed[0], runs[0], rows[0], queued[0], health[0],
        available[0] != 0, stopped[0] != 0, heap[0]);
  }

  /**
   * "Server(driver, 1 plans)"; "Server(closed)" once closed.
   *
   * @return the text
   */
  @Override
  public String toString() {
    if (isClosed()) {
      return "Server(closed)";
    }
    return "Server(" + (isDriver() ? "driver" : "follower") + ", " + numPlans() + " plans)";
  }
}
