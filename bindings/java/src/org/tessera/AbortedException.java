package org.tessera;

/** Status {@link Status#ABORTED}: the operation was aborted. */
public class AbortedException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A ABORTED failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public AbortedException(String message) {
    super(Status.ABORTED, message);
  }
}
