package org.tessera;

/**
 * Options of {@link Tessera#init(InitOptions)}, the C API's
 * {@code tess_runtime_init_options}. Immutable; start from {@link #builder()}, whose
 * defaults are the C defaults: no collective timeout change (-1), the CUDA device
 * chosen by local rank (-1) and check mode as TESSERA_CHECK says (-1).
 *
 * <pre>{@code
 * Tessera.init(InitOptions.builder().collectiveTimeoutSeconds(30).build());
 * }</pre>
 */
public final class InitOptions {
  private final double collectiveTimeoutSeconds;
  private final int cudaDevice;
  private final int checkMode;

  private InitOptions(Builder b) {
    this.collectiveTimeoutSeconds = b.collectiveTimeoutSeconds;
    this.cudaDevice = b.cudaDevice;
    this.checkMode = b.checkMode;
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
   * The bound of every collective, applied before MPI starts.
   *
   * @return seconds: 0 waits forever, negative keeps the process default
   */
  public double collectiveTimeoutSeconds() {
    return collectiveTimeoutSeconds;
  }

  /**
   * The CUDA device this process drives for cuda placements.
   *
   * @return the device index; -1: local rank modulo the visible devices
   */
  public int cudaDevice() {
    return cudaDevice;
  }

  /**
   * Check mode (divergence detection; docs/reliability.md): the ranks of every op,
   * boxing, collective and plan run agree the call first, and ranks that issued
   * different calls all get FAILED_PRECONDITION.
   *
   * @return 1 on, 0 off, -1: the environment's TESSERA_CHECK decides (unset: off)
   */
  public int checkMode() {
    return checkMode;
  }

  @Override
  public String toString() {
    return "InitOptions(collectiveTimeoutSeconds=" + collectiveTimeoutSeconds + ", cudaDevice="
        + cudaDevice + ", checkMode=" + checkMode + ")";
  }

  /** Builds {@link InitOptions}; the C library checks the values at init. */
  public static final class Builder {
    private double collectiveTimeoutSeconds = -1.0;
    private int cudaDevice = -1;
    private int checkMode = -1;

    private Builder() {}

    /**
     * Bounds every collective (as {@link Collectives#setCollectiveTimeout}), applied
     * before MPI starts. NaN or infinite: INVALID_ARGUMENT at init.
     *
     * @param seconds 0: wait forever; negative (the default): keep the process default
     * @return this builder
     */
    public Builder collectiveTimeoutSeconds(double seconds) {
      this.collectiveTimeoutSeconds = seconds;
      return this;
    }

    /**
     * The CUDA device this rank drives. Below -1: INVALID_ARGUMENT; a device in a
     * build without CUDA: UNIMPLEMENTED; past the visible devices: OUT_OF_RANGE.
     *
     * @param device -1 (the default): local rank modulo the visible devices
     * @return this builder
     */
    public Builder cudaDevice(int device) {
      this.cudaDevice = device;
      return this;
    }

    /**
     * Check mode: every rank must choose alike. Another value than -1, 0 or 1:
     * INVALID_ARGUMENT at init, naming it.
     *
     * @param mode 1 on, 0 off, -1 (the default): TESSERA_CHECK decides
     * @return this builder
     */
    public Builder checkMode(int mode) {
      this.checkMode = mode;
      return this;
    }

    /**
     * Check mode on or off (checkMode(1) or checkMode(0)).
     *
     * @param on whether the ranks agree every call first
     * @return this builder
     */
    public Builder check(boolean on) {
      return checkMode(on ? 1 : 0);
    }

    /**
     * The options.
     *
     * @return a new InitOptions
     */
    public InitOptions build() {
      return new InitOptions(this);
    }
  }
}
