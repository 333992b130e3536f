package org.tessera;

/**
 * A host caching allocator's counters at one moment ({@link Tessera#allocatorStats}),
 * the C API's {@code tess_allocator_stats}. Immutable; byte counts are block sizes
 * (requests after rounding).
 */
public final class AllocatorStats {
  /** Bytes handed out and not yet freed. */
  public final long bytesInUse;
  /** The most bytesInUse so far. */
  public final long peakBytesInUse;
  /** Bytes held from the system: in use plus cached. */
  public final long bytesReserved;
  /** Successful allocations. */
  public final long numAllocs;
  /** Frees of non-null pointers. */
  public final long numFrees;
  /** Allocations served without a system allocation. */
  public final long numCacheHits;
  /** Allocations taken from the system. */
  public final long numSystemAllocs;
  /** Allocations returned to the system. */
  public final long numSystemFrees;
  /** System allocations held now. */
  public final long numSegments;

  AllocatorStats(long[] v) {
    bytesInUse = v[0];
    peakBytesInUse = v[1];
    bytesReserved = v[2];
    numAllocs = v[3];
    numFrees = v[4];
    numCacheHits = v[5];
    numSystemAllocs = v[6];
    numSystemFrees = v[7];
    numSegments = v[8];
  }

  /** Reads the counters of {@code allocator} (needs no runtime). */
  static AllocatorStats read(Allocator allocator) {
    if (allocator == null) {
      throw new InvalidArgumentException("Tessera.allocatorStats: allocator is null");
    }
    long[][] v = new long[9][1];
    TesseraJNI.allocator_get_stats(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8],
        allocator.code);
    long[] flat = new long[9];
    for (int i = 0; i < 9; ++i) flat[i] = v[i][0];
    return new AllocatorStats(flat);
  }

  @Override
  public String toString() {
    return "AllocatorStats(bytesInUse=" + bytesInUse + ", peakBytesInUse=" + peakBytesInUse
        + ", bytesReserved=" + bytesReserved + ", numAllocs=" + numAllocs + ", numFrees="
        + numFrees + ", numCacheHits=" + numCacheHits + ", numSystemAllocs=" + numSystemAllocs
        + ", numSystemFrees=" + numSystemFrees + ", numSegments=" + numSegments + ")";
  }
}
