package org.tessera;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Direct buffers in native byte order, the C API's host memory: made from Java arrays
 * ({@code bufferOf}) and read back into new ones ({@code toFloats}, ...: the inverse).
 * Package-private.
 */
final class HostBuffers {
  private HostBuffers() {}

  static ByteBuffer direct(long bytes) {
    return ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder());
  }

  static ByteBuffer bufferOf(float[] data) {
    ByteBuffer b = direct(4L * data.length);
    b.asFloatBuffer().put(data);
    return b;
  }

  static ByteBuffer bufferOf(double[] data) {
    ByteBuffer b = direct(8L * data.length);
    b.asDoubleBuffer().put(data);
    return b;
  }

  static ByteBuffer bufferOf(int[] data) {
    ByteBuffer b = direct(4L * data.length);
    b.asIntBuffer().put(data);
    return b;
  }

  static ByteBuffer bufferOf(long[] data) {
    ByteBuffer b = direct(8L * data.length);
    b.asLongBuffer().put(data);
    return b;
  }

  /** The whole of {@code b} (native order) as a new float[]: the inverse of bufferOf. */
  static float[] toFloats(ByteBuffer b) {
    float[] a = new float[b.capacity() / 4];
    b.asFloatBuffer().get(a);
    return a;
  }

  /** The whole of {@code b} (native order) as a new double[]: the inverse of bufferOf. */
  static double[] toDoubles(ByteBuffer b) {
    double[] a = new double[b.capacity() / 8];
    b.asDoubleBuffer().get(a);
    return a;
  }

  /** The whole of {@code b} (native order) as a new int[]: the inverse of bufferOf. */
  static int[] toInts(ByteBuffer b) {
    int[] a = new int[b.capacity() / 4];
    b.asIntBuffer().get(a);
    return a;
  }

  /** The whole of {@code b} (native order) as a new long[]: the inverse of bufferOf. */
  static long[] toLongs(ByteBuffer b) {
    long[] a = new long[b.capacity() / 8];
    b.asLongBuffer().get(a);
    return a;
  }
}
