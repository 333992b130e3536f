package org.tessera;

/** Status {@link Status#DATA_LOSS}: data was lost or corrupted. */
public class DataLossException extends TesseraException {
  private static final long serialVersionUID = 1L;

  /**
   * A DATA_LOSS failure.
   *
   * @param message what is wrong, naming the argument and its value
   */
  public DataLossException(String message) {
    super(Status.DATA_LOSS, message);
  }
}
