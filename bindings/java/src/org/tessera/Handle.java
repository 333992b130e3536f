package org.tessera;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The base of every class that owns a C handle: {@link #close} destroys it at once, and
 * a {@link Cleaner} destroys it when the object is collected unclosed. Either way the
 * destroy function runs once: {@link Cleaner.Cleanable#clean} runs its action at most
 * once, so close() twice, or close() and then collection, frees nothing twice. After
 * close() the handle reads as 0 (NULL), which the C API rejects with INVALID_ARGUMENT.
 *
 * <p>Package-private: users see the public subclasses only.
 */
abstract class Handle implements AutoCloseable {
  private static final Cleaner CLEANER = Cleaner.create();

  /** Test hooks: handles destroyed by close() and by the Cleaner (after collection). */
  static final AtomicLong closedCount = new AtomicLong();
  static final AtomicLong collectedCount = new AtomicLong();

  /** Test hook: when set, called with each pointer just after it is destroyed. */
  static volatile LongConsumer destroyHook = null;

  /**
   * {@code shape[dim]} of a shape a borrowed-shape getter returned, or
   * OutOfRangeException naming {@code function}, the dim and the shape's rank.
   */
  static long dimOf(String function, long[] shape, long dim) {
    if (dim < 0 || dim >= shape.length) {
      throw new OutOfRangeException(function + ": dim " + dim + " is outside the shape "
          + java.util.Arrays.toString(shape).replace(" ", "") + " (" + shape.length
          + " dims)");
    }
    return shape[(int) dim];
  }

  /**
   * {@code index}, for a size_t parameter: size_t would turn a negative index into a
   * huge one, so OutOfRangeException names the one the caller gave ("{@code function}:
   * {@code what} -1 is negative").
   */
  static long sizeIndex(String function, String what, long index) {
    if (index < 0) {
      throw TesseraException.of(Status.OUT_OF_RANGE,
          function + ": " + what + " " + index + " is negative");
    }
    return index;
  }

  /**
   * The pointer and how to destroy it. It must not refer to the Handle (the Cleaner
   * would then keep it reachable forever).
   */
  private static final class Owner implements Runnable {
    private final AtomicLong pointer;
    private final LongConsumer destroy;
    /** Set by close() just before clean(): counts the destroy as a close. */
    volatile boolean closing;

    Owner(long pointer, LongConsumer destroy) {
      this.pointer = new AtomicLong(pointer);
      this.destroy = destroy;
    }

    @Override
    public void run() {
      long p = pointer.getAndSet(0);
      if (p == 0) {
        return;
      }
      // Not during tess_runtime_init / tess_runtime_finalize, which must not race with any call.
      Tessera.LIFECYCLE.readLock().lock();
      try {
        destroy.accept(p);
      } finally {
        Tessera.LIFECYCLE.readLock().unlock();
      }
      (closing ? closedCount : collectedCount).incrementAndGet();
      LongConsumer hook = destroyHook;
      if (hook != null) {
        hook.accept(p);
      }
    }
  }

  private final Owner owner;
  private final Cleaner.Cleanable cleanable;

  /** Takes ownership of {@code pointer} (non-zero), freed by {@code destroy}. */
  Handle(long pointer, LongConsumer destroy) {
    if (pointer == 0) {
      throw new IllegalStateException("tessera: a new handle is NULL");
    }
    owner = new Owner(pointer, destroy);
    cleanable = CLEANER.register(this, owner);
  }

  /** The C pointer; 0 once closed. */
  final long ptr() {
    return owner.pointer.get();
  }

  /** {@code h}'s C pointer; 0 (NULL) for null or a closed handle. */
  static long ptr(Handle h) {
    return h == null ? 0 : h.ptr();
  }

  /** Whether close() has run (or the handle was never valid). */
  final boolean isClosed() {
    return ptr() == 0;
  }

  /**
   * Destroys the C object now; later calls do nothing, and collection frees nothing
   * more. Not collective. Do not close a handle while another thread uses it.
   */
  @Override
  public void close() {
    owner.closing = true;
    cleanable.clean();
  }
}
