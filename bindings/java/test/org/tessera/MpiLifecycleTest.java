package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkEq;

/**
 * A program under mpirun (java_test.sh --mpi N): loading and local calls start nothing,
 * the first call that needs the runtime initialises MPI, a collective works, a bad call
 * throws its code's subclass on every rank, unclosed handles are freed by the Cleaner,
 * and the process exits with status 0 after Tessera.shutdown().
 */
public final class MpiLifecycleTest {
  public static void main(String[] args) throws InterruptedException {
    check(!Tessera.isInitialized(), "not initialised before any call");
    try (Placement p = Placement.parse("cpu:[0,1,2]");
        NdSbp s = NdSbp.parse("S(0)");
        Layout l = Layout.create(p, s, new long[] {7}, 2)) {
      checkEq(l.numElements(), 2L, "layout before init");
    }
    check(!LifecycleTest.runtimeStarted(), "no runtime (no MPI) after loading and local calls");
    MpiWorld w = MpiWorld.start(args); // worldRank(): the first use initialises MPI
    check(Tessera.isInitialized(), "initialised on first use");
    float[] data = {w.rank, 1};
    Collectives.allreduce(data, Collectives.REDUCE_SUM, null, Collectives.ALLREDUCE_FLAT);
    checkEq(data[0], (float) (w.size * (w.size - 1) / 2), "allreduce of ranks");
    checkEq(data[1], (float) w.size, "allreduce of ones");
    try (Placement outside = Placement.parse("cpu:[0-" + w.size + "]");
        NdSbp s0 = NdSbp.parse("S(0)")) {
      try {
        Tensor.fromLocal(new float[] {0, 0}, new long[] {1, 2}, outside, s0, null).close();
        check(false, "placement outside the world: no exception");
      } catch (OutOfRangeException e) {
        check(e.getStatusMessage().contains("names rank " + w.size),
            "outside the world: " + e.getStatusMessage());
      }
    }
    // Unclosed tensors (collective creation), freed by the Cleaner before shutdown.
    long collected0 = Handle.collectedCount.get();
    try (Placement p = Placement.parse("cpu:0-" + (w.size - 1));
        NdSbp s = NdSbp.parse("S(0)")) {
      for (int i = 0; i < 20; ++i) Tensor.ones(new long[] {7}, "f32", p, s);
    }
    check(LifecycleTest.gcUntil(() -> Handle.collectedCount.get() - collected0 >= 20),
        "unclosed tensors freed: " + (Handle.collectedCount.get() - collected0) + " of 20");
    w.finish(); // Tessera.shutdown(), then exit 0 when every check passed
  }
}
