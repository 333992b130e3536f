package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkArray;
import static org.tessera.Checks.checkEq;
import static org.tessera.Checks.checkThrows;
import static org.tessera.Mlp.checkNear;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Plan mode on every rank of an mpirun world (java_test.sh --mpi; 1-3 ranks): the
 * MLP of Mlp built explicitly and recorded by Capture, compiled, run on several
 * inputs and checked against the same model run eagerly and against plain loops
 * that every rank computes itself; each rank's output piece; the statistics. Every
 * rank makes the same calls in the same order.
 */
public final class MpiPlanTest {
  private static MpiWorld w;

  /** Agreement with the eager ops: the same kernels on the same layouts. */
  private static final double EAGER_TOL = 1e-6;
  /** Agreement with the loops, which keep the hidden layer in double. */
  private static final double LOOP_TOL = 1e-5;

  private static void checkRun(String what, PlanInstance inst, Mlp m, int salt) {
    float[] x = Mlp.input(salt);
    float[] want = m.oracle(x);
    String tag = what + " salt " + salt;
    try (Scope sc = new Scope()) {
      Tensor tx = sc.add(Tensor.fromHost(x, Mlp.X_SHAPE, m.world, m.s0));
      check(inst.run(tx) == inst, tag + ": run returns the instance");
      Tensor y = sc.add(inst.output(0));
      checkArray(y.shape(), Mlp.Y_SHAPE, tag + ": output shape");
      float[] got = y.toFloatArray();
      checkNear(got, sc.add(m.model(tx, sc)).toFloatArray(), EAGER_TOL, tag + ": plan vs eager");
      checkNear(got, want, LOOP_TOL, tag + ": plan vs loops");

      // This rank's piece, without the collective output(): the output tensor's piece,
      // and the oracle's piece under the output's layout.
      checkEq(inst.outputDType(0), "f32", tag + ": outputDType");
      float[] piece = inst.outputLocalFloatArray(0);
      checkArray(piece, y.localFloatArray(), tag + ": outputLocal vs output's piece");
      checkArray(inst.outputLocalShape(0), y.localShape(), tag + ": outputLocalShape");
      checkEq(inst.outputLocalNumElements(0), (long) piece.length,
          tag + ": outputLocalNumElements");
      MpiLayout layout = MpiLayout.of(sc.add(y.placement()), sc.add(y.ndSbp()));
      check(!layout.isPartial(), tag + ": softmax output is not partial: " + layout);
      checkNear(piece, layout.piece(want, Mlp.Y_SHAPE, w.rank), LOOP_TOL, tag + ": piece vs loops");
      ByteBuffer direct =
          ByteBuffer.allocateDirect(4 * piece.length).order(ByteOrder.nativeOrder());
      inst.outputLocal(0, direct);
      float[] fromBuffer = new float[piece.length];
      direct.asFloatBuffer().get(fromBuffer);
      checkArray(fromBuffer, piece, tag + ": outputLocal into a ByteBuffer");

      // The same input held as B is boxed into the input's S(0): the same output.
      Tensor xb = sc.add(Tensor.fromHost(x, Mlp.X_SHAPE, m.world, m.b));
      inst.run(xb);
      checkArray(inst.outputLocalFloatArray(0), piece, tag + ": B input boxed in");

      // Each rank's own piece of x (its rows of the S(0) split) straight in: the same
      // output piece as run(tensor) gave.
      float[] mine = MpiLayout.of(m.world, m.s0).piece(x, Mlp.X_SHAPE, w.rank);
      inst.runLocal(mine);
      checkArray(inst.outputLocalFloatArray(0), piece, tag + ": runLocal with this rank's piece");
      if (mine.length > 0) {  // every rank: 7 rows over at most 4 ranks
        float[] shorter = java.util.Arrays.copyOf(mine, mine.length - 1);
        checkThrows(() -> inst.runLocal(shorter), Status.INVALID_ARGUMENT,
            "tess_plan_instance_run_local: input #0 (\"x\") has " + 4 * shorter.length
                + " bytes but this rank's piece has " + 4 * mine.length,
            tag + ": runLocal with a short piece");
      }
    }
  }

  /** Compiles {@code program}, runs it on inputs 10, 20, 10 (three runs each) and checks. */
  private static void checkProgram(String what, Program program, Mlp m) {
    try (Plan plan = program.compile(1);
        PlanInstance inst = plan.instantiate()) {
      String text = plan.toString();
      check(text.contains("kernel matmul"), what + ": plan text lacks the kernels: " + text);
      if (w.size > 1) {
        check(text.contains("box"), what + ": plan text lacks a boxing step: " + text);
      }
      checkEq(inst.numOutputs(), 1L, what + ": numOutputs");
      for (int salt : new int[] {10, 20, 10}) checkRun(what, inst, m, salt);

      PlanInstance.Stats s = inst.stats();
      if (w.rank == 0) {
        System.out.println(what + " on " + w.size + " ranks: " + s);
      }
      check(s.registers > 0, what + ": registers " + s);
      checkEq(s.steps, 6 + s.boxingSteps, what + ": steps = 6 kernels + boxing: " + s);
      if (w.size > 1) {
        check(s.boxingSteps > 0, what + ": no boxing step on " + w.size + " ranks: " + s);
      }
      checkEq(s.runs, 9L, what + ": runs");
      checkEq(s.allocatorCallsLastRun, 0L, what + ": allocator calls in a warm run");
      check(s.heapAllocationsLastRun <= 0, what + ": heap allocations (-1: not counted): " + s);
      checkEq(s.cudaGraphs, 0L, what + ": CUDA graphs on a cpu placement");
      checkEq(s.cudaGraphLaunches, 0L, what + ": CUDA graph launches on a cpu placement");
      checkEq(s.memCases.length, 1, what + ": memory cases");
      PlanInstance.MemCase c = s.memCases[0];
      checkEq(c.name, "cpu", what + ": memory case name");
      check(c.lowerBound > 0, what + ": lower bound > 0: " + c);
      check(c.blockBytes >= c.lowerBound, what + ": block >= lower bound: " + c);
      check(c.noReuseBytes >= c.blockBytes, what + ": no reuse >= block: " + c);
      check(inst.toString().equals("PlanInstance(1 outputs, 9 runs)"), "toString " + inst);
    }
  }

  private static void explicitProgram(Mlp m) {
    try (Program p = m.explicit()) {
      Program.Sizes sizes = p.sizes();
      checkEq(sizes.values, 11L, "explicit: values");
      checkEq(sizes.ops, 6L, "explicit: ops");
      checkEq(sizes.inputs, 1L, "explicit: inputs");
      checkEq(sizes.outputs, 1L, "explicit: outputs");
      check(p.toString().contains("%5 = matmul(%0, %1)"), "explicit: program text " + p);
      checkProgram("explicit", p, m);
    }
  }

  private static void capturedProgram(Mlp m) {
    Program program;
    try (Capture cap = Capture.begin();
        Scope sc = new Scope()) {
      check(Capture.active(), "capture: active");
      Tensor x = sc.add(cap.placeholder("x", Mlp.X_SHAPE, "f32", m.world, null));
      check(x.toString().contains("S(0)"), "capture: placeholder defaults to S(0): " + x);
      Tensor y = sc.add(m.model(x, sc));
      program = cap.end(y);
      check(!cap.isOpen() && !Capture.active(), "capture: ended");
    }
    try (Program p = program) {
      Program.Sizes sizes = p.sizes();
      checkEq(sizes.ops, 6L, "captured: ops in " + p);
      checkEq(sizes.values, 11L, "captured: values");
      checkEq(sizes.inputs, 1L, "captured: inputs");
      checkEq(sizes.outputs, 1L, "captured: outputs");
      checkProgram("captured", p, m);
    }
  }

  public static void main(String[] args) {
    w = MpiWorld.start(args);
    try (Mlp m = new Mlp(w.size)) {
      explicitProgram(m);
      capturedProgram(m);
    }
    w.finish();
  }
}
