package org.tessera;

/** Status {@link Status#DEADLINE_EXCEEDED}: A collective or a wait ran past its timeout. */
public class DeadlineExceededException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A DEADLINE_EXCEEDED failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public DeadlineExceededException(String message) {
    super(Status.DEADLINE_EXCEEDED, message);
  }
}
