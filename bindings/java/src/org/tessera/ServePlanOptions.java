package org.tessera;

/**
 * Options of {@link Server#addPlan(Plan, ServePlanOptions)}, the C API's
 * {@code tess_serve_plan_options}. Immutable; start from {@link #builder()}, whose
 * defaults are the C defaults: no batching (one request a run), requests of up to the
 * plan's capacity rows, no queue delay, up to 4096 queued requests. The C library
 * checks the values at addPlan.
 *
 * <pre>{@code
 * int id = server.addPlan(plan, ServePlanOptions.builder().batching(true)
 *     .maxBatchRows(64).maxQueueDelayUs(2000).build());
 * }</pre>
 */
public final class ServePlanOptions {
  private final boolean batching;
  private final long maxBatchRows;
  private final long maxQueueDelayUs;
  private final long maxQueuedRequests;

  private ServePlanOptions(Builder b) {
    this.batching = b.batching;
    this.maxBatchRows = b.maxBatchRows;
    this.maxQueueDelayUs = b.maxQueueDelayUs;
    this.maxQueuedRequests = b.maxQueuedRequests;
  }

  /**
   * A builder holding the defaults.
   *
   * @return a new Builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Dynamic batching: requests of the plan share runs.
   *
   * @return whether on (off by default)
   */
  public boolean batching() {
    return batching;
  }

  /**
   * The most rows one request, or one batch, may hold.
   *
   * @return rows; 0: the plan's capacity
   */
  public long maxBatchRows() {
    return maxBatchRows;
  }

  /**
   * With batching, how long the oldest waiting request may wait for others.
   *
   * @return microseconds
   */
  public long maxQueueDelayUs() {
    return maxQueueDelayUs;
  }

  /**
   * The most requests of the plan that may wait.
   *
   * @return requests; 0: 4096
   */
  public long maxQueuedRequests() {
    return maxQueuedRequests;
  }

  @Override
  public String toString() {
    return "ServePlanOptions(batching=" + batching + ", maxBatchRows=" + maxBatchRows
        + ", maxQueueDelayUs=" + maxQueueDelayUs + ", maxQueuedRequests=" + maxQueuedRequests
        + ")";
  }

  /** Builds {@link ServePlanOptions}. */
  public static final class Builder {
    private boolean batching = false;
    private long maxBatchRows = 0;
    private long maxQueueDelayUs = 0;
    private long maxQueuedRequests = 0;

    private Builder() {}

    /**
     * Dynamic batching: requests are concatenated along axis 0 up to maxBatchRows rows
     * or maxQueueDelayUs, run once and split back (the plan's rows must not depend on
     * each other).
     *
     * @param on whether requests share runs (off by default)
     * @return this builder
     */
    public Builder batching(boolean on) {
      this.batching = on;
      return this;
    }

    /**
     * The most rows a request or a batch may hold. Outside 0 to the plan's capacity:
     * INVALID_ARGUMENT at addPlan.
     *
     * @param rows 1 to the plan's capacity; 0 (the default): the capacity
     * @return this builder
     */
    public Builder maxBatchRows(long rows) {
      this.maxBatchRows = rows;
      return this;
    }

    /**
     * How long the oldest waiting request may wait for others to fill its batch (a full
     * batch runs at once); ignored without batching. Outside [0, 10000000]:
     * INVALID_ARGUMENT at addPlan.
     *
     * @param us microseconds; 0 (the default): run with whatever is queued
     * @return this builder
     */
    public Builder maxQueueDelayUs(long us) {
      this.maxQueueDelayUs = us;
      return this;
    }

    /**
     * The most requests of the plan that may wait; one beyond fails with
     * RESOURCE_EXHAUSTED. Outside [0, 1000000]: INVALID_ARGUMENT at addPlan.
     *
     * @param requests 0 (the default): 4096
     * @return this builder
     */
    public Builder maxQueuedRequests(long requests) {
      this.maxQueuedRequests = requests;
      return this;
    }

    /**
     * The options.
     *
     * @return a new ServePlanOptions
     */
    public ServePlanOptions build() {
      return new ServePlanOptions(this);
    }
  }
}
