package org.tessera;

/** Status {@link Tessera#PERMISSION_DENIED}: the caller may not do this. */
public class PermissionDeniedException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A PERMISSION_DENIED failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public PermissionDeniedException(String message) {
    super(Tessera.PERMISSION_DENIED, message);
  }
}
