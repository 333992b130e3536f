package org.tessera;

/**
 * Status {@link Status#UNIMPLEMENTED}: not supported in this build or for these arguments (f16,
 * cuda without a CUDA build).
 */
public class UnimplementedException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A UNIMPLEMENTED failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public UnimplementedException(String message) {
    super(Status.UNIMPLEMENTED, message);
  }
}
