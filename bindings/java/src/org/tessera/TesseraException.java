package org.tessera;

/**
 * A failed Tessera call: the C API's status code ({@link Status#INVALID_ARGUMENT}, ...)
 * and its message, read inside the failing native call. Each code has its own subclass
 * ({@link InvalidArgumentException}, {@link NotFoundException}, ...), so callers can
 * catch one kind of failure; {@link #of} picks it.
 */
public class TesseraException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The status code. */
  private final int code;
  /** The C API's message, without the status prefix. */
  private final String statusMessage;

  /** For the subclasses: {@code code} with the C API's {@code message}. */
  TesseraException(int code, String message) {
    super(Status.name(code) + ": " + message);
    this.code = code;
    this.statusMessage = message;
  }

  /**
   * The exception for status {@code code} (the subclass of that code; a plain
   * TesseraException for a code the C API does not define) with {@code message}.
   * The JNI wrappers throw what this returns.
   *
   * @param code a status code, e.g. {@link Status#NOT_FOUND}
   * @param message the message, naming what is wrong
   * @return the exception, not thrown
   */
  public static TesseraException of(int code, String message) {
    switch (code) {
      case 1:  // CANCELLED
        return new CancelledException(message);
      case 2:  // UNKNOWN
        return new UnknownException(message);
      case 3:  // INVALID_ARGUMENT
        return new InvalidArgumentException(message);
      case 4:  // DEADLINE_EXCEEDED
        return new DeadlineExceededException(message);
      case 5:  // NOT_FOUND
        return new NotFoundException(message);
      case 6:  // ALREADY_EXISTS
        return new AlreadyExistsException(message);
      case 7:  // PERMISSION_DENIED
        return new PermissionDeniedException(message);
      case 8:  // RESOURCE_EXHAUSTED
        return new ResourceExhaustedException(message);
      case 9:  // FAILED_PRECONDITION
        return new FailedPreconditionException(message);
      case 10:  // ABORTED
        return new AbortedException(message);
      case 11:  // OUT_OF_RANGE
        return new OutOfRangeException(message);
      case 12:  // UNIMPLEMENTED
        return new UnimplementedException(message);
      case 13:  // INTERNAL
        return new InternalException(message);
      case 14:  // UNAVAILABLE
        return new UnavailableException(message);
      case 15:  // DATA_LOSS
        return new DataLossException(message);
      default:
        return new TesseraException(code, message);
    }
  }

  /**
   * The status code.
   *
   * @return e.g. {@link Status#INVALID_ARGUMENT} (3)
   */
  public int getCode() {
    return code;
  }

  /**
   * The code's name.
   *
   * @return e.g. "INVALID_ARGUMENT"
   */
  public String getStatus() {
    return Status.name(code);
  }

  /**
   * The C API's message alone, without the status prefix.
   *
   * @return the message, e.g. {@code tess_placement_parse: argument "text" is NULL}
   */
  public String getStatusMessage() {
    return statusMessage;
  }
}
