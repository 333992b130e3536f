package org.tessera;

/**
 * The SBP signature inference chose for an {@link OpCall}: the outputs' metas and
 * the nd-sbp each input is boxed into, with costs.
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class InferResult extends Handle {
  InferResult(long pointer) {
    super(pointer, TesseraJNI::delete_InferResult);
  }

  /** Destroys the result now; idempotent. */
  @Override
  public void close() {
    super.close();
  }

  /** The op's number of outputs. */
  public long numOutputs() {
    long[] out = {0};
    TesseraJNI.infer_result_num_outputs(out, ptr(), this);
    return out[0];
  }

  /** Output {@code output}'s logical shape. */
  public long[] outputShape(long output) {
    long[][] out = {null};
    TesseraJNI.infer_result_output_shape(out, ptr(), this, output);
    return out[0];
  }

  /** Output {@code output}'s dtype name, e.g. "f32". */
  public String outputDType(long output) {
    int[] out = {0};
    TesseraJNI.infer_result_output_dtype(out, ptr(), this, output);
    return DType.name(out[0]);
  }

  /** Output {@code output}'s placement (a new handle). */
  public Placement outputPlacement(long output) {
    long[] out = {0};
    TesseraJNI.infer_result_output_placement(out, ptr(), this, output);
    return new Placement(out[0]);
  }

  /** Output {@code output}'s nd-sbp (a new handle). */
  public NdSbp outputNdSbp(long output) {
    long[] out = {0};
    TesseraJNI.infer_result_output_nd_sbp(out, ptr(), this, output);
    return new NdSbp(out[0]);
  }

  /** The op's number of inputs. */
  public long numInputs() {
    long[] out = {0};
    TesseraJNI.infer_result_num_inputs(out, ptr(), this);
    return out[0];
  }

  /** The nd-sbp input {@code input} must be boxed into (a new handle). */
  public NdSbp inputNdSbp(long input) {
    long[] out = {0};
    TesseraJNI.infer_result_input_nd_sbp(out, ptr(), this, input);
    return new NdSbp(out[0]);
  }

  /** Whether input {@code input}'s data must move. */
  public boolean needsBoxing(long input) {
    int[] out = {0};
    TesseraJNI.infer_result_needs_boxing(out, ptr(), this, input);
    return out[0] != 0;
  }

  /** Modelled bytes moved to box input {@code input}. */
  public double inputCost(long input) {
    double[] out = {0};
    TesseraJNI.infer_result_input_cost(out, ptr(), this, input);
    return out[0];
  }

  /** The modelled bytes moved to box every input. */
  public double totalCost() {
    double[] out = {0};
    TesseraJNI.infer_result_total_cost(out, ptr(), this);
    return out[0];
  }

  /** The chosen signature's declared position; -1 on a 1-rank placement. */
  public int signatureIndex() {
    int[] out = {0};
    TesseraJNI.infer_result_signature_index(out, ptr(), this);
    return out[0];
  }

  /** How many signatures were candidates. */
  public int numCandidates() {
    int[] out = {0};
    TesseraJNI.infer_result_num_candidates(out, ptr(), this);
    return out[0];
  }
}
