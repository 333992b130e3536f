package org.tessera;

/**
 * Options of {@link Server#create(ServerOptions)}, the C API's {@code tess_server_options}.
 * Immutable; start from {@link #builder()}, whose defaults are the C defaults: rank 0
 * drives, the follower timeout is the collective timeout (else 30 s), followers poll
 * with pauses of up to 500 microseconds. The C library checks the values at create.
 *
 * <pre>{@code
 * Server server = Server.create(ServerOptions.builder().followerTimeoutSeconds(10).build());
 * }</pre>
 */
public final class ServerOptions {
  private final int driverRank;
  private final double followerTimeoutSeconds;
  private final long followerPollMaxUs;

  private ServerOptions(Builder b) {
    this.driverRank = b.driverRank;
    this.followerTimeoutSeconds = b.followerTimeoutSeconds;
    this.followerPollMaxUs = b.followerPollMaxUs;
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
   * The world rank that drives (takes requests); every other rank follows.
   *
   * @return the driver's rank (0 by default)
   */
  public int driverRank() {
    return driverRank;
  }

  /**
   * How long the driver waits for followers to take a command or answer a health
   * check before it declares the server unavailable.
   *
   * @return seconds; 0: the collective timeout when one is set, else 30
   */
  public double followerTimeoutSeconds() {
    return followerTimeoutSeconds;
  }

  /**
   * The longest pause between a waiting follower's polls for the next command.
   *
   * @return microseconds; 0: 500
   */
  public long followerPollMaxUs() {
    return followerPollMaxUs;
  }

  @Override
  public String toString() {
    return "ServerOptions(driverRank=" + driverRank + ", followerTimeoutSeconds="
        + followerTimeoutSeconds + ", followerPollMaxUs=" + followerPollMaxUs + ")";
  }

  /** Builds {@link ServerOptions}. */
  public static final class Builder {
    private int driverRank = 0;
    private double followerTimeoutSeconds = 0.0;
    private long followerPollMaxUs = 0;

    private Builder() {}

    /**
     * The rank that drives. Outside the world: INVALID_ARGUMENT at create.
     *
     * @param rank a world rank (0 by default)
     * @return this builder
     */
    public Builder driverRank(int rank) {
      this.driverRank = rank;
      return this;
    }

    /**
     * The follower timeout. Negative, NaN or above 1e6: INVALID_ARGUMENT at create.
     *
     * @param seconds above 0, at most 1e6; 0 (the default): the collective timeout
     *     when one is set, else 30
     * @return this builder
     */
    public Builder followerTimeoutSeconds(double seconds) {
      this.followerTimeoutSeconds = seconds;
      return this;
    }

    /**
     * The followers' longest poll pause: longer costs less idle CPU and adds up to this
     * much latency to the first request after idle. Outside [0, 100000]:
     * INVALID_ARGUMENT at create.
     *
     * @param us 1 to 100000 microseconds; 0 (the default): 500
     * @return this builder
     */
    public Builder followerPollMaxUs(long us) {
      this.followerPollMaxUs = us;
      return this;
    }

    /**
     * The options.
     *
     * @return a new ServerOptions
     */
    public ServerOptions build() {
      return new ServerOptions(this);
    }
  }
}
