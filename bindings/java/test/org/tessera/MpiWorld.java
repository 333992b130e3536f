package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkEq;

/**
 * The world an MPI test runs in (java_test.sh --mpi starts one JVM per rank): this
 * rank and the world size, checked against what mpirun says and what the launcher
 * asked for; finish() shuts the runtime down (mpirun fails a job whose ranks exit
 * without MPI_Finalize) and exits with the checks' verdict.
 */
final class MpiWorld {
  final int rank;
  final int size;

  private MpiWorld(int rank, int size) {
    this.rank = rank;
    this.size = size;
  }

  /** args[0], when given, is the number of ranks the launcher started. */
  static MpiWorld start(String[] args) {
    MpiWorld w = new MpiWorld(Tessera.worldRank(), Tessera.worldSize());
    Checks.label("rank " + w.rank + ": ");
    check(w.rank >= 0 && w.rank < w.size, "rank " + w.rank + " of " + w.size);
    String envRank = System.getenv("OMPI_COMM_WORLD_RANK");
    String envSize = System.getenv("OMPI_COMM_WORLD_SIZE");
    if (envRank != null) {
      checkEq(Integer.toString(w.rank), envRank, "rank vs mpirun's");
    }
    if (envSize != null) {
      checkEq(Integer.toString(w.size), envSize, "size vs mpirun's");
    }
    if (args.length > 0) {
      checkEq(Integer.toString(w.size), args[0], "size vs the launcher's");
    }
    w.checkTopology();
    return w;
  }

  /**
   * The hosts Tessera found against the launcher's: pretend hosts of
   * TESSERA_RANKS_PER_HOST, else the hosts tools/multihost.sh states (ranks placed by
   * block), else one host (plain mpirun).
   */
  private void checkTopology() {
    String pretend = System.getenv("TESSERA_RANKS_PER_HOST");
    String real = System.getenv("TESSERA_TEST_RANKS_PER_HOST");
    int perHost = pretend != null && !pretend.isEmpty() ? Integer.parseInt(pretend)
        : real != null && !real.isEmpty() ? Integer.parseInt(real) : size;
    int hosts = (size + perHost - 1) / perHost;
    int myHost = rank / perHost;
    int mySize = Math.min(perHost, size - myHost * perHost);
    Topology t = Tessera.topology();
    checkEq(t.worldSize, size, "topology worldSize");
    checkEq(t.worldRank, rank, "topology worldRank");
    checkEq(t.hostCount, hosts, "topology hostCount");
    checkEq(t.hostIndex, myHost, "topology hostIndex");
    checkEq(t.localRank, rank % perHost, "topology localRank");
    checkEq(t.localSize, mySize, "topology localSize");
    checkEq(t.maxRanksPerHost, Math.min(perHost, size), "topology maxRanksPerHost");
    checkEq(t.pretendRanksPerHost, pretend != null && !pretend.isEmpty() ? perHost : 0,
        "topology pretendRanksPerHost");
    for (int r = 0; r < size; ++r) {
      int[] hl = Tessera.rankHost(r);
      check(hl[0] == r / perHost && hl[1] == r % perHost, "rankHost(" + r + ")");
    }
    check(Tessera.topologyString().startsWith(size + " rank" + (size == 1 ? "" : "s") + " on "
        + hosts + " host"), Tessera.topologyString());
  }

  void finish() {
    Tessera.shutdown();
    Checks.finish();
  }
}
