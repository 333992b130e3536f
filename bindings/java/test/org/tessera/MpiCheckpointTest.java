package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkArray;
import static org.tessera.Checks.checkEq;
import static org.tessera.Checks.checkThrows;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Checkpoints from Java on every rank of an mpirun world (java_test.sh --mpi; 1 and 3
 * ranks): Checkpoint.save, CheckpointIndex, Checkpoint.load into other layouts (values
 * compared with the arrays saved), the shape/dtype check, and a corrupted shard thrown
 * as DataLossException on every rank, naming the file.
 */
public final class MpiCheckpointTest {
  private static MpiWorld w;

  /** Multiples of 1/4, distinct per element and per salt. */
  static double[] values(int n, int salt) {
    double[] v = new double[n];
    for (int i = 0; i < n; ++i) v[i] = ((i * 7 + salt) % 23 - 11) * 0.25;
    return v;
  }

  static String base() {
    String tmp = System.getenv("TEST_TMPDIR");
    return tmp != null ? tmp : System.getProperty("java.io.tmpdir");
  }

  static void barrier(Placement world) {
    Collectives.allreduce(new int[1], Collectives.REDUCE_SUM, world, Collectives.ALLREDUCE_FLAT);
  }

  public static void main(String[] args) throws Exception {
    w = MpiWorld.start(args);
    Placement world = Placement.parse("cpu:0-" + (w.size - 1));
    String dir = Paths.get(base(), "java_ck").toString();
    double[] wv = values(35, 1);
    long[] step = {7};
    Map<String, Tensor> tensors = new LinkedHashMap<>();
    tensors.put("w", Tensor.fromHost(wv, new long[] {7, 5}, world, NdSbp.parse("S(1)")));
    tensors.put("step", Tensor.fromHost(step, new long[] {}, world, NdSbp.parse("B")));
    Checkpoint.save(dir, tensors);

    try (CheckpointIndex index = CheckpointIndex.open(dir)) {
      checkEq(index.numTensors(), 2L, "numTensors");
      checkEq(index.name(0), "w", "name 0");
      checkEq(index.name(1), "step", "name 1");
      checkEq(index.name(2), "", "name past the end");
      checkArray(index.shape(0), new long[] {7, 5}, "shape");
      checkEq(index.shape(1).length, 0, "scalar shape");
      checkEq(index.dtype(0), "f64", "dtype");
      checkEq(index.placement(0), world.toString(), "placement");
      checkEq(index.ndSbp(0), "S(1)", "nd-sbp");
      checkEq(index.numShards(0), (long) Math.min(w.size, 5), "shards: 5 columns over the ranks");
      checkThrows(() -> index.dtype(2), Status.INVALID_ARGUMENT, "tensor index 2", "dtype(2)");
    }
    for (String sbp : new String[] {"S(0)", "S(1)", "B", "P"}) {
      Tensor t = Checkpoint.load(dir, "w", world, NdSbp.parse(sbp));
      checkEq(t.ndSbp().toString(), sbp, "loaded as " + sbp);
      checkArray(t.toDoubleArray(), wv, "w as " + sbp);
    }
    Placement last = Placement.parse("cpu:[" + (w.size - 1) + "]");
    Tensor s = Checkpoint.load(dir, "step", last, NdSbp.parse("B"), new long[] {}, "i64");
    checkArray(s.toLongArray(), step, "step");

    checkThrows(() -> Checkpoint.load(dir, "nope", world, NdSbp.parse("B")), Status.NOT_FOUND,
        "has no tensor \"nope\"", "unknown name");
    checkThrows(() -> Checkpoint.load(dir, "w", world, NdSbp.parse("B"), new long[] {5, 7}, "f64"),
        Status.INVALID_ARGUMENT, "not the shape [5,7] asked for", "shape mismatch");
    checkThrows(() -> CheckpointIndex.open(Paths.get(base(), "java_absent").toString()),
        Status.NOT_FOUND, "missing checkpoint index", "no checkpoint");

    // One flipped byte in the first tensor's data ("w" comes first in every file that
    // holds it) of the last rank's shard: every rank throws.
    Path shard = Paths.get(dir, String.format("rank-%05d.safetensors", w.size - 1));
    if (w.rank == 0) {
      try (RandomAccessFile f = new RandomAccessFile(shard.toFile(), "rw")) {
        long headerBytes = Long.reverseBytes(f.readLong());  // little-endian on disk
        long at = 8 + headerBytes;
        f.seek(at);
        int b = f.read();
        f.seek(at);
        f.write(b ^ 0x40);
      }
    }
    barrier(world);
    check(Files.exists(shard), "the shard exists");
    checkThrows(() -> Checkpoint.load(dir, "w", world, NdSbp.parse("S(1)")), Status.DATA_LOSS,
        "corrupt shard of tensor \"w\" in " + shard, "corrupt shard");
    w.finish();
  }
}
