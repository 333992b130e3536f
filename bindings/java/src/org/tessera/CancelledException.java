package org.tessera;

/** Status {@link Status#CANCELLED}: the operation was cancelled (a closed plan pipeline). */
public class CancelledException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A CANCELLED failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public CancelledException(String message) {
    super(Status.CANCELLED, message);
  }
}
