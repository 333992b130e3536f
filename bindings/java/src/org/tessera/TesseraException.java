package org.tessera;

/**
 * A failed Tessera call: the C API's status code (Tessera.INVALID_ARGUMENT, ...) and
 * its message. Thrown by the native wrapper of the failing call itself.
 */
public class TesseraException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int code;
  private final String statusMessage;

  public TesseraException(int code, String message) {
    super(Tessera.status_string(code) + ": " + message);
    this.code = code;
    this.statusMessage = message;
  }

  /** The status code, e.g. Tessera.INVALID_ARGUMENT (3). */
  public int getCode() {
    return code;
  }

  /** The code's name, e.g. "INVALID_ARGUMENT". */
  public String getStatus() {
    return Tessera.status_string(code);
  }

  /** The C API's message alone, without the status prefix. */
  public String getStatusMessage() {
    return statusMessage;
  }
}
