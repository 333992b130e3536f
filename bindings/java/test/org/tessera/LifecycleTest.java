package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkEq;
import static org.tessera.Checks.checkThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The binding's life cycle, in a JVM of its own: loading initialises nothing (the
 * runtime starts on first need), failures throw the subclass of their code, and every
 * handle is freed exactly once, by close() or by the Cleaner after collection.
 */
public final class LifecycleTest {
  /** Whether the C runtime has started: tess_runtime_world_rank fails before tess_runtime_init. */
  static boolean runtimeStarted() {
    try {
      TesseraJNI.runtime_world_rank(new int[] {0});
      return true;
    } catch (FailedPreconditionException e) {
      return false;
    }
  }

  /** Local calls that need no runtime, then the first that does. */
  static void lazyInit() {
    check(!Tessera.isInitialized(), "not initialised before any call");
    checkEq(Tessera.versionNumber(), Tessera.VERSION_NUMBER, "versionNumber");
    try (Placement p = Placement.parse("cpu:[0,1]");
        NdSbp s = NdSbp.parse("S(0)");
        Layout l = Layout.create(p, s, new long[] {5}, 1);
        OpCall call = new OpCall("relu").input(new long[] {4}, "f32", p, s);
        InferResult r = call.infer();
        BoxingPlan plan = Boxing.plan(new long[] {4}, "f32", p, s, p, s)) {
      checkEq(l.numElements(), 2L, "layout without a runtime");
      checkEq(r.numOutputs(), 1L, "inference without a runtime");
      check(plan.numSteps() >= 0, "boxing plan without a runtime");
    }
    Tessera.cudaInfo();
    Collectives.collectiveTimeout();
    check(!Tessera.isInitialized(), "loading and local calls initialise nothing");
    check(!runtimeStarted(), "tess_runtime_world_rank fails before tess_runtime_init (no runtime, no MPI)");
    checkThrows(() -> TesseraJNI.runtime_world_size(new int[] {0}), Status.FAILED_PRECONDITION,
        "", "world_size before init");
    checkEq(Tessera.worldRank(), 0, "worldRank starts the runtime");
    check(Tessera.isInitialized(), "initialised on first use");
    check(runtimeStarted(), "tess_runtime_world_rank works after first use");
    Tessera.init(); // idempotent
    checkEq(Tessera.worldSize(), 1, "worldSize");
  }

  /** Runs {@code call}, which must throw exactly {@code type} naming {@code text}. */
  static void checkSubclass(Checks.Call call, Class<? extends TesseraException> type, int code,
      String text, String what) {
    try {
      call.run();
      check(false, what + ": no exception");
    } catch (TesseraException e) {
      checkEq(e.getClass(), type, what + ": class");
      checkEq(e.getCode(), code, what + ": code");
      check(e.getStatusMessage().contains(text),
          what + ": message \"" + e.getStatusMessage() + "\" lacks \"" + text + "\"");
    }
  }

  static void exceptions() {
    checkSubclass(() -> Inference.explainLast(), FailedPreconditionException.class,
        Status.FAILED_PRECONDITION, "", "explainLast before any op");
    checkSubclass(() -> Placement.parse(null), InvalidArgumentException.class,
        Status.INVALID_ARGUMENT, "argument \"text\" is NULL", "parse(null)");
    try {
      NdSbp.parse("S(");
      check(false, "typed catch: no exception");
    } catch (InvalidArgumentException e) {
      check(e.getMessage().startsWith("INVALID_ARGUMENT: "), "typed catch: " + e.getMessage());
    }
    try (Placement p = Placement.parse("cpu:[[0,1],[2,3]]");
        NdSbp s = NdSbp.parse("(S(0), S(1))");
        Layout l = Layout.create(p, s, new long[] {6, 5}, 3)) {
      checkSubclass(() -> Layout.create(p, s, new long[] {6, 5}, 9), NotFoundException.class,
          Status.NOT_FOUND, "rank 9 is not in placement cpu:[[0,1],[2,3]]", "rank 9");
      checkSubclass(() -> l.localDim(2), OutOfRangeException.class, Status.OUT_OF_RANGE,
          "Layout.localDim: dim 2 is outside the shape [3,2] (2 dims)", "localDim 2");
    }
    try (Placement cpu = Placement.parse("cpu:[0]");
        Placement gpu = Placement.parse("cuda:[0]");
        NdSbp b = NdSbp.parse("B")) {
      checkSubclass(() -> BoxingPlan.create(new long[] {2}, "f32", cpu, b, gpu, b),
          UnimplementedException.class, Status.UNIMPLEMENTED,
          "boxing between device types cpu and cuda", "cpu to cuda");
    }
    checkSubclass(() -> new OpCall("no_such_op"), NotFoundException.class, Status.NOT_FOUND,
        "no_such_op", "unknown op");
    checkSubclass(() -> Collectives.setCollectiveTimeout(-1), InvalidArgumentException.class,
        Status.INVALID_ARGUMENT, "", "negative timeout");
    // Every code maps to its own subclass, named after it.
    for (int code = 1; code <= 15; ++code) {
      TesseraException e = TesseraException.of(code, "m");
      StringBuilder name = new StringBuilder();
      for (String part : Status.name(code).split("_")) {
        name.append(part.charAt(0)).append(part.substring(1).toLowerCase());
      }
      checkEq(e.getClass().getSimpleName(), name + "Exception", "subclass of " + code);
      checkEq(e.getClass().getSuperclass(), TesseraException.class, "superclass of " + code);
      checkEq(e.getCode(), code, "code of " + code);
      checkEq(e.getStatusMessage(), "m", "message of " + code);
    }
    checkEq(TesseraException.of(99, "m").getClass(), TesseraException.class, "unknown code");
    checkEq(TesseraException.of(99, "m").getStatus(), "UNKNOWN_CODE", "unknown code's name");
  }

  /** System.gc() until {@code done} holds or 20 s pass. */
  static boolean gcUntil(java.util.function.BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!done.getAsBoolean() && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(20);
    }
    return done.getAsBoolean();
  }

  /** Lets the Cleaner free whatever earlier code left unclosed. */
  static void settle() throws InterruptedException {
    long before;
    do {
      before = Handle.collectedCount.get();
      for (int i = 0; i < 5; ++i) {
        System.gc();
        Thread.sleep(20);
      }
    } while (Handle.collectedCount.get() != before);
  }

  /** Makes handles of several kinds and drops them unclosed; returns their pointers. */
  static List<Long> makeUnclosed() {
    List<Long> ptrs = new ArrayList<>();
    try (Placement p = Placement.parse("cpu:[0]");
        NdSbp b = NdSbp.parse("B")) {
      for (int i = 0; i < 100; ++i) {
        ptrs.add(Placement.parse("cpu:[0]").ptr());
        ptrs.add(NdSbp.parse("S(0)").ptr());
        ptrs.add(Tensor.zeros(new long[] {3}, "f32", p, b).ptr());
      }
      ptrs.add(new OpCall("relu").ptr());
      ptrs.add(Program.create().ptr());
    }
    return ptrs;
  }

  static void cleaner() throws InterruptedException {
    settle();
    ConcurrentHashMap<Long, Integer> destroyed = new ConcurrentHashMap<>();
    Handle.destroyHook = p -> destroyed.merge(p, 1, Integer::sum);

    // close() twice frees once, and collection afterwards frees nothing more.
    long closed0 = Handle.closedCount.get();
    long collected0 = Handle.collectedCount.get();
    Placement a = Placement.parse("cpu:[0]");
    long aPtr = a.ptr();
    a.close();
    a.close();
    checkEq(Handle.closedCount.get() - closed0, 1L, "close twice: one destroy");
    checkEq(destroyed.get(aPtr), 1, "close twice: the pointer once");
    checkThrows(() -> a.numAxes(), Status.INVALID_ARGUMENT, "NULL", "use after close");
    // 50 live at once (distinct pointers), then closed, twice each.
    List<Placement> live = new ArrayList<>();
    for (int i = 0; i < 50; ++i) live.add(Placement.parse("cpu:[0]"));
    List<Long> closedPtrs = new ArrayList<>();
    for (Placement p : live) closedPtrs.add(p.ptr());
    destroyed.clear();
    for (Placement p : live) p.close();
    for (Placement p : live) p.close();
    live = null;
    int once = 0;
    for (long ptr : closedPtrs) once += destroyed.getOrDefault(ptr, 0) == 1 ? 1 : 0;
    checkEq(once, closedPtrs.size(), "closed handles: each pointer destroyed once");
    // Freed pointers may be reused by the allocations below: count those afresh.
    destroyed.clear();
    // Unclosed handles of several kinds, dropped: each must be freed once, by the Cleaner.
    List<Long> ptrs = makeUnclosed();
    boolean done = gcUntil(() -> ptrs.stream().allMatch(destroyed::containsKey));
    check(done, "every unclosed handle freed after collection: "
        + ptrs.stream().filter(x -> !destroyed.containsKey(x)).count() + " of " + ptrs.size()
        + " left");
    // More collections free nothing twice.
    for (int i = 0; i < 10; ++i) {
      System.gc();
      Thread.sleep(20);
    }
    int twice = 0;
    for (long ptr : ptrs) twice += destroyed.getOrDefault(ptr, 0) != 1 ? 1 : 0;
    checkEq(twice, 0, "unclosed handles freed more than once");
    // Exact counts (settle() cleared earlier garbage; pointers of closed handles may be
    // reused by later allocations, so those are counted, not looked up): close() ran for
    // a, the 50 and makeUnclosed's two scoped handles; the Cleaner for the unclosed ones
    // alone, not for any closed one.
    checkEq(Handle.closedCount.get() - closed0, 53L, "destroys by close()");
    checkEq(Handle.collectedCount.get() - collected0, (long) ptrs.size(),
        "destroys by the Cleaner");
    Handle.destroyHook = null;
  }

  /** This process's resident set size in bytes (VmRSS in /proc/self/status). */
  static long rssBytes() {
    try {
      java.nio.file.Path status = java.nio.file.Paths.get("/proc/self/status");
      for (String line : java.nio.file.Files.readAllLines(status)) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.split("\\s+")[1]) * 1024;
        }
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    throw new IllegalStateException("no VmRSS in /proc/self/status");
  }

  /**
   * 250,000 placements dropped unclosed, in ten chunks: the Cleaner frees every one
   * (collectedCount rises by exactly the number dropped), so native memory stays
   * bounded: RSS after the last chunk is within 48 MiB of RSS after the first; the
   * slack is the JVM's own heap, which may grow while it holds a chunk's garbage. Not a
   * million: with the machine loaded by other builds a million took 20 s (a parse
   * through JNI, a Cleaner registration and a collection each), and the exact count of
   * Cleaner destroys proves the point at any size.
   */
  static void unclosedMany() throws InterruptedException {
    settle();
    final int chunks = 40;  // a million placements in all
    final int perChunk = 25_000;
    long collected0 = Handle.collectedCount.get();
    long before = 0;
    for (int c = 0; c < chunks; ++c) {
      for (int i = 0; i < perChunk; ++i) {
        Placement.parse("cpu:[0]");
      }
      final long want = collected0 + (long) (c + 1) * perChunk;
      check(gcUntil(() -> Handle.collectedCount.get() >= want),
          "chunk " + c + ": the Cleaner freed " + (Handle.collectedCount.get() - collected0)
              + " of " + (long) (c + 1) * perChunk + " unclosed placements");
      if (c == 0) {
        before = rssBytes();
      }
    }
    long after = rssBytes();
    checkEq(Handle.collectedCount.get() - collected0, (long) chunks * perChunk,
        "unclosed placements freed by the Cleaner");
    check(after - before <= (48L << 20), "RSS grew from " + before + " to " + after
        + " bytes over " + (chunks - 1) * perChunk + " unclosed placements");
  }

  public static void main(String[] args) throws InterruptedException {
    lazyInit();
    exceptions();
    cleaner();
    unclosedMany();
    Checks.finish();
  }
}
