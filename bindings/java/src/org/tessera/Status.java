package org.tessera;

/**
 * The C API's status codes ({@code tess_status}): {@link TesseraException#getCode()}
 * is one of them, and each code but {@link #OK} has its exception subclass
 * ({@link InvalidArgumentException}, ...).
 */
public final class Status {
  private Status() {}

  /** TESS_OK from tessera.h. */
  public static final int OK = TesseraJNI.OK_get();
  /** TESS_CANCELLED from tessera.h. */
  public static final int CANCELLED = TesseraJNI.CANCELLED_get();
  /** TESS_UNKNOWN from tessera.h. */
  public static final int UNKNOWN = TesseraJNI.UNKNOWN_get();
  /** TESS_INVALID_ARGUMENT from tessera.h. */
  public static final int INVALID_ARGUMENT = TesseraJNI.INVALID_ARGUMENT_get();
  /** TESS_DEADLINE_EXCEEDED from tessera.h. */
  public static final int DEADLINE_EXCEEDED = TesseraJNI.DEADLINE_EXCEEDED_get();
  /** TESS_NOT_FOUND from tessera.h. */
  public static final int NOT_FOUND = TesseraJNI.NOT_FOUND_get();
  /** TESS_ALREADY_EXISTS from tessera.h. */
  public static final int ALREADY_EXISTS = TesseraJNI.ALREADY_EXISTS_get();
  /** TESS_PERMISSION_DENIED from tessera.h. */
  public static final int PERMISSION_DENIED = TesseraJNI.PERMISSION_DENIED_get();
  /** TESS_RESOURCE_EXHAUSTED from tessera.h. */
  public static final int RESOURCE_EXHAUSTED = TesseraJNI.RESOURCE_EXHAUSTED_get();
  /** TESS_FAILED_PRECONDITION from tessera.h. */
  public static final int FAILED_PRECONDITION = TesseraJNI.FAILED_PRECONDITION_get();
  /** TESS_ABORTED from tessera.h. */
  public static final int ABORTED = TesseraJNI.ABORTED_get();
  /** TESS_OUT_OF_RANGE from tessera.h. */
  public static final int OUT_OF_RANGE = TesseraJNI.OUT_OF_RANGE_get();
  /** TESS_UNIMPLEMENTED from tessera.h. */
  public static final int UNIMPLEMENTED = TesseraJNI.UNIMPLEMENTED_get();
  /** TESS_INTERNAL from tessera.h. */
  public static final int INTERNAL = TesseraJNI.INTERNAL_get();
  /** TESS_UNAVAILABLE from tessera.h. */
  public static final int UNAVAILABLE = TesseraJNI.UNAVAILABLE_get();
  /** TESS_DATA_LOSS from tessera.h. */
  public static final int DATA_LOSS = TesseraJNI.DATA_LOSS_get();

  /**
   * The name of a status code.
   *
   * @param code a status code
   * @return "INVALID_ARGUMENT" etc.; "UNKNOWN_CODE" for other values
   */
  public static String name(int code) {
    return TesseraJNI.status_string(code);
  }
}
