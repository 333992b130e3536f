package org.tessera;

/**
 * Where the ranks sit ({@link Tessera#topology()}), as the runtime found it when it
 * started: ranks that share memory (MPI_COMM_TYPE_SHARED; on a cluster, the processes of
 * one machine) form a host, unless TESSERA_RANKS_PER_HOST made pretend hosts. Hosts are
 * numbered by their lowest world rank; local ranks follow world-rank order.
 */
public final class Topology {
  /** Ranks in the world. */
  public final int worldSize;
  /** This rank. */
  public final int worldRank;
  /** Hosts the world spans. */
  public final int hostCount;
  /** This rank's host. */
  public final int hostIndex;
  /** This rank's index among its host's ranks. */
  public final int localRank;
  /** Ranks on this rank's host. */
  public final int localSize;
  /** Ranks on the host with the fewest. */
  public final int minRanksPerHost;
  /** Ranks on the host with the most. */
  public final int maxRanksPerHost;
  /** TESSERA_RANKS_PER_HOST when it made the hosts, else 0. */
  public final int pretendRanksPerHost;
  /** The CUDA device this rank drives for cuda placements, -1 for none. */
  public final int cudaDevice;

  Topology(int[] fields) {
    worldSize = fields[0];
    worldRank = fields[1];
    hostCount = fields[2];
    hostIndex = fields[3];
    localRank = fields[4];
    localSize = fields[5];
    minRanksPerHost = fields[6];
    maxRanksPerHost = fields[7];
    pretendRanksPerHost = fields[8];
    cudaDevice = fields[9];
  }

  @Override
  public String toString() {
    return "Topology(worldSize=" + worldSize + ", worldRank=" + worldRank + ", hostCount="
        + hostCount + ", hostIndex=" + hostIndex + ", localRank=" + localRank + ", localSize="
        + localSize + ", minRanksPerHost=" + minRanksPerHost + ", maxRanksPerHost="
        + maxRanksPerHost + ", pretendRanksPerHost=" + pretendRanksPerHost + ", cudaDevice="
        + cudaDevice + ")";
  }
}
