package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkEq;
import static org.tessera.Checks.checkThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/** The Java tensor API in a world of one rank: creation, data, ops, bad inputs. */
public final class TensorTest {
  private static void checkNear(float[] got, float[] want, float tol, String what) {
    boolean ok = got.length == want.length;
    for (int i = 0; ok && i < got.length; ++i) {
      ok = Math.abs(got[i] - want[i]) <= tol * (1 + Math.abs(want[i]));
    }
    check(ok, what + ": got " + Arrays.toString(got) + ", want " + Arrays.toString(want));
  }

  private static final float[] X = {-1.5f, 2.0f, 0.5f, 3.0f, -4.0f, 1.0f};  // [2,3]
  private static final float[] Y = {2.0f, -0.5f, 4.0f};  // [3], broadcast

  private static void creationAndData(Placement p, NdSbp s0, NdSbp b) {
    try (Tensor f = Tensor.fromHost(X, new long[] {2, 3}, p, s0);
        Tensor d = Tensor.fromHost(new double[] {0.25, -8}, new long[] {2}, p, b);
        Tensor i = Tensor.fromHost(new int[] {7, -7, 9}, new long[] {3}, p, s0);
        Tensor l = Tensor.fromHost(new long[] {1L << 40}, new long[] {1}, p, b);
        Placement tp = f.placement();
        NdSbp ts = f.ndSbp()) {
      check(Arrays.equals(f.toFloatArray(), X), "f32 round trip");
      check(Arrays.equals(d.toDoubleArray(), new double[] {0.25, -8}), "f64 round trip");
      check(Arrays.equals(i.toIntArray(), new int[] {7, -7, 9}), "i32 round trip");
      check(Arrays.equals(l.toLongArray(), new long[] {1L << 40}), "i64 round trip");
      checkEq(f.toString(), "[2,3] f32 cpu:[0] S(0)", "toString");
      check(Arrays.equals(f.shape(), new long[] {2, 3}), "shape");
      checkEq(f.ndim(), 2L, "ndim");
      checkEq(f.dim(1), 3L, "dim");
      checkEq(f.numElements(), 6L, "numElements");
      checkEq(f.dtype(), "f32", "dtype");
      checkEq(tp.toString(), "cpu:[0]", "placement");
      checkEq(ts.toString(), "S(0)", "ndSbp");
      check(f.hasLocal(), "hasLocal");
      check(Arrays.equals(f.localShape(), new long[] {2, 3}), "localShape");
      checkEq(f.localNumElements(), 6L, "localNumElements");
      check(Arrays.equals(f.localFloatArray(), X), "localFloatArray");
      check(Arrays.equals(i.localIntArray(), new int[] {7, -7, 9}), "localIntArray");
      // Direct buffers in and out.
      ByteBuffer in = ByteBuffer.allocateDirect(24).order(ByteOrder.nativeOrder());
      in.asFloatBuffer().put(X);
      try (Tensor fb = Tensor.fromHost(in, new long[] {2, 3}, "f32", p, b)) {
        ByteBuffer out = ByteBuffer.allocateDirect(24).order(ByteOrder.nativeOrder());
        fb.toHost(out);
        float[] back = new float[6];
        out.asFloatBuffer().get(back);
        check(Arrays.equals(back, X), "ByteBuffer round trip");
        ByteBuffer local = ByteBuffer.allocateDirect(24).order(ByteOrder.nativeOrder());
        fb.copyLocal(local);
        local.asFloatBuffer().get(back);
        check(Arrays.equals(back, X), "copyLocal");
        fb.synchronize(); // cpu: returns at once, nothing to report
        checkThrows(() -> fb.toHost(ByteBuffer.allocateDirect(8)), Status.INVALID_ARGUMENT,
            "tess_tensor_to_host: out has 8 bytes but 6 f32 elements need 24", "small out");
        try {
          fb.toHost(ByteBuffer.allocate(24));
          check(false, "heap buffer accepted");
        } catch (IllegalArgumentException e) {
          check(e.getMessage().contains("direct"), "heap buffer message");
        }
      }
      checkThrows(() -> f.toDoubleArray(), Status.INVALID_ARGUMENT,
          "Tensor.toDoubleArray: the tensor is f32, not f64", "wrong dtype out");
      checkThrows(() -> i.localFloatArray(), Status.INVALID_ARGUMENT,
          "the tensor is i32, not f32", "wrong local dtype");
      checkThrows(() -> f.dim(2), Status.OUT_OF_RANGE,
          "Tensor.dim: dim 2 is outside the shape [2,3] (2 dims)", "dim 2");
    }
    try (Tensor local = Tensor.fromLocal(X, new long[] {3, 2}, p, s0, null);
        Tensor given = Tensor.fromLocal(X, new long[] {3, 2}, p, s0, new long[] {3, 2});
        Tensor z = Tensor.zeros(new long[] {2}, "f64", p, b);
        Tensor o = Tensor.ones(new long[] {2}, "i32", p, b);
        Tensor full = Tensor.full(new long[] {3}, "i64", -4, p, s0);
        Tensor ar = Tensor.arange(2, 11, 3, "i64", p, s0);
        Tensor r1 = Tensor.rand(new long[] {3, 4}, "f32", 42, p, s0);
        Tensor r2 = Tensor.rand(new long[] {3, 4}, "f32", 42, p, b);
        Tensor n = Tensor.randn(new long[] {50}, "f64", -1L, p, b)) {
      check(Arrays.equals(local.shape(), new long[] {3, 2}), "fromLocal inferred shape");
      check(Arrays.equals(given.toFloatArray(), X), "fromLocal values");
      check(Arrays.equals(z.toDoubleArray(), new double[] {0, 0}), "zeros");
      check(Arrays.equals(o.toIntArray(), new int[] {1, 1}), "ones");
      check(Arrays.equals(full.toLongArray(), new long[] {-4, -4, -4}), "full");
      check(Arrays.equals(ar.toLongArray(), new long[] {2, 5, 8}), "arange");
      float[] u = r1.toFloatArray();
      check(Arrays.equals(u, r2.toFloatArray()), "rand does not depend on the layout");
      boolean inRange = true;
      for (float v : u) inRange &= v >= 0 && v < 1;
      check(inRange, "rand in [0, 1)");
      boolean neg = false;
      for (double v : n.toDoubleArray()) neg |= v < 0;
      check(neg, "randn has negative values");
    }
    checkThrows(() -> Tensor.fromHost(X, new long[] {4, 2}, p, s0), Status.INVALID_ARGUMENT,
        "Tensor.fromHost: data has 6 elements but shape [4, 2] needs 8", "length mismatch");
    checkThrows(() -> Tensor.fromHost(ByteBuffer.allocateDirect(4), new long[] {2}, "f32", p, b),
        Status.INVALID_ARGUMENT, "buffer has 4 bytes but 2 f32 elements need 8", "small buffer");
    checkThrows(() -> Tensor.fromHost(X, new long[] {2, 3}, p, null), Status.INVALID_ARGUMENT,
        "tess_tensor_from_host: argument \"nd_sbp\" is NULL", "null nd-sbp");
    checkThrows(() -> Tensor.fromHost(X, new long[] {2, 3}, null, s0), Status.INVALID_ARGUMENT,
        "argument \"placement\" is NULL", "null placement");
    checkThrows(() -> Tensor.fromHost(X, new long[] {-2, -3}, p, s0), Status.INVALID_ARGUMENT,
        "", "negative dims");
    checkThrows(() -> Tensor.fromHost(null, new long[] {2}, "bf16", p, b),
        Status.INVALID_ARGUMENT, "host buffer is NULL but the tensor [2] bf16", "bf16 null");
    checkThrows(() -> Tensor.fromHost(null, new long[] {2}, "f8", p, b),
        Status.INVALID_ARGUMENT, "unknown dtype \"f8\"", "unknown dtype");
    try (NdSbp s2 = NdSbp.parse("S(2)")) {
      checkThrows(() -> Tensor.fromHost(X, new long[] {2, 3}, p, s2), Status.INVALID_ARGUMENT,
          "S(2)", "bad nd-sbp");
    }
    checkThrows(() -> Tensor.fromLocal(X, new long[] {3, 2}, p, s0, new long[] {4, 2}),
        Status.INVALID_ARGUMENT, "local shape [3,2] is not its part [4,2]", "bad logical shape");
    checkThrows(() -> Tensor.fromLocal(X, new long[] {3, 2}, p, s0, new long[] {6}),
        Status.INVALID_ARGUMENT, "logical shape [6] has 1 dims but the local shape", "ndim");
    checkThrows(() -> Tensor.full(new long[] {2}, "i32", 0.5, p, b), Status.INVALID_ARGUMENT,
        "value 0.5 is not representable as i32", "full 0.5");
    checkThrows(() -> Tensor.arange(0, 1, 0, "f32", p, b), Status.INVALID_ARGUMENT,
        "step non-zero", "arange step 0");
    checkThrows(() -> Tensor.rand(new long[] {2}, "i64", 1, p, b), Status.INVALID_ARGUMENT,
        "dtype i64 is not a floating type", "rand i64");
    Tensor closed = Tensor.zeros(new long[] {1}, "f32", p, b);
    closed.close();
    closed.close();
    checkThrows(() -> closed.numElements(), Status.INVALID_ARGUMENT,
        "tess_tensor_num_elements: argument \"tensor\" is NULL", "use after close");
    try (Placement other = Placement.parse("cpu:[1]");
        Tensor outside = Tensor.ones(new long[] {2}, "f32", other, b)) {
      check(!outside.hasLocal(), "outside has no local");
      checkThrows(() -> outside.localFloatArray(), Status.FAILED_PRECONDITION,
          "rank 0 holds no local piece", "outside local");
    }
  }

  private interface FloatOp {
    float apply(float a, float b);
  }

  private static float[] broadcastOracle(FloatOp op) {
    float[] want = new float[6];
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) want[i * 3 + j] = op.apply(X[i * 3 + j], Y[j]);
    }
    return want;
  }

  private static void ops(Placement p, NdSbp s0, NdSbp b) {
    try (Tensor x = Tensor.fromHost(X, new long[] {2, 3}, p, s0);
        Tensor y = Tensor.fromHost(Y, new long[] {3}, p, b);
        Tensor add = x.add(y);
        Tensor sub = x.sub(y);
        Tensor mul = x.mul(y);
        Tensor div = x.div(y);
        Tensor max = x.maximum(y);
        Tensor min = x.minimum(y)) {
      checkNear(add.toFloatArray(), broadcastOracle((u, v) -> u + v), 0, "add");
      checkNear(sub.toFloatArray(), broadcastOracle((u, v) -> u - v), 0, "sub");
      checkNear(mul.toFloatArray(), broadcastOracle((u, v) -> u * v), 0, "mul");
      checkNear(div.toFloatArray(), broadcastOracle((u, v) -> u / v), 1e-6f, "div");
      checkNear(max.toFloatArray(), broadcastOracle(Math::max), 0, "maximum");
      checkNear(min.toFloatArray(), broadcastOracle(Math::min), 0, "minimum");
      float[] relu = new float[6], sig = new float[6], tanh = new float[6], exp = new float[6];
      float[] neg = new float[6], sqrt = new float[6], gelu = new float[6];
      float[] abs = new float[6];
      for (int i = 0; i < 6; ++i) {
        float v = X[i];
        relu[i] = Math.max(v, 0);
        sig[i] = (float) (1 / (1 + Math.exp(-v)));
        tanh[i] = (float) Math.tanh(v);
        exp[i] = (float) Math.exp(v);
        neg[i] = -v;
        abs[i] = Math.abs(v);
        sqrt[i] = (float) Math.sqrt(abs[i]);
        // x * Phi(x) with Phi from the tanh approximation (within 1e-3 of erf's).
        gelu[i] = (float) (0.5 * v
            * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v * v * v))));
      }
      try (Tensor r = x.relu(); Tensor s = x.sigmoid(); Tensor t = x.tanh(); Tensor e = x.exp();
          Tensor n = x.neg(); Tensor g = x.gelu();
          Tensor a = Tensor.fromHost(abs, new long[] {2, 3}, p, b); Tensor q = a.sqrt()) {
        checkNear(r.toFloatArray(), relu, 0, "relu");
        checkNear(s.toFloatArray(), sig, 1e-5f, "sigmoid");
        checkNear(t.toFloatArray(), tanh, 1e-5f, "tanh");
        checkNear(e.toFloatArray(), exp, 1e-5f, "exp");
        checkNear(n.toFloatArray(), neg, 0, "neg");
        checkNear(g.toFloatArray(), gelu, 1e-3f, "gelu");
        checkNear(q.toFloatArray(), sqrt, 1e-6f, "sqrt");
      }
      // matmul: x [2,3] @ x^T [3,2].
      float[] mm = new float[4];
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
          for (int k = 0; k < 3; ++k) mm[i * 2 + j] += X[i * 3 + k] * X[j * 3 + k];
        }
      }
      try (Tensor m = x.matmul(x, false, true)) {
        check(Arrays.equals(m.shape(), new long[] {2, 2}), "matmul shape");
        checkNear(m.toFloatArray(), mm, 1e-6f, "matmul");
      }
      checkThrows(() -> x.matmul(x), Status.INVALID_ARGUMENT, "tess_matmul: matmul",
          "matmul shapes");
      // Reductions over axis 1 and over everything; softmax along the last axis.
      float[] sum1 = new float[2], max1 = {-1e30f, -1e30f}, min1 = {1e30f, 1e30f};
      float total = 0;
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) {
          float v = X[i * 3 + j];
          sum1[i] += v;
          max1[i] = Math.max(max1[i], v);
          min1[i] = Math.min(min1[i], v);
          total += v;
        }
      }
      try (Tensor rs = x.reduceSum(new long[] {1}, false);
          Tensor rm = x.reduceMean(null, false);
          Tensor rx = x.reduceMax(new long[] {-1}, true);
          Tensor rn = x.reduceMin(new long[] {1}, false);
          Tensor sm = x.softmax(-1)) {
        checkNear(rs.toFloatArray(), sum1, 1e-6f, "reduceSum");
        checkNear(rm.toFloatArray(), new float[] {total / 6}, 1e-6f, "reduceMean");
        check(Arrays.equals(rx.shape(), new long[] {2, 1}), "keepdims shape");
        checkNear(rx.toFloatArray(), max1, 0, "reduceMax");
        checkNear(rn.toFloatArray(), min1, 0, "reduceMin");
        float[] want = new float[6];
        for (int i = 0; i < 2; ++i) {
          double z = 0;
          for (int j = 0; j < 3; ++j) z += Math.exp(X[i * 3 + j]);
          for (int j = 0; j < 3; ++j) want[i * 3 + j] = (float) (Math.exp(X[i * 3 + j]) / z);
        }
        checkNear(sm.toFloatArray(), want, 1e-5f, "softmax");
      }
      checkThrows(() -> x.reduceSum(new long[] {5}, false), Status.INVALID_ARGUMENT,
          "tess_reduce_sum: reduce_sum", "reduce axis 5");
      checkThrows(() -> x.softmax(4), Status.INVALID_ARGUMENT, "tess_softmax: softmax",
          "softmax axis 4");
      try (Tensor z = Tensor.fromHost(new float[] {1, 2}, new long[] {2}, p, b)) {
        checkThrows(() -> x.add(z), Status.INVALID_ARGUMENT, "tess_add: add", "add shapes");
      }
      checkThrows(() -> x.add(null), Status.INVALID_ARGUMENT,
          "tess_add: argument \"y\" is NULL", "add null");
      try (Tensor ints = Tensor.arange(0, 3, 1, "i32", p, b)) {
        checkThrows(() -> ints.gelu(), Status.INVALID_ARGUMENT, "tess_gelu: gelu", "gelu i32");
      }
      // The generic call, with an attribute and a constraint.
      try (OpCall call = new OpCall("scalar_mul").attr("value", -2.0)) {
        Tensor[] out = call.apply(x);
        checkEq(out.length, 1, "apply outputs");
        float[] want = new float[6];
        for (int i = 0; i < 6; ++i) want[i] = X[i] * -2;
        checkNear(out[0].toFloatArray(), want, 0, "scalar_mul");
        out[0].close();
      }
      try (OpCall call = new OpCall("add").constrainOutput(0, "S(1)")) {
        Tensor[] out = Tensor.apply(call, x, y);
        try (NdSbp s = out[0].ndSbp()) {
          checkEq(s.toString(), "S(1)", "constrained output");
        }
        out[0].close();
        try (Explanation e = Inference.explainLast()) {
          check(e.text().contains("add"), "explainLast text");
          check(e.json().contains("\"op\": \"add\""), "explainLast json");
        }
      }
      try (OpCall call = new OpCall("relu").input(new long[] {2, 3}, "f32", p, s0)) {
        checkThrows(() -> call.apply(x), Status.INVALID_ARGUMENT,
            "tess_op_call_add_input is for inference", "apply with metas");
      }
      try (OpCall call = new OpCall("scalar_add")) {
        checkThrows(() -> call.apply(x), Status.INVALID_ARGUMENT, "value", "missing attr");
        checkThrows(() -> call.apply(x, null), Status.INVALID_ARGUMENT,
            "tess_op_call_apply: inputs[1] is NULL", "null input");
      }
    }
  }

  /**
   * Tessera.cudaInfo, and a cuda placement behaving as it says: UNIMPLEMENTED without a
   * CUDA build, UNAVAILABLE without a device, a round trip through add with one.
   */
  private static void cuda(NdSbp s0, NdSbp b) {
    CudaInfo info = Tessera.cudaInfo();
    check(info.deviceCount >= 0, "deviceCount >= 0: " + info);
    check(info.builtWithCuda || info.deviceCount == 0, "no devices without CUDA: " + info);
    // BUILD sets it from the build configuration (tools/cuda.bzl's if_cuda).
    String built = System.getenv("TESSERA_TEST_CUDA_BUILD");
    if (built != null) {
      checkEq(info.builtWithCuda, built.equals("1"), "builtWithCuda vs the build: " + info);
    }
    checkEq(info.toString(), Tessera.cudaInfo().toString(), "cudaInfo is stable");
    float[] y = new float[X.length];
    for (int i = 0; i < y.length; ++i) y[i] = (i * 5 % 17 - 8) * 0.5f;
    long[] shape = {2, 3};
    try (Placement cuda = Placement.parse("cuda:[0]")) {
      if (!info.builtWithCuda) {
        checkThrows(() -> Tensor.fromHost(X, shape, cuda, s0), Status.UNIMPLEMENTED,
            "tess_tensor_from_host: eager tensors on cuda:[0]: this Tessera was built without "
                + "CUDA, so only cpu placements hold eager tensors (build with --config=cuda)",
            "cuda without a CUDA build");
        return;
      }
      if (info.deviceCount == 0) {
        checkThrows(() -> Tensor.fromHost(X, shape, cuda, s0), Status.UNAVAILABLE,
            "no CUDA device visible", "cuda without a device");
        return;
      }
      try (Tensor tx = Tensor.fromHost(X, shape, cuda, s0);
          Tensor ty = Tensor.fromHost(y, shape, cuda, b);
          Tensor sum = tx.add(ty)) {
        float[] want = new float[X.length];
        for (int i = 0; i < want.length; ++i) want[i] = X[i] + y[i];
        check(Arrays.equals(sum.toFloatArray(), want),
            "cuda add: got " + Arrays.toString(sum.toFloatArray()) + ", want "
                + Arrays.toString(want));
        check(sum.toString().startsWith("[2,3] f32 cuda:[0] "), "cuda sum: " + sum);
      }
    }
  }

  // abs and pow (added through the op table) and generated Ops methods with a repeated
  // input, several outputs and a dtype attribute.
  private static void generatedOps(Placement p, NdSbp s0, NdSbp b) {
    float[] exps = {2, 3, 0};
    float[] abs = new float[6], pow = new float[6], sum = new float[6];
    for (int i = 0; i < 6; ++i) {
      abs[i] = Math.abs(X[i]);
      pow[i] = (float) Math.pow(X[i], exps[i % 3]);
      sum[i] = 2 * X[i] + abs[i];
    }
    try (Tensor x = Tensor.fromHost(X, new long[] {2, 3}, p, s0);
        Tensor e = Tensor.fromHost(exps, new long[] {3}, p, b);
        Tensor a = x.abs();
        Tensor a2 = Ops.abs(x);
        Tensor w = x.pow(e);
        Tensor n = Ops.addN(new Tensor[] {x, x, a});
        Tensor d = Ops.cast(x, "f64");
        Tensor g = Tensor.fromHost(new float[] {1, 1, 1}, new long[] {3}, p, b);
        Tensor z = Tensor.fromHost(new float[] {0, 0, 0}, new long[] {3}, p, b)) {
      checkNear(a.toFloatArray(), abs, 0, "abs");
      checkNear(a2.toFloatArray(), abs, 0, "Ops.abs");
      checkNear(w.toFloatArray(), pow, 1e-6f, "pow");
      checkNear(n.toFloatArray(), sum, 1e-6f, "addN");
      check(d.dtype().equals("f64"), "cast dtype " + d.dtype());
      Tensor[] ln = Ops.layerNorm(x, g, z);
      try (Tensor y = ln[0]; Tensor mean = ln[1]; Tensor inv = ln[2]) {
        checkNear(mean.toFloatArray(), new float[] {1.0f / 3, 0}, 1e-6f, "layerNorm mean");
        check(y.toFloatArray().length == 6 && inv.toFloatArray().length == 2, "layerNorm shapes");
      }
      checkThrows(() -> Ops.pow(x, null), Status.INVALID_ARGUMENT,
          "tess_pow: argument \"y\" is NULL", "pow null");
    }
  }

  // f16/bf16 as raw bits. By hand from the formats: f16 1, 2, 0.5, 3 are 0x3c00, 0x4000,
  // 0x3800, 0x4200 and their doubles 2, 4, 1, 6 are 0x4000, 0x4400, 0x3c00, 0x4600;
  // bf16 is float's top half.
  private static void halfBits(Placement p, NdSbp s0) {
    short[][] in = {{0x3c00, 0x4000, 0x3800, 0x4200}, {0x3f80, 0x4000, 0x3f00, 0x4040}};
    short[][] doubled = {{0x4000, 0x4400, 0x3c00, 0x4600}, {0x4000, 0x4080, 0x3f80, 0x40c0}};
    String[] dtypes = {"f16", "bf16"};
    for (int k = 0; k < 2; ++k) {
      try (Tensor x = Tensor.fromHostBits(in[k], new long[] {4}, dtypes[k], p, s0);
          Tensor sum = x.add(x)) {
        checkEq(x.dtype(), dtypes[k], "half dtype");
        check(Arrays.equals(x.toBitsArray(), in[k]), dtypes[k] + " round trip");
        check(Arrays.equals(sum.toBitsArray(), doubled[k]), dtypes[k] + " x + x");
      }
    }
    checkThrows(() -> Tensor.fromHostBits(new short[2], new long[] {2}, "f32", p, s0),
        Status.INVALID_ARGUMENT, "Tensor.fromHostBits: dtype f32 is not a 2-byte float",
        "fromHostBits f32");
    checkThrows(() -> Tensor.fromHostBits(new short[2], new long[] {3}, "f16", p, s0),
        Status.INVALID_ARGUMENT, "Tensor.fromHostBits: data has 2 elements", "fromHostBits len");
    try (Tensor f = Tensor.fromHost(new float[] {1}, new long[] {1}, p, s0)) {
      checkThrows(() -> f.toBitsArray(), Status.INVALID_ARGUMENT,
          "Tensor.toBitsArray: dtype f32 is not a 2-byte float", "toBitsArray f32");
    }
  }

  public static void main(String[] args) {
    try (Placement p = Placement.parse("cpu:[0]");
        NdSbp s0 = NdSbp.parse("S(0)");
        NdSbp b = NdSbp.parse("B")) {
      creationAndData(p, s0, b);
      ops(p, s0, b);
      generatedOps(p, s0, b);
      cuda(s0, b);
      halfBits(p, s0);
    }
    Thread fresh = new Thread(() -> checkThrows(() -> Inference.explainLast(),
        Status.FAILED_PRECONDITION, "this thread has run no op yet", "explainLast fresh"));
    fresh.start();
    try {
      fresh.join();
    } catch (InterruptedException e) {
      check(false, "interrupted");
    }
    Checks.finish();
  }
}
