package org.tessera;

/**
 * Status {@link Status#INVALID_ARGUMENT}: an argument is wrong whatever the state: a NULL handle,
 * a bad shape, a malformed text.
 */
public class InvalidArgumentException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A INVALID_ARGUMENT failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public InvalidArgumentException(String message) {
    super(Status.INVALID_ARGUMENT, message);
  }
}
