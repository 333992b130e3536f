package org.tessera;

/** The calling thread's inference-cache counters ({@link Inference#cacheStats()}). */
public final class InferCacheStats {
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
