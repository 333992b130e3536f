package org.tessera;

/** Status {@link Status#UNKNOWN}: an error the C API could not classify. */
public class UnknownException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A UNKNOWN failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public UnknownException(String message) {
    super(Status.UNKNOWN, message);
  }
}
