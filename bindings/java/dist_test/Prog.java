import java.util.Arrays;
import org.tessera.Collectives;
import org.tessera.NdSbp;
import org.tessera.Placement;
import org.tessera.Tensor;
import org.tessera.Tessera;

/**
 * A user's program, compiled and run outside the source tree with only the jar on the
 * class path (bindings/java/jar_test.sh): `java -cp tessera-<v>.jar:. Prog N` on N
 * ranks. Every expected value is derived here, independently of Tessera: closed forms
 * and plain loops. Prints "rank R/N ok ..." and exits 0, or names what differs and
 * exits 1.
 */
public final class Prog {
  private static int failures = 0;
  private static String rankTag = "";

  private static void expect(boolean ok, String what) {
    if (!ok) {
      ++failures;
      System.err.println(rankTag + "FAIL: " + what);
    }
  }

  public static void main(String[] args) {
    int n = Integer.parseInt(args[0]);
    int rank = Tessera.worldRank();
    int size = Tessera.worldSize();
    rankTag = "rank " + rank + "/" + size + ": ";
    expect(size == n, "world size " + size + ", expected " + n);

    // 1. All-reduce: rank r contributes {r + 1, (r + 1)^2}; sums 1..n and 1^2..n^2.
    long[] v = {rank + 1, (long) (rank + 1) * (rank + 1)};
    Collectives.allreduce(v, Collectives.REDUCE_SUM, null, Collectives.ALLREDUCE_AUTO);
    long sum = (long) n * (n + 1) / 2;
    long sumSq = (long) n * (n + 1) * (2L * n + 1) / 6;
    expect(v[0] == sum && v[1] == sumSq, "allreduce " + Arrays.toString(v) + ", expected ["
        + sum + ", " + sumSq + "]");

    // 2. A global tensor: x = 1..12 (f64) split over the world's ranks on dim 0;
    // y = x * x + x, gathered: y[i] = (i+1)(i+2), total sum_{k=1}^{12} k^2 + k = 728.
    StringBuilder ranks = new StringBuilder();
    for (int r = 0; r < n; ++r) ranks.append(r == 0 ? "" : ",").append(r);
    double[] x = new double[12];
    for (int i = 0; i < 12; ++i) x[i] = i + 1;
    double total = 0;
    try (Placement p = Placement.parse("cpu:[" + ranks + "]");
        NdSbp s0 = NdSbp.parse("S(0)");
        Tensor xt = Tensor.fromHost(x, new long[] {12}, p, s0);
        Tensor sq = xt.mul(xt);
        Tensor y = sq.add(xt)) {
      expect(Arrays.equals(xt.localShape(), new long[] {12 / n}),
          "local shape " + Arrays.toString(xt.localShape()) + ", expected [" + 12 / n + "]");
      double[] local = xt.localDoubleArray();
      for (int i = 0; i < local.length; ++i) {
        expect(local[i] == rank * (12 / n) + i + 1, "local x[" + i + "] = " + local[i]);
      }
      double[] got = y.toDoubleArray();
      for (int i = 0; i < 12; ++i) {
        expect(got[i] == (double) (i + 1) * (i + 2), "y[" + i + "] = " + got[i]);
        total += got[i];
      }
      expect(total == 728.0, "sum of y " + total + ", expected 728");
    }

    // 3. A matmul on broadcast inputs against a plain triple loop.
    float[] a = {1, 2, 3, 4, 5, 6};       // 2x3
    float[] b = {7, 8, 9, 10, 11, 12};    // 3x2
    float[] want = new float[4];
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        for (int k = 0; k < 3; ++k) want[i * 2 + j] += a[i * 3 + k] * b[k * 2 + j];
      }
    }
    try (Placement p = Placement.parse("cpu:[" + ranks + "]");
        NdSbp bc = NdSbp.parse("B");
        Tensor at = Tensor.fromHost(a, new long[] {2, 3}, p, bc);
        Tensor bt = Tensor.fromHost(b, new long[] {3, 2}, p, bc);
        Tensor c = at.matmul(bt)) {
      float[] got = c.toFloatArray();
      expect(Arrays.equals(got, want), "matmul " + Arrays.toString(got) + ", expected "
          + Arrays.toString(want));
    }

    System.out.println(rankTag + (failures == 0 ? "ok" : failures + " failures")
        + " allreduce=" + Arrays.toString(v) + " sum(y)=" + total + " version="
        + Tessera.version() + " native=" + Tessera.nativeLibrary());
    Tessera.shutdown();
    System.exit(failures == 0 ? 0 : 1);
  }
}
