package org.tessera;

/**
 * Status {@link Status#FAILED_PRECONDITION}: the state does not allow the call: before init, no
 * active capture, a rank outside the placement.
 */
public class FailedPreconditionException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A FAILED_PRECONDITION failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public FailedPreconditionException(String message) {
    super(Status.FAILED_PRECONDITION, message);
  }
}
