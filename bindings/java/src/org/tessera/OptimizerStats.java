package org.tessera;

/** What an {@link Optimizer} has done (tess_optimizer_stats). */
public final class OptimizerStats {
  /** step() calls. */
  public final long steps;
  /** Parameters. */
  public final long numParams;
  /** Fused: flat buckets; 0 otherwise. */
  public final long numBuckets;
  /** Fused: gradient all-reduces started during backward. */
  public final long allreducesInBackward;
  /** Fused: seconds those all-reduces were in flight, summed. */
  public final double allreduceSeconds;
  /** Fused: of those, the seconds step() waited. */
  public final double allreduceWaitSeconds;
  /** Optimizer state this rank holds in the buckets. */
  public final long stateBytes;

  OptimizerStats(long steps, long numParams, long numBuckets, long allreducesInBackward,
      double allreduceSeconds, double allreduceWaitSeconds, long stateBytes) {
    this.steps = steps;
    this.numParams = numParams;
    this.numBuckets = numBuckets;
    this.allreducesInBackward = allreducesInBackward;
    this.allreduceSeconds = allreduceSeconds;
    this.allreduceWaitSeconds = allreduceWaitSeconds;
    this.stateBytes = stateBytes;
  }

  @Override
  public String toString() {
    return "OptimizerStats{steps=" + steps + ", numParams=" + numParams + ", numBuckets="
        + numBuckets + ", allreducesInBackward=" + allreducesInBackward + ", allreduceSeconds="
        + allreduceSeconds + ", allreduceWaitSeconds=" + allreduceWaitSeconds + ", stateBytes="
        + stateBytes + "}";
  }
}
