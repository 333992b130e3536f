package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkArray;
import static org.tessera.Checks.checkEq;
import static org.tessera.Checks.checkThrows;

import java.nio.ByteBuffer;

/**
 * Plan mode in a world of one rank: Program, Capture, Plan and PlanInstance on a
 * small program with two outputs of other dtypes, then every wrapper's bad inputs,
 * which must arrive as TesseraException with the C API's code and message.
 */
public final class PlanTest {
  private static final long[] SHAPE = {2, 3};
  private static final double[] X = {-1.5, 2, 0.5, 3, -4, 1};
  private static final long[] I = {7, -7, 9, 1L << 40, -3, 0};

  /** relu(x) and (i + i) from an f64 and an i64 input, with every accessor. */
  private static void twoOutputs(Placement p, NdSbp s0, NdSbp b) {
    try (Scope sc = new Scope()) {
      Program prog = sc.add(Program.create());
      long x = prog.addInput("x", SHAPE, "f64", p, null);
      long i = prog.addInput("i", SHAPE, "i64", p, b);
      checkEq(x, 0L, "first value id");
      checkEq(i, 1L, "second value id");
      long[] relu = prog.addOp("relu", x);
      checkArray(relu, new long[] {2}, "relu's output ids");
      long[] sum = prog.addOp(sc.add(new OpCall("add")), i, i);
      checkArray(sum, new long[] {3}, "add's output ids");
      prog.markOutput(relu[0]);
      prog.markOutput(sum[0]);
      Program.Sizes sizes = prog.sizes();
      checkEq(sizes.toString(), "4 values, 2 ops, 2 inputs, 2 outputs", "sizes");
      String text = prog.toString();
      check(text.contains("%0 = input \"x\" [2,3] f64 cpu:[0] S(0)"), "program text: " + text);
      check(text.contains("%3 = add(%1, %1)"), "program text: " + text);
      check(text.contains("outputs: %2, %3"), "program text: " + text);

      Plan plan = sc.add(Plan.compile(prog, 0));
      check(plan.toString().contains("kernel relu"), "plan text: " + plan);
      PlanInstance inst = sc.add(plan.instantiate());
      plan.close();  // the instance keeps what it needs
      prog.close();
      checkEq(inst.numOutputs(), 2L, "numOutputs");
      checkEq(inst.toString(), "PlanInstance(2 outputs, 0 runs)", "toString before a run");
      checkEq(inst.outputDType(0), "f64", "outputDType 0");
      checkEq(inst.outputDType(1), "i64", "outputDType 1");
      checkArray(inst.outputLocalShape(1), SHAPE, "outputLocalShape before a run");
      checkEq(inst.outputLocalNumElements(0), 6L, "outputLocalNumElements");

      double[] reluWant = new double[X.length];
      long[] sumWant = new long[I.length];
      for (int k = 0; k < X.length; ++k) {
        reluWant[k] = Math.max(X[k], 0);
        sumWant[k] = I[k] + I[k];
      }
      Tensor tx = sc.add(Tensor.fromHost(X, SHAPE, p, s0));
      Tensor ti = sc.add(Tensor.fromHost(I, SHAPE, p, b));
      for (int run = 1; run <= 2; ++run) {
        inst.run(tx, ti);
        Tensor[] outs = inst.outputs();
        for (Tensor t : outs) sc.add(t);
        checkEq(outs.length, 2, "outputs");
        checkArray(outs[0].toDoubleArray(), reluWant, "relu output");
        checkArray(outs[1].toLongArray(), sumWant, "add output");
        checkArray(inst.outputLocalDoubleArray(0), reluWant, "outputLocalDoubleArray");
        checkArray(inst.outputLocalLongArray(1), sumWant, "outputLocalLongArray");
      }
      checkEq(inst.toString(), "PlanInstance(2 outputs, 2 runs)", "toString after runs");
      PlanInstance.Stats s = inst.stats();
      checkEq(s.runs, 2L, "stats runs");
      checkEq(s.steps, 2L, "stats steps");
      checkEq(s.boxingSteps, 0L, "no boxing on one rank");
      checkEq(s.allocatorCallsLastRun, 0L, "no allocator calls in a warm run");
      checkEq(s.memCases.length, 1, "one memory case");
      check(s.memCases[0].blockBytes >= s.memCases[0].lowerBound && s.memCases[0].lowerBound > 0,
          "block >= lower bound > 0: " + s);

      // The same inputs as this rank's pieces (one rank: the whole), arrays and buffers.
      double[] xNeg = new double[X.length];
      long[] iNeg = new long[I.length];
      for (int k = 0; k < X.length; ++k) {
        xNeg[k] = -X[k];
        iNeg[k] = -I[k];
      }
      check(inst.runLocalMixed(xNeg, iNeg) == inst, "runLocalMixed returns the instance");
      double[] reluNeg = new double[X.length];
      long[] sumNeg = new long[I.length];
      for (int k = 0; k < X.length; ++k) {
        reluNeg[k] = Math.max(xNeg[k], 0);
        sumNeg[k] = iNeg[k] + iNeg[k];
      }
      checkArray(inst.outputLocalDoubleArray(0), reluNeg, "runLocalMixed relu");
      checkArray(inst.outputLocalLongArray(1), sumNeg, "runLocalMixed add");
      inst.runLocal(HostBuffers.bufferOf(X), HostBuffers.bufferOf(I));
      checkArray(inst.outputLocalDoubleArray(0), reluWant, "runLocal(ByteBuffer...) relu");
      checkArray(inst.outputLocalLongArray(1), sumWant, "runLocal(ByteBuffer...) add");
      checkEq(inst.stats().runs, 4L, "runs after runLocal");

      // int32 and f32 outputs through the other typed copies.
      Program small = sc.add(Program.create());
      long xi = small.addInput("x", new long[] {3}, "i32", p, b);
      long xf = small.addInput("y", new long[] {2}, "f32", p, b);
      small.markOutput(small.addOp("neg", xi)[0]);
      small.markOutput(small.addOp("neg", xf)[0]);
      PlanInstance si = sc.add(sc.add(small.compile(1)).instantiate());
      si.run(sc.add(Tensor.fromHost(new int[] {4, -5, 0}, new long[] {3}, p, b)),
          sc.add(Tensor.fromHost(new float[] {1.5f, -2}, new long[] {2}, p, b)));
      checkArray(si.outputLocalIntArray(0), new int[] {-4, 5, 0}, "outputLocalIntArray");
      checkArray(si.outputLocalFloatArray(1), new float[] {-1.5f, 2}, "outputLocalFloatArray");
      int[] ia = {-1, 2, 3};
      float[] fa = {0.25f, -8};
      si.runLocalMixed(ia, fa);
      int[] iaNeg = new int[ia.length];
      for (int k = 0; k < ia.length; ++k) iaNeg[k] = -ia[k];
      float[] faNeg = new float[fa.length];
      for (int k = 0; k < fa.length; ++k) faNeg[k] = -fa[k];
      checkArray(si.outputLocalIntArray(0), iaNeg, "runLocalMixed i32");
      checkArray(si.outputLocalFloatArray(1), faNeg, "runLocalMixed f32");
      checkThrows(() -> si.outputLocalFloatArray(0), Status.INVALID_ARGUMENT,
          "PlanInstance.outputLocalFloatArray: output #0 is i32, not f32", "wrong dtype out");
    }
  }

  private static void programBadInputs(Placement p, NdSbp s0, Tensor real) {
    try (Scope sc = new Scope()) {
      Program prog = sc.add(Program.create());
      checkThrows(() -> prog.addInput(null, SHAPE, "f32", p, null), Status.INVALID_ARGUMENT,
          "tess_program_add_input: argument \"name\" is NULL", "null input name");
      checkThrows(() -> prog.addInput("x", SHAPE, "f8", p, null), Status.INVALID_ARGUMENT,
          "unknown dtype \"f8\"", "bad dtype");
      checkThrows(() -> prog.addInput("x", new long[] {-1, 2}, "f32", p, null),
          Status.INVALID_ARGUMENT, "tess_program_add_input", "negative dim");
      checkThrows(() -> prog.addInput("x", SHAPE, "f32", null, null), Status.INVALID_ARGUMENT,
          "argument \"placement\" is NULL", "null placement");
      try (NdSbp s7 = NdSbp.parse("S(7)")) {
        checkThrows(() -> prog.addInput("x", SHAPE, "f32", p, s7), Status.INVALID_ARGUMENT,
            "S(7)", "nd-sbp that does not fit");
      }
      long x = prog.addInput("x", SHAPE, "f32", p, s0);
      checkThrows(() -> prog.addInput("x", SHAPE, "f32", p, s0), Status.INVALID_ARGUMENT,
          "\"x\"", "repeated input name");
      checkThrows(() -> prog.addVariable("w", null), Status.INVALID_ARGUMENT,
          "tess_program_add_variable: argument \"value\" is NULL", "null variable");
      checkThrows(() -> prog.addVariable("", real), Status.INVALID_ARGUMENT,
          "tess_program_add_variable", "empty variable name");
      checkThrows(() -> prog.addOp("relu", 42), Status.INVALID_ARGUMENT, "42",
          "unknown value id");
      checkThrows(() -> prog.addOp("relu", x, x), Status.INVALID_ARGUMENT, "tess_program_add_op",
          "too many inputs");
      checkThrows(() -> prog.addOp("no_such_op", x), Status.NOT_FOUND, "no_such_op",
          "unknown op");
      try (OpCall withMeta = new OpCall("relu").input(SHAPE, "f32", p, s0)) {
        checkThrows(() -> prog.addOp(withMeta, x), Status.INVALID_ARGUMENT, "input metas",
            "op call with input metas");
      }
      checkThrows(() -> prog.addOp((OpCall) null, x), Status.INVALID_ARGUMENT,
          "argument \"call\" is NULL", "null call");
      checkThrows(() -> prog.addOp("matmul", x, x), Status.INVALID_ARGUMENT, "matmul",
          "inference error at the call");
      // A program without outputs does not compile.
      checkThrows(() -> prog.compile(1), Status.INVALID_ARGUMENT, "tess_plan_compile",
          "program without outputs");
      long y = prog.addOp("relu", x)[0];
      checkThrows(() -> prog.markOutput(99), Status.INVALID_ARGUMENT, "99", "unknown output id");
      prog.markOutput(y);
      checkThrows(() -> prog.markOutput(y), Status.INVALID_ARGUMENT, "tess_program_mark_output",
          "output marked twice");
      checkThrows(() -> prog.compile(-1), Status.INVALID_ARGUMENT, "input_register_num",
          "negative register num");
      checkThrows(() -> prog.compile(9), Status.INVALID_ARGUMENT, "input_register_num",
          "register num 9");
      checkThrows(() -> Plan.compile(null, 1), Status.INVALID_ARGUMENT,
          "tess_plan_compile: argument \"program\" is NULL", "null program");
      prog.close();
      prog.close();  // idempotent
      checkEq(prog.toString(), "", "closed program's text");
      checkThrows(() -> prog.sizes(), Status.INVALID_ARGUMENT, "argument \"program\" is NULL",
          "closed program");
    }
  }

  private static void instanceBadInputs(Placement p, NdSbp s0) {
    try (Scope sc = new Scope()) {
      Program prog = sc.add(Program.create());
      long x = prog.addInput("x", SHAPE, "f32", p, s0);
      prog.markOutput(prog.addOp("relu", x)[0]);
      Plan plan = sc.add(prog.compile(1));
      PlanInstance inst = sc.add(plan.instantiate());
      checkThrows(() -> inst.output(0), Status.FAILED_PRECONDITION, "tess_plan_instance_output",
          "output before a run");
      checkThrows(() -> inst.outputLocalFloatArray(0), Status.FAILED_PRECONDITION,
          "tess_plan_instance_output_local", "outputLocal before a run");
      checkThrows(() -> inst.output(1), Status.OUT_OF_RANGE,
          "output index 1 but the program has 1 outputs", "output index 1");
      checkThrows(() -> inst.output(-1), Status.OUT_OF_RANGE,
          "PlanInstance.output: output index -1 is negative", "negative index");
      checkThrows(() -> inst.run(), Status.INVALID_ARGUMENT, "1 inputs", "no inputs");
      checkThrows(() -> inst.run((Tensor) null), Status.INVALID_ARGUMENT, "NULL", "null input");
      Tensor wrong = sc.add(Tensor.fromHost(new float[12], new long[] {3, 4}, p, s0));
      checkThrows(() -> inst.run(wrong), Status.INVALID_ARGUMENT, "[3,4]", "wrong shape");
      Tensor good = sc.add(Tensor.fromHost(new float[6], SHAPE, p, s0));
      checkThrows(() -> inst.run(good, good), Status.INVALID_ARGUMENT, "2", "two inputs");
      try (Tensor f64 = Tensor.fromHost(X, SHAPE, p, s0)) {
        checkThrows(() -> inst.run(f64), Status.INVALID_ARGUMENT, "f64", "wrong dtype");
      }
      // runLocal: the C API checks the count and each piece's byte size.
      checkThrows(() -> inst.runLocal(new float[6], new float[6]), Status.INVALID_ARGUMENT,
          "tess_plan_instance_run_local: the program takes 1 inputs but got 2", "runLocal two pieces");
      checkThrows(() -> inst.runLocal(new float[0][]), Status.INVALID_ARGUMENT,
          "the program takes 1 inputs but got 0", "runLocal no pieces");
      checkThrows(() -> inst.runLocal((ByteBuffer[]) null), Status.INVALID_ARGUMENT,
          "the program takes 1 inputs but got 0", "runLocal null array");
      checkThrows(() -> inst.runLocal(new float[5]), Status.INVALID_ARGUMENT,
          "tess_plan_instance_run_local: input #0 (\"x\") has 20 bytes but this rank's piece has 24",
          "runLocal short piece");
      checkThrows(() -> inst.runLocal(HostBuffers.direct(28)), Status.INVALID_ARGUMENT,
          "input #0 (\"x\") has 28 bytes but this rank's piece has 24", "runLocal long buffer");
      checkThrows(() -> inst.runLocal((float[]) null), Status.INVALID_ARGUMENT,
          "input #0 (\"x\") has 0 bytes but this rank's piece has 24", "runLocal null piece");
      checkThrows(() -> inst.runLocalMixed("x"), Status.INVALID_ARGUMENT,
          "PlanInstance.runLocalMixed: locals[0] is a String, not a float[], double[], int[] or "
              + "long[]",
          "runLocalMixed of a String");
      try {
        inst.runLocal(ByteBuffer.allocate(24));
        check(false, "runLocal took a heap buffer");
      } catch (IllegalArgumentException e) {
        check(e.getMessage().contains("direct"), "runLocal heap buffer message: " + e.getMessage());
      }
      checkEq(inst.stats().runs, 0L, "no run after bad inputs");
      float[] piece = {-1, 2, -3, 4, 0.5f, -0.5f};
      inst.runLocal(piece);
      float[] relu = new float[piece.length];
      for (int k = 0; k < piece.length; ++k) relu[k] = Math.max(piece[k], 0);
      checkArray(inst.outputLocalFloatArray(0), relu, "runLocal after bad inputs");
      inst.run(good);
      checkThrows(() -> inst.outputLocal(0, HostBuffers.direct(23)), Status.INVALID_ARGUMENT,
          "out_bytes is 23 but output #0's piece has 24 bytes", "small out buffer");
      checkThrows(() -> inst.outputLocal(3, HostBuffers.direct(24)), Status.OUT_OF_RANGE,
          "output index 3", "outputLocal index 3");
      try {
        inst.outputLocal(0, ByteBuffer.allocate(24));
        check(false, "heap buffer accepted");
      } catch (IllegalArgumentException e) {
        check(e.getMessage().contains("direct"), "heap buffer message: " + e.getMessage());
      }
      checkThrows(() -> inst.outputDType(3), Status.OUT_OF_RANGE, "output index 3",
          "outputDType index 3");
      checkThrows(() -> inst.outputLocalShape(3), Status.OUT_OF_RANGE, "output index 3",
          "outputLocalShape index 3");
      checkThrows(() -> inst.outputLocalNumElements(3), Status.OUT_OF_RANGE, "output index 3",
          "outputLocalNumElements index 3");
      checkThrows(() -> inst.outputLocalDoubleArray(0), Status.INVALID_ARGUMENT,
          "PlanInstance.outputLocalDoubleArray: output #0 is f32, not f64", "wrong dtype out");
      try (PlanInstance again = plan.instantiate()) {
        checkEq(again.numOutputs(), 1L, "a second instance of one plan");
      }
      plan.close();
      checkEq(plan.toString(), "", "closed plan's text");
      checkThrows(() -> plan.instantiate(), Status.INVALID_ARGUMENT,
          "argument \"plan\" is NULL", "closed plan");
      inst.close();
      checkEq(inst.toString(), "PlanInstance(closed)", "closed instance's text");
      checkThrows(() -> inst.stats(), Status.INVALID_ARGUMENT, "argument \"instance\" is NULL",
          "closed instance");
    }
  }

  private static void captureMisuse(Placement p, NdSbp s0, Tensor real) throws Exception {
    checkEq(Capture.active(), false, "no capture at first");
    Capture stale = Capture.begin();
    stale.abort();
    check(!stale.isOpen() && !Capture.active(), "aborted");
    // The C API reports a capture call without a capture.
    checkThrows(() -> stale.placeholder("x", SHAPE, "f32", p, null), Status.FAILED_PRECONDITION,
        "no capture is active on this thread", "placeholder without a capture");
    checkThrows(() -> stale.end(), Status.FAILED_PRECONDITION,
        "EndCapture: no capture is active on this thread", "end without a capture");

    try (Capture cap = Capture.begin();
        Scope sc = new Scope()) {
      checkThrows(() -> Capture.begin(), Status.FAILED_PRECONDITION,
          "a capture is already active on this thread", "begin twice");
      // A stale Capture must not reach the live one.
      checkThrows(() -> stale.placeholder("x", SHAPE, "f32", p, null),
          Status.FAILED_PRECONDITION,
          "Capture.placeholder: this capture has ended, and another capture is active",
          "stale capture's placeholder");
      Tensor x = sc.add(cap.placeholder("x", SHAPE, "f32", p, s0));
      checkThrows(() -> cap.placeholder("x", SHAPE, "f32", p, s0), Status.INVALID_ARGUMENT,
          "\"x\"", "repeated placeholder name");
      checkThrows(() -> x.toFloatArray(), Status.FAILED_PRECONDITION, "placeholder",
          "toHost of a placeholder");
      checkThrows(() -> x.localFloatArray(), Status.FAILED_PRECONDITION, "placeholder",
          "copyLocal of a placeholder");
      try (Program other = Program.create()) {
        checkThrows(() -> other.addVariable("v", x), Status.FAILED_PRECONDITION,
            "is a placeholder; a variable needs a value", "placeholder as a variable");
      }
      checkThrows(() -> x.matmul(x), Status.INVALID_ARGUMENT, "matmul", "bad op while capturing");
      // Another thread has no capture: the C API says so.
      Throwable[] fromThread = {null};
      Thread t = new Thread(() -> {
        try {
          cap.placeholder("y", SHAPE, "f32", p, null);
        } catch (Throwable e) {
          fromThread[0] = e;
        }
      });
      t.start();
      t.join();
      check(fromThread[0] instanceof TesseraException
              && ((TesseraException) fromThread[0]).getCode() == Status.FAILED_PRECONDITION
              && fromThread[0].getMessage().contains("no capture is active on this thread"),
          "placeholder from another thread: " + fromThread[0]);
      Tensor y = sc.add(x.neg());
      checkThrows(() -> cap.end(real), Status.INVALID_ARGUMENT,
          "is a real tensor, not a result of the capture", "end with a real tensor");
      check(!cap.isOpen() && !Capture.active(), "the capture ends anyway");
      checkThrows(() -> y.neg(), Status.FAILED_PRECONDITION, "placeholder",
          "a placeholder after its capture");
    }

    try (Capture cap = Capture.begin();
        Scope sc = new Scope()) {
      Tensor y = sc.add(sc.add(cap.placeholder("x", SHAPE, "f32", p, null)).relu());
      checkThrows(() -> cap.end(y, y), Status.INVALID_ARGUMENT, "tess_capture_end",
          "an output listed twice");
    }
    try (Capture cap = Capture.begin()) {
      checkThrows(() -> cap.end(), Status.INVALID_ARGUMENT, "tess_capture_end", "no outputs");
    }
    try (Capture cap = Capture.begin()) {
      checkThrows(() -> cap.end((Tensor) null), Status.INVALID_ARGUMENT, "tess_capture_end",
          "a null output");
    }
    // Leaving the scope with an exception aborts the capture.
    try (Capture cap = Capture.begin()) {
      cap.placeholder("x", SHAPE, "f32", p, null).close();
      throw new IllegalStateException("boom");
    } catch (IllegalStateException e) {
      checkEq(e.getMessage(), "boom", "the exception passes");
    }
    checkEq(Capture.active(), false, "closing the scope aborted the capture");
  }

  /** Two slots: a pusher thread feeds five sets while this thread runs them. */
  private static void pipeline(Placement p, NdSbp s0) throws Exception {
    try (Scope sc = new Scope()) {
      Program prog = sc.add(Program.create());
      long x = prog.addInput("x", SHAPE, "f64", p, s0);
      prog.markOutput(prog.addOp("neg", x)[0]);
      PlanInstance inst = sc.add(sc.add(prog.compile(2)).instantiate());
      Tensor[] inputs = new Tensor[5];
      for (int k = 0; k < inputs.length; ++k) {
        double[] v = new double[X.length];
        for (int e = 0; e < v.length; ++e) v[e] = X[e] + k;
        inputs[k] = sc.add(Tensor.fromHost(v, SHAPE, p, s0));
      }
      Throwable[] failure = {null};
      Thread pusher = new Thread(() -> {
        try {
          for (Tensor t : inputs) inst.push(-1, t);
        } catch (Throwable e) {
          failure[0] = e;
        }
      });
      pusher.start();
      for (int k = 0; k < inputs.length; ++k) {
        inst.runPushed(30);
        double[] got = inst.outputLocalDoubleArray(0);
        for (int e = 0; e < got.length; ++e) {
          // == on doubles: neg may give 0.0 where the negation gives -0.0.
          check(got[e] == -(X[e] + k),
              "pipelined set " + k + " element " + e + ": got " + got[e] + ", want " + -(X[e] + k));
        }
      }
      pusher.join();
      check(failure[0] == null, "pusher failed: " + failure[0]);
      // With no set waiting, a plain run works on the pipelined instance too.
      inst.runLocal(X);
      double[] neg = inst.outputLocalDoubleArray(0);
      for (int e = 0; e < neg.length; ++e) {
        check(neg[e] == -X[e], "runLocal element " + e + ": got " + neg[e] + ", want " + -X[e]);
      }
      checkThrows(() -> inst.runPushed(0), Status.DEADLINE_EXCEEDED, "nothing was pushed",
          "runPushed with nothing pushed");
      inst.closePipeline();
      checkThrows(() -> inst.push(0, inputs[0]), Status.CANCELLED, "tess_plan_instance_push",
          "push after closePipeline");
    }
  }

  public static void main(String[] args) throws Exception {
    try (Placement p = Placement.parse("cpu:[0]");
        NdSbp s0 = NdSbp.parse("S(0)");
        NdSbp b = NdSbp.parse("B");
        Tensor real = Tensor.fromHost(new float[6], SHAPE, p, s0)) {
      twoOutputs(p, s0, b);
      programBadInputs(p, s0, real);
      instanceBadInputs(p, s0);
      captureMisuse(p, s0, real);
      pipeline(p, s0);
    }
    Checks.finish();
  }
}
