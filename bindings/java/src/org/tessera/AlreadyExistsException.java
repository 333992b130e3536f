package org.tessera;

/** Status {@link Status#ALREADY_EXISTS}: something to create exists already. */
public class AlreadyExistsException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A ALREADY_EXISTS failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public AlreadyExistsException(String message) {
    super(Status.ALREADY_EXISTS, message);
  }
}
