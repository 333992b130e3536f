package org.tessera;

import static org.tessera.Checks.check;
import static org.tessera.Checks.checkEq;
import static org.tessera.Checks.checkThrows;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;

/**
 * In a JVM of its own: Tessera.init(InitOptions) refuses bad options before anything
 * starts, then starts the runtime with good ones; Tessera.allocatorStats reads both host
 * allocators into immutable snapshots; shapes of every rank (0 dims included) come back
 * through the borrowed-shape getters.
 */
public final class InitOptionsTest {
  static void badOptions() {
    Checks.label("bad options: ");
    checkThrows(() -> Tessera.init((InitOptions) null), Status.INVALID_ARGUMENT,
        "Tessera.init: options is null", "null options");
    try {
      Tessera.init(InitOptions.builder().cudaDevice(-2).build());
      check(false, "cudaDevice -2: no exception");
    } catch (InvalidArgumentException e) {
      check(e.getStatusMessage().contains("cuda_device is -2"),
          "cudaDevice -2 named: " + e.getStatusMessage());
    }
    checkThrows(()
                    -> Tessera.init(InitOptions.builder().checkMode(2).build()),
        Status.INVALID_ARGUMENT,
        "options->check_mode is 2; expected 1 (on), 0 (off) or -1", "checkMode 2");
    checkThrows(() -> Tessera.init(InitOptions.builder().collectiveTimeoutSeconds(Double.NaN)
        .build()), Status.INVALID_ARGUMENT, "collective_timeout_seconds", "NaN timeout");
    if (!Tessera.cudaInfo().builtWithCuda) {
      try {
        Tessera.init(InitOptions.builder().cudaDevice(0).build());
        check(false, "cudaDevice 0 without CUDA: no exception");
      } catch (UnimplementedException e) {
        check(e.getStatusMessage().contains("cuda_device is 0"),
            "cudaDevice 0 named: " + e.getStatusMessage());
      }
    }
    check(!Tessera.isInitialized(), "refused options start nothing");
  }

  static void goodOptions() {
    Checks.label("good options: ");
    InitOptions defaults = InitOptions.builder().build();
    checkEq(defaults.collectiveTimeoutSeconds(), -1.0, "default timeout");
    checkEq(defaults.cudaDevice(), -1, "default cudaDevice");
    checkEq(defaults.checkMode(), -1, "default checkMode");
    checkEq(InitOptions.builder().check(true).build().checkMode(), 1, "check(true)");
    checkEq(InitOptions.builder().check(false).build().checkMode(), 0, "check(false)");
    InitOptions o = InitOptions.builder().collectiveTimeoutSeconds(7.5).build();
    Tessera.init(o);
    check(Tessera.isInitialized(), "initialised");
    checkEq(Tessera.worldSize(), 1, "worldSize");
    checkEq(Collectives.collectiveTimeout(), 7.5, "timeout applied");
    // Once started, the options are still checked and the timeout applied.
    Tessera.init(InitOptions.builder().collectiveTimeoutSeconds(0).build());
    checkEq(Collectives.collectiveTimeout(), 0.0, "timeout applied again");
    try {
      Tessera.init(InitOptions.builder().cudaDevice(-5).build());
      check(false, "cudaDevice -5 after start: no exception");
    } catch (InvalidArgumentException e) {
      check(e.getStatusMessage().contains("cuda_device is -5"), "cudaDevice -5 named");
    }
    Tessera.init(); // still idempotent
  }

  static void allocatorStats() throws Exception {
    Checks.label("allocatorStats: ");
    checkThrows(() -> Tessera.allocatorStats(null), Status.INVALID_ARGUMENT,
        "allocator is null", "null allocator");
    AllocatorStats before = Tessera.allocatorStats(Allocator.HOST_THREAD);
    try (Placement p = Placement.parse("cpu:[0]");
        NdSbp b = NdSbp.parse("B");
        Tensor t = Tensor.zeros(new long[] {1024}, "f32", p, b)) {
      checkEq(t.numElements(), 1024L, "tensor made");
      AllocatorStats during = Tessera.allocatorStats(Allocator.HOST_THREAD);
      check(during.numAllocs > before.numAllocs,
          "a tensor allocates from the thread's allocator: " + before + " -> " + during);
      check(during.bytesInUse >= before.bytesInUse + 4096, "4 KiB more in use: " + during);
      check(during.peakBytesInUse >= during.bytesInUse, "peak >= in use");
      check(during.bytesReserved >= during.bytesInUse, "reserved >= in use");
      check(during.numAllocs == during.numCacheHits + during.numSystemAllocs,
          "allocs = cache hits + system allocs: " + during);
    }
    AllocatorStats after = Tessera.allocatorStats(Allocator.HOST_THREAD);
    checkEq(after.bytesInUse, before.bytesInUse, "freed on close");
    check(after.numFrees > before.numFrees, "a free counted");
    AllocatorStats host = Tessera.allocatorStats(Allocator.HOST);
    check(host.numAllocs >= 0 && host.bytesReserved >= host.bytesInUse, "HOST readable");
    check(host.toString().startsWith("AllocatorStats(bytesInUse="), "toString");
    for (Field f : AllocatorStats.class.getDeclaredFields()) {
      check(Modifier.isFinal(f.getModifiers()), "immutable: " + f.getName() + " is final");
    }
  }

  static void shapes() {
    Checks.label("shapes: ");
    try (Placement p = Placement.parse("cpu:[0]");
        NdSbp b = NdSbp.parse("B");
        Tensor scalar = Tensor.full(new long[] {}, "f64", 2.5, p, b);
        Tensor m = Tensor.ones(new long[] {2, 3, 4}, "i64", p, b);
        Layout l = Layout.create(p, b, new long[] {}, 0)) {
      checkEq(scalar.ndim(), 0L, "0-dim ndim");
      check(Arrays.equals(scalar.shape(), new long[] {}), "0-dim shape");
      check(Arrays.equals(scalar.localShape(), new long[] {}), "0-dim local shape");
      checkEq(l.ndim(), 0L, "0-dim layout");
      checkThrows(() -> scalar.dim(0), Status.OUT_OF_RANGE,
          "Tensor.dim: dim 0 is outside the shape [] (0 dims)", "dim of a 0-dim tensor");
      check(Arrays.equals(m.shape(), new long[] {2, 3, 4}), "3-dim shape");
      checkEq(m.dim(2), 4L, "dim 2");
      checkThrows(() -> m.dim(-1), Status.OUT_OF_RANGE, "dim -1", "dim -1");
      long[] s1 = m.shape();
      s1[0] = 99;
      checkEq(m.dim(0), 2L, "shape() returns a copy");
    }
  }

  public static void main(String[] args) throws Exception {
    badOptions();
    goodOptions();
    allocatorStats();
    shapes();
    Tessera.shutdown();
    Checks.finish();
  }
}
