package org.tessera;

/** Status {@link Status#RESOURCE_EXHAUSTED}: memory or another resource ran out. */
public class ResourceExhaustedException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A RESOURCE_EXHAUSTED failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public ResourceExhaustedException(String message) {
    super(Status.RESOURCE_EXHAUSTED, message);
  }
}
