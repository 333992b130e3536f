package org.tessera;

/** Status {@link Status#INTERNAL}: A bug inside Tessera or a backend (MPI, CUDA) failure. */
public class InternalException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A INTERNAL failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public InternalException(String message) {
    super(Status.INTERNAL, message);
  }
}
