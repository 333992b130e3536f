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
    return w;
  }

  void finish() {
    Tessera.shutdown();
    Checks.finish();
  }
}
