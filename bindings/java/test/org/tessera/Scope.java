package org.tessera;

import java.util.ArrayDeque;

/** Closes every handle added to it, the last first: one try-with-resources for many. */
final class Scope implements AutoCloseable {
  private final ArrayDeque<AutoCloseable> handles = new ArrayDeque<>();

  /** Returns {@code handle}, to be closed with the scope. */
  <T extends AutoCloseable> T add(T handle) {
    handles.push(handle);
    return handle;
  }

  @Override
  public void close() {
    while (!handles.isEmpty()) {
      try {
        handles.pop().close();
      } catch (Exception e) {
        throw new IllegalStateException("Scope.close", e);
      }
    }
  }
}
