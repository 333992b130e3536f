package org.tessera;

/**
 * Status {@link Status#NOT_FOUND}: something named does not exist: an op, a rank in a placement.
 */
public class NotFoundException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A NOT_FOUND failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public NotFoundException(String message) {
    super(Status.NOT_FOUND, message);
  }
}
