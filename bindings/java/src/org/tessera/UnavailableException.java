package org.tessera;

/**
 * Status {@link Status#UNAVAILABLE}: A resource is not available here (no CUDA device visible).
 */
public class UnavailableException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A UNAVAILABLE failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public UnavailableException(String message) {
    super(Status.UNAVAILABLE, message);
  }
}
