package org.tessera;

/** Which host caching allocator {@link Tessera#allocatorStats} reads. */
public enum Allocator {
  /** The process-wide host caching allocator (plan registers, staging). */
  HOST(TesseraJNI.ALLOCATOR_HOST_get()),
  /** The calling thread's own host caching allocator (eager tensors made on it). */
  HOST_THREAD(TesseraJNI.ALLOCATOR_HOST_THREAD_get());

  final int code;

  Allocator(int code) {
    this.code = code;
  }
}
