package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkArray;
import static org.tessera.Checks.checkEq;
import static org.tessera.Checks.checkThrows;

import java.util.Arrays;

/** The Java binding's test: every function of tessera.h, happy and bad-input cases. */
public final class TesseraTest {
  private static void versionAndStatus() {
    checkEq(Tessera.version(),
        Tessera.VERSION_MAJOR + "." + Tessera.VERSION_MINOR + "." + Tessera.VERSION_PATCH, "version");
    checkEq(Tessera.versionNumber(), Tessera.VERSION_NUMBER, "versionNumber");
    checkEq(Status.name(Status.OK), "OK", "status OK");
    checkEq(Status.name(Status.INVALID_ARGUMENT), "INVALID_ARGUMENT", "status 3");
    checkEq(Status.name(Status.DATA_LOSS), "DATA_LOSS", "status 15");
    checkEq(Status.name(99), "UNKNOWN_CODE", "status 99");
    checkEq(Status.INVALID_ARGUMENT, 3, "INVALID_ARGUMENT constant");
    checkEq(Status.NOT_FOUND, 5, "NOT_FOUND constant");
  }

  private static void runtime() {
    Tessera.init(); // idempotent
    checkEq(Tessera.worldRank(), 0, "worldRank");
    checkEq(Tessera.worldSize(), 1, "worldSize");
    // One rank on one host, named as the machine is.
    Topology t = Tessera.topology();
    int device = Tessera.cudaInfo().deviceCount > 0 ? 0 : -1;
    checkEq(t.toString(), "Topology(worldSize=1, worldRank=0, hostCount=1, hostIndex=0, "
        + "localRank=0, localSize=1, minRanksPerHost=1, maxRanksPerHost=1, "
        + "pretendRanksPerHost=0, cudaDevice=" + device + ")", "topology");
    checkArray(Tessera.rankHost(0), new int[] {0, 0}, "rankHost(0)");
    checkThrows(() -> Tessera.rankHost(1), Status.OUT_OF_RANGE,
        "world_rank 1 is outside the world of 1 ranks", "rankHost(1)");
    String[] lines = Tessera.topologyString().split("\n");
    checkEq(lines[0], "1 rank on 1 host (found with MPI_COMM_TYPE_SHARED)", "topology text");
    check(lines[1].startsWith("host 0 \"") && lines[1].endsWith("\": rank 0"), lines[1]);
  }

  private static void issueExample() {
    try (Placement p = Placement.parse("cpu:[[0,1],[2,3]]");
        NdSbp s = NdSbp.parse("(S(0), S(1))");
        Layout l = Layout.create(p, s, new long[] {6, 5}, 3)) {
      checkEq(l.toString(), "[3,6)x[3,5)", "layout string");
      check(Arrays.equals(l.localShape(), new long[] {3, 2}), "local shape");
      check(Arrays.equals(l.range(0), new long[] {3, 6}), "range 0");
      check(Arrays.equals(l.range(1), new long[] {3, 5}), "range 1");
      checkEq(l.ndim(), 2L, "ndim");
      checkEq(l.localDim(1), 2L, "localDim");
      checkEq(l.numElements(), 6L, "numElements");
      checkThrows(() -> l.localDim(2), Status.OUT_OF_RANGE,
          "Layout.localDim: dim 2 is outside the shape [3,2] (2 dims)", "localDim 2");
      checkThrows(() -> l.range(5), Status.OUT_OF_RANGE, "dim 5", "range 5");
      checkThrows(() -> Layout.create(p, s, new long[] {6, 5}, 9), Status.NOT_FOUND,
          "rank 9 is not in placement cpu:[[0,1],[2,3]]", "rank 9");
      checkThrows(() -> Layout.create(p, s, new long[] {6, -5}, 0), Status.INVALID_ARGUMENT,
          "shape dim 1 is -5; dims must be >= 0", "negative dim");
      checkThrows(() -> Layout.create(p, s, new long[] {6}, 0), Status.INVALID_ARGUMENT,
          "splits tensor axis 1 but the tensor of shape [6] has 1 axes", "1-d shape");
      checkThrows(() -> Layout.create(p, s, null, 0), Status.INVALID_ARGUMENT, "shape",
          "null shape");
      try (NdSbp one = NdSbp.parse("S(0)")) {
        checkThrows(() -> Layout.create(p, one, new long[] {6, 5}, 0), Status.INVALID_ARGUMENT,
            "has 1 axes but placement", "axes mismatch");
      }
    }
  }

  private static void placementQueries() {
    try (Placement p = Placement.parse("cpu:[[0,1,2],[3,4,5]]")) {
      checkEq(p.toString(), "cpu:[[0,1,2],[3,4,5]]", "placement string");
      checkEq(p.deviceType(), Placement.DEVICE_CPU, "deviceType");
      checkEq(p.numAxes(), 2L, "numAxes");
      checkEq(p.hierarchyDim(1), 3L, "hierarchyDim");
      check(Arrays.equals(p.hierarchy(), new long[] {2, 3}), "hierarchy");
      checkEq(p.parallelNum(), 6L, "parallelNum");
      checkEq(p.rankAt(4), 4, "rankAt");
      checkEq(p.indexOf(5), 5L, "indexOf");
      check(p.contains(3), "contains 3");
      check(!p.contains(9), "!contains 9");
      try (Placement group = p.axisGroup(0, 4);
          Placement same = Placement.create(Placement.DEVICE_CPU, new int[] {0, 1, 2, 3, 4, 5},
              new long[] {2, 3})) {
        checkEq(group.toString(), "cpu:[1,4]", "axisGroup");
        check(p.equal(same) && p.equals(same), "equal");
        check(!p.equal(group) && !p.equals(group), "!equal");
        checkEq(p.hash(), same.hash(), "hash");
        checkEq(p.hashCode(), same.hashCode(), "hashCode");
      }
      checkThrows(() -> p.hierarchyDim(2), Status.OUT_OF_RANGE,
          "tess_placement_hierarchy_dim: axis 2 is outside cpu:[[0,1,2],[3,4,5]], which has 2 axes",
          "hierarchyDim 2");
      checkThrows(() -> p.rankAt(6), Status.OUT_OF_RANGE, "6", "rankAt 6");
      checkThrows(() -> p.indexOf(9), Status.NOT_FOUND,
          "rank 9 is not in placement cpu:[[0,1,2],[3,4,5]]", "indexOf 9");
      checkThrows(() -> p.axisGroup(3, 0), Status.OUT_OF_RANGE, "3", "axisGroup axis 3");
      checkThrows(() -> p.axisGroup(0, 7), Status.NOT_FOUND, "7", "axisGroup rank 7");
    }
  }

  private static void placementBadInput() {
    checkThrows(() -> Placement.parse("cpu:[0,0]"), Status.INVALID_ARGUMENT,
        "lists rank 0 twice", "duplicate rank");
    checkThrows(() -> Placement.parse("cpu:[[0,1],[2,3]"), Status.INVALID_ARGUMENT,
        "expected ']'", "unclosed");
    checkThrows(() -> Placement.parse("cpu:[]"), Status.INVALID_ARGUMENT, "empty rank list",
        "empty");
    checkThrows(() -> Placement.parse(null), Status.INVALID_ARGUMENT,
        "tess_placement_parse: argument \"text\" is NULL", "null text");
    checkThrows(() -> Placement.create(Placement.DEVICE_CPU, new int[] {0, 1, 2}, new long[] {2, 2}),
        Status.INVALID_ARGUMENT, "placement hierarchy [2,2] does not hold 3 ranks", "bad create");
    checkThrows(() -> Placement.create(5, new int[] {0, 1, 2}, new long[] {3}),
        Status.INVALID_ARGUMENT, "placement device type 5 is not cpu (0) or cuda (1)",
        "bad device");
    Placement closed = Placement.parse("cpu:[0,1]");
    closed.close();
    closed.close(); // idempotent
    checkThrows(() -> closed.numAxes(), Status.INVALID_ARGUMENT, "NULL", "use after close");
  }

  private static void ndSbp() {
    try (NdSbp s = NdSbp.parse("(S(1), P(max))");
        NdSbp made = NdSbp.create(new int[] {NdSbp.SPLIT, NdSbp.PARTIAL_MAX},
            new int[] {1, 99})) {
      checkEq(s.toString(), "(S(1), P(max))", "nd_sbp string");
      checkEq(s.numAxes(), 2L, "nd_sbp numAxes");
      check(Arrays.equals(s.get(0), new int[] {NdSbp.SPLIT, 1}), "get 0");
      checkEq(s.kind(1), NdSbp.PARTIAL_MAX, "kind 1");
      checkEq(s.splitAxis(1), -1, "splitAxis 1");
      check(s.equal(made) && s.equals(made), "nd_sbp equal");
      checkThrows(() -> s.get(2), Status.OUT_OF_RANGE,
          "tess_nd_sbp_get: axis 2 is outside (S(1), P(max)), which has 2 axes", "get 2");
    }
    checkThrows(() -> NdSbp.parse("P(avg)"), Status.INVALID_ARGUMENT,
        "\"sum\", \"max\" or \"min\"", "P(avg)");
    checkThrows(() -> NdSbp.parse("S(-9)"), Status.INVALID_ARGUMENT, "got S(-9)", "S(-9)");
    checkThrows(() -> NdSbp.parse("(S(0), B"), Status.INVALID_ARGUMENT, "", "unclosed");
    checkThrows(() -> NdSbp.create(new int[] {NdSbp.SPLIT}, new int[] {-2}),
        Status.INVALID_ARGUMENT, "tess_nd_sbp_create: axis 0: split axis -2 is outside [0, 7]",
        "bad split axis");
    checkThrows(() -> NdSbp.create(new int[] {NdSbp.SPLIT, 17}, new int[] {0, 0}),
        Status.INVALID_ARGUMENT, "axis 1: sbp kind 17", "bad kind");
    checkThrows(() -> NdSbp.create(new int[0], new int[0]), Status.INVALID_ARGUMENT,
        "tess_nd_sbp_create: num_axes is 0; expected 1 to 8", "no axes");
  }

  private static void inference() {
    Inference.cacheClear();
    try (Placement p = Placement.parse("cpu:[0,1]");
        NdSbp s0 = NdSbp.parse("S(0)");
        OpCall call = new OpCall("add").input(new long[] {4, 6}, "f32", p, s0)
            .input(new long[] {4, 6}, "f32", "cpu:[0,1]", "S(1)");
        InferResult r = call.infer();
        NdSbp out = r.outputNdSbp(0);
        NdSbp y = r.inputNdSbp(1);
        Placement outP = r.outputPlacement(0);
        Explanation e = call.explain()) {
      checkEq(call.signature(), "add(x, y) -> (out)", "signature");
      checkEq(call.numInputs(), 2L, "numInputs");
      checkEq(r.numOutputs(), 1L, "numOutputs");
      checkEq(out.toString(), "S(0)", "seed output nd-sbp");
      checkEq(y.toString(), "S(0)", "seed y boxed to S(0)");
      check(!r.needsBoxing(0) && r.needsBoxing(1), "needsBoxing");
      checkEq(r.inputCost(1), 48.0, "inputCost");
      checkEq(r.totalCost(), 48.0, "totalCost");
      checkEq(r.signatureIndex(), 0, "signatureIndex");
      check(r.numCandidates() > 1, "numCandidates");
      check(Arrays.equals(r.outputShape(0), new long[] {4, 6}), "outputShape");
      checkEq(r.outputDType(0), "f32", "outputDType");
      check(outP.equals(p), "outputPlacement");
      check(e.text().contains("  chosen: #0 x:S(0), y:S(0) -> out:S(0)\n"), "explain text");
      check(e.text().contains("    y: S(1) -> S(0) (cost 48)\n"), "explain boxing");
      check(e.json().contains("\"chosen\": 0,"), "explain json");
      checkEq(e.failure(), "", "explain failure");
      checkThrows(() -> r.outputShape(1), Status.OUT_OF_RANGE,
          "tess_infer_result_output_shape: output 1 is outside a result with 1 output",
          "outputShape 1");
      checkThrows(() -> r.inputNdSbp(2), Status.OUT_OF_RANGE,
          "input 2 is outside a result with 2 inputs", "inputNdSbp 2");
    }
    try (OpCall call = new OpCall("matmul").attr("transpose_b", true)
            .input(new long[] {64, 32}, "f32", "cpu:[0,1,2,3]", "S(0)")
            .input(new long[] {16, 32}, "f32", "cpu:[0,1,2,3]", "B");
        InferResult r = call.infer();
        NdSbp out = r.outputNdSbp(0)) {
      checkEq(out.toString(), "S(0)", "matmul output");
      check(!r.needsBoxing(0) && !r.needsBoxing(1), "matmul no boxing");
      check(Arrays.equals(r.outputShape(0), new long[] {64, 16}), "matmul shape");
    }
    try (OpCall call = new OpCall("matmul")
            .input(new long[] {8, 6}, "f64", "cpu:[[0,1],[2,3]]", "(S(0), B)")
            .input(new long[] {6, 4}, "f64", "cpu:[[0,1],[2,3]]", "(B, S(1))")
            .constrainOutput(0, "(S(0), B)");
        InferResult r = call.infer();
        NdSbp out = r.outputNdSbp(0);
        NdSbp b = r.inputNdSbp(1)) {
      checkEq(out.toString(), "(S(0), B)", "2-d constrained output");
      checkEq(b.toString(), "(B, B)", "2-d b boxed");
      checkEq(r.outputDType(0), "f64", "2-d dtype");
    }
    try (OpCall cast = new OpCall("cast").attr("dtype", "i64");
        OpCall t = new OpCall("transpose").attr("perm", new long[] {1, 0});
        OpCall m = new OpCall("scalar_mul").attr("value", 2.5);
        OpCall g = new OpCall("gather").attr("axis", 1L)) {
      checkEq(cast.numInputs() + t.numInputs() + m.numInputs() + g.numInputs(), 0L, "attr kinds");
    }
    InferCacheStats stats = Inference.cacheStats();
    checkEq(stats.misses, 3L, "cache misses");
    try (OpCall call = new OpCall("relu").input(new long[] {8}, "f32", "cpu:[0,1]", "S(0)")) {
      call.infer().close();
      call.infer().close();
    }
    stats = Inference.cacheStats();
    checkEq(stats.misses, 4L, "cache miss");
    checkEq(stats.hits, 1L, "cache hit");
    checkEq(stats.size, 4L, "cache size");
    Inference.cacheSetCapacity(1);
    checkEq(Inference.cacheStats().capacity, 1L, "cache capacity");
    checkThrows(() -> Inference.cacheSetCapacity(0), Status.INVALID_ARGUMENT,
        "tess_infer_cache_set_capacity: capacity is 0; expected >= 1", "capacity 0");
    Inference.cacheSetCapacity(4096);
    Inference.cacheClear();
    checkEq(Inference.cacheStats().misses, 0L, "cache cleared");
    check(Arrays.asList(Inference.opNames()).contains("matmul"), "opNames");
    checkEq(DType.parse("bf16"), DType.BF16, "dtypeParse");
    checkEq(DType.name(DType.I32), "i32", "dtypeName");
    checkEq(DType.parse("bool"), DType.BOOL, "dtypeParse bool");
    checkEq(DType.name(DType.BOOL), "bool", "dtypeName bool");
  }

  private static void inferenceBadInput() {
    checkThrows(() -> new OpCall("matmull"), Status.NOT_FOUND,
        "no op named \"matmull\"; did you mean: ", "unknown op");
    checkThrows(() -> DType.parse("float"), Status.INVALID_ARGUMENT,
        "unknown dtype \"float\"", "bad dtype");
    try (OpCall call = new OpCall("matmul")) {
      checkThrows(() -> call.attr("transpose_b", 1L), Status.INVALID_ARGUMENT,
          "tess_op_call_set_attr_int: matmul: attribute \"transpose_b\" must be bool but got int 1",
          "wrong attr type");
      checkThrows(() -> call.attr("alpha", 0.5), Status.INVALID_ARGUMENT,
          "matmul: unknown attribute \"alpha\"; known attributes: transpose_a, transpose_b",
          "unknown attr");
      checkThrows(() -> call.input(new long[] {4, -2}, "f32", "cpu:[0,1]", "B"),
          Status.INVALID_ARGUMENT, "matmul: input \"a\": shape dim 1 is -2; dims must be >= 0",
          "negative dim");
      checkThrows(() -> call.input(new long[] {4, 2}, "f32", "cpu:[0,1]", "S(2)"),
          Status.INVALID_ARGUMENT, "matmul: input \"a\": ", "bad nd-sbp");
      call.input(new long[] {4, 2}, "f32", "cpu:[0,1]", "B");
      checkThrows(() -> call.input(new long[] {2, 3}, "f32", "cpu:[0,1,2]", "B"),
          Status.INVALID_ARGUMENT,
          "matmul: input \"b\" is on placement cpu:[0,1,2] but input \"a\" is on cpu:[0,1]",
          "placement mismatch");
      checkThrows(() -> call.infer(), Status.INVALID_ARGUMENT,
          "matmul: takes 2 inputs but got 1", "missing input");
      checkThrows(() -> call.explain(), Status.INVALID_ARGUMENT,
          "matmul: takes 2 inputs but got 1", "explain missing input");
      checkThrows(() -> call.constrainOutput(1, "B"), Status.INVALID_ARGUMENT,
          "constraint names output slot 1 but the op has 1 output", "bad output slot");
    }
    try (OpCall call = new OpCall("relu").input(new long[] {1}, "f32", "cpu:[0,1]", "B")
            .constrainOutput(0, "S(0)")) {
      checkThrows(() -> call.infer(), Status.INVALID_ARGUMENT,
          "relu: no SBP signature fits the inputs x: B [1] on cpu:[0,1] with constraints out = "
              + "S(0); candidates:\n  #0 x:S(0) -> out:S(0): input \"x\": S(0) splits axis 0",
          "no fitting signature");
      try (Explanation e = call.explain()) {
        check(e.failure().startsWith("relu: no SBP signature fits"), "explain failure");
      }
    }
    OpCall closed = new OpCall("relu");
    closed.close();
    checkThrows(() -> closed.infer(), Status.INVALID_ARGUMENT,
        "tess_op_call_infer: argument \"call\" is NULL", "closed call");
  }

  public static void main(String[] args) {
    versionAndStatus();
    runtime();
    issueExample();
    placementQueries();
    placementBadInput();
    ndSbp();
    inference();
    inferenceBadInput();
    Checks.finish();
  }
}
