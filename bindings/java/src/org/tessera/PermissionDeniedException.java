package org.tessera;

/** Status {@link Status#PERMISSION_DENIED}: the caller may not do this. */
public class PermissionDeniedException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A PERMISSION_DENIED failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public PermissionDeniedException(String message) {
    super(Status.PERMISSION_DENIED, message);
  }
}
