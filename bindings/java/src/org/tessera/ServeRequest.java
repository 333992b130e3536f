package org.tessera;

import java.nio.ByteBuffer;

/**
 * A request: the rows of one call of one plan of a {@link Server}, and after
 * {@link Server#run} its answer (the C API's {@code tess_serve_request}). Reusable: set
 * new inputs and run again. One thread uses a request at a time; requests of one server
 * may run from many threads at once. Made by {@link Server#newRequest}.
 *
 * <p>Inputs and outputs are row-major host data of the plan's dtypes: from and to Java
 * arrays (dtype-checked), byte arrays and direct buffers in native byte order.
 * Closing frees the C object at once; an unclosed one is freed when collected. Close
 * requests before their server.
 */
public final class ServeRequest extends Handle {
  /** The server that made it: kept reachable while the request is. */
  private final Server server;
  private final int planId;

  ServeRequest(long pointer, Server server, int planId) {
    super(pointer, TesseraJNI::delete_ServeRequest);
    this.server = server;
    this.planId = planId;
  }

  /** Destroys the request now; idempotent. */
  @Override
  public void close() {
    super.close();
  }

  /**
   * The plan this request runs.
   *
   * @return its id in the server
   */
  public int planId() {
    return planId;
  }

  /**
   * Copies input {@code index}'s rows from direct buffer {@code rows} (native byte
   * order, from its start, its capacity the byte count): a whole number of rows, 1 to
   * the plan's maxBatchRows. Every input of a request must hold the same number of rows.
   * INVALID_ARGUMENT naming the index and the sizes otherwise; OUT_OF_RANGE for a bad
   * index.
   *
   * @param index the input's index
   * @param rows the rows
   * @return this request
   */
  public ServeRequest setInput(long index, ByteBuffer rows) {
    TesseraJNI.serve_request_set_input(ptr(), this,
        sizeIndex("ServeRequest.setInput", "input index", index), rows);
    return this;
  }

  /**
   * The same from a byte array (native byte order), copied.
   *
   * @param index the input's index
   * @param rows the rows' bytes
   * @return this request
   */
  public ServeRequest setInput(long index, byte[] rows) {
    if (rows == null) {
      return setInput(index, (ByteBuffer) null);
    }
    ByteBuffer b = HostBuffers.direct(rows.length);
    b.put(rows).rewind();
    return setInput(index, b);
  }

  /** INVALID_ARGUMENT unless input {@code index} has {@code dtype}. */
  private void checkInputDType(String function, long index, int dtype) {
    int have = server.planInputDTypeCode(planId, sizeIndex(function, "input index", index));
    if (have != dtype) {
      throw TesseraException.of(Status.INVALID_ARGUMENT, function + ": input #" + index
          + " is " + DType.name(have) + ", not " + DType.name(dtype));
    }
  }

  /**
   * The same from the rows of an f32 input (INVALID_ARGUMENT for another dtype).
   *
   * @param index the input's index
   * @param rows the rows, row-major
   * @return this request
   */
  public ServeRequest setInput(long index, float[] rows) {
    checkInputDType("ServeRequest.setInput", index, DType.F32);
    return setInput(index, rows == null ? null : HostBuffers.bufferOf(rows));
  }

  /**
   * The same from the rows of an f64 input.
   *
   * @param index the input's index
   * @param rows the rows, row-major
   * @return this request
   */
  public ServeRequest setInput(long index, double[] rows) {
    checkInputDType("ServeRequest.setInput", index, DType.F64);
    return setInput(index, rows == null ? null : HostBuffers.bufferOf(rows));
  }

  /**
   * The same from the rows of an i32 input.
   *
   * @param index the input's index
   * @param rows the rows, row-major
   * @return this request
   */
  public ServeRequest setInput(long index, int[] rows) {
    checkInputDType("ServeRequest.setInput", index, DType.I32);
    return setInput(index, rows == null ? null : HostBuffers.bufferOf(rows));
  }

  /**
   * The same from the rows of an i64 input.
   *
   * @param index the input's index
   * @param rows the rows, row-major
   * @return this request
   */
  public ServeRequest setInput(long index, long[] rows) {
    checkInputDType("ServeRequest.setInput", index, DType.I64);
    return setInput(index, rows == null ? null : HostBuffers.bufferOf(rows));
  }

  /**
   * The rows of input 0 as last set.
   *
   * @return the rows; 0 before any setInput
   */
  public long rows() {
    long[] out = {0};
    TesseraJNI.serve_request_rows(out, ptr(), this);
    return out[0];
  }

  /**
   * The byte size of output {@code index} of the last successful run (rows x width x
   * element size). FAILED_PRECONDITION before one; OUT_OF_RANGE for a bad index.
   *
   * @param index the output's index
   * @return its bytes
   */
  public long outputByteCount(long index) {
    long[] out = {0};
    TesseraJNI.serve_request_output_bytes(out, ptr(), this,
        sizeIndex("ServeRequest.outputByteCount", "output index", index));
    return out[0];
  }

  /**
   * Copies output {@code index} of the last successful run (row-major, native byte
   * order) into direct buffer {@code out} from its start, allocating nothing.
   * INVALID_ARGUMENT when its capacity is below {@link #outputByteCount}.
   *
   * @param index the output's index
   * @param out a direct buffer
   */
  public void output(long index, ByteBuffer out) {
    TesseraJNI.serve_request_output(out, ptr(), this,
        sizeIndex("ServeRequest.output", "output index", index));
  }

  /** A new buffer holding output {@code index}, after checking its dtype (-1: any). */
  private ByteBuffer output(String function, long index, int dtype) {
    if (dtype >= 0) {
      int have = server.planOutputDTypeCode(planId, sizeIndex(function, "output index", index));
      if (have != dtype) {
        throw TesseraException.of(Status.INVALID_ARGUMENT, function + ": output #" + index
            + " is " + DType.name(have) + ", not " + DType.name(dtype));
      }
    }
    ByteBuffer b = HostBuffers.direct(outputByteCount(index));
    output(index, b);
    return b;
  }

  /**
   * A copy of output {@code index}'s bytes (native byte order).
   *
   * @param index the output's index
   * @return rows x width elements' bytes
   */
  public byte[] outputByteArray(long index) {
    ByteBuffer b = output("ServeRequest.outputByteArray", index, -1);
    byte[] a = new byte[b.capacity()];
    b.get(a);
    return a;
  }

  /**
   * A copy of f32 output {@code index} (INVALID_ARGUMENT for another dtype).
   *
   * @param index the output's index
   * @return rows x width values, row-major
   */
  public float[] outputFloatArray(long index) {
    return HostBuffers.toFloats(output("ServeRequest.outputFloatArray", index, DType.F32));
  }

  /**
   * A copy of f64 output {@code index}.
   *
   * @param index the output's index
   * @return rows x width values, row-major
   */
  public double[] outputDoubleArray(long index) {
    return HostBuffers.toDoubles(output("ServeRequest.outputDoubleArray", index, DType.F64));
  }

  /**
   * A copy of i32 output {@code index}.
   *
   * @param index the output's index
   * @return rows x width values, row-major
   */
  public int[] outputIntArray(long index) {
    return HostBuffers.toInts(output("ServeRequest.outputIntArray", index, DType.I32));
  }

  /**
   * A copy of i64 output {@code index}.
   *
   * @param index the output's index
   * @return rows x width values, row-major
   */
  public long[] outputLongArray(long index) {
    return HostBuffers.toLongs(output("ServeRequest.outputLongArray", index, DType.I64));
  }

  /** How the last run of a request went. */
  public static final class Info {
    /** Rows of the batch that served it. */
    public final long batchRows;
    /** Requests in that batch. */
    public final long batchRequests;
    /** From {@link Server#run} to the batch's start. */
    public final double queueSeconds;
    /** The batch: boxing in, the plan, gathering out. */
    public final double runSeconds;

    Info(long batchRows, long batchRequests, double queueSeconds, double runSeconds) {
      this.batchRows = batchRows;
      this.batchRequests = batchRequests;
      this.queueSeconds = queueSeconds;
      this.runSeconds = runSeconds;
    }

    @Override
    public String toString() {
      return "Info(batch of " + batchRows + " rows, " + batchRequests + " requests, queued "
          + queueSeconds + " s, run " + runSeconds + " s)";
    }
  }

  /**
   * How the last successful run went. FAILED_PRECONDITION before one.
   *
   * @return its info
   */
  public Info info() {
    long[] rows = {0}, requests = {0};
    double[] queue = {0}, run = {0};
    TesseraJNI.serve_request_get_info(rows, requests, queue, run, ptr(), this);
    return new Info(rows[0], requests[0], queue[0], run[0]);
  }

  /**
   * "ServeRequest(plan 0, 3 rows)"; "ServeRequest(closed)" once closed.
   *
   * @return the text
   */
  @Override
  public String toString() {
    if (isClosed()) {
      return "ServeRequest(closed)";
    }
    return "ServeRequest(plan " + planId + ", " + rows() + " rows)";
  }
}
