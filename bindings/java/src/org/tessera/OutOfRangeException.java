package org.tessera;

/** Status {@link Status#OUT_OF_RANGE}: an index or rank lies outside its range. */
public class OutOfRangeException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A OUT_OF_RANGE failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public OutOfRangeException(String message) {
    super(Status.OUT_OF_RANGE, message);
  }
}
