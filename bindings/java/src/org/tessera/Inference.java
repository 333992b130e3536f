package org.tessera;

/**
 * SBP signature inference as a whole: the registered ops, the calling thread's
 * inference cache and the record of its last op. (One op's inference is
 * {@link OpCall#infer()}.) Local: needs no runtime.
 */
public final class Inference {
  private Inference() {}

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

  /**
   * The calling thread's inference-cache statistics (the cache is per thread).
   *
   * @return the counters
   */
  public static InferCacheStats cacheStats() {
    long[] hits = {0}, misses = {0}, evictions = {0}, size = {0}, capacity = {0};
    TesseraJNI.infer_cache_get_stats(hits, misses, evictions, size, capacity);
    return new InferCacheStats(hits[0], misses[0], evictions[0], size[0], capacity[0]);
  }

  /** Drops every entry of this thread's inference cache and zeroes its counters. */
  public static void cacheClear() {
    TesseraJNI.infer_cache_clear();
  }

  /**
   * Drops every entry (counters kept) and sets the capacity.
   *
   * @param capacity the most entries, at least 1
   */
  public static void cacheSetCapacity(long capacity) {
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
}
