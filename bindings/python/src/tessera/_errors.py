"""TesseraError and its per-code subclasses. The SWIG layer raises them: a failing
tess_status becomes `_make_error(code, tess_last_error_message())`, built inside the
failing wrapper call."""

from . import _capi


class TesseraError(Exception):
    """A failed Tessera call: `code` (TESS_* status code), `message` (the C API's
    text), `status` (the code's name, e.g. "INVALID_ARGUMENT")."""

    def __init__(self, code, message):
        self.code = int(code)
        self.message = message
        self.status = _capi.status_string(self.code)
        super().__init__("%s: %s" % (self.status, message))


TesseraError.__module__ = "tessera"


def _error_class(name, code, *bases):
    cls = type(name, (TesseraError,) + bases, {"CODE": code, "__module__": "tessera"})
    cls.__doc__ = "TesseraError with code %s (%d)." % (_capi.status_string(code), code)
    return cls


CancelledError = _error_class("CancelledError", _capi.CANCELLED)
UnknownError = _error_class("UnknownError", _capi.UNKNOWN)
InvalidArgumentError = _error_class("InvalidArgumentError", _capi.INVALID_ARGUMENT, ValueError)
DeadlineExceededError = _error_class("DeadlineExceededError", _capi.DEADLINE_EXCEEDED,
                                     TimeoutError)
NotFoundError = _error_class("NotFoundError", _capi.NOT_FOUND, LookupError)
AlreadyExistsError = _error_class("AlreadyExistsError", _capi.ALREADY_EXISTS)
PermissionDeniedError = _error_class("PermissionDeniedError", _capi.PERMISSION_DENIED)
ResourceExhaustedError = _error_class("ResourceExhaustedError", _capi.RESOURCE_EXHAUSTED,
                                      MemoryError)
FailedPreconditionError = _error_class("FailedPreconditionError", _capi.FAILED_PRECONDITION)
AbortedError = _error_class("AbortedError", _capi.ABORTED)
OutOfRangeError = _error_class("OutOfRangeError", _capi.OUT_OF_RANGE, IndexError)
UnimplementedError = _error_class("UnimplementedError", _capi.UNIMPLEMENTED, NotImplementedError)
InternalError = _error_class("InternalError", _capi.INTERNAL)
UnavailableError = _error_class("UnavailableError", _capi.UNAVAILABLE)
DataLossError = _error_class("DataLossError", _capi.DATA_LOSS)

ERROR_CLASSES = (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, ResourceExhaustedError, FailedPreconditionError,
    AbortedError, OutOfRangeError, UnimplementedError, InternalError, UnavailableError,
    DataLossError,
)

_ERRORS_BY_CODE = {cls.CODE: cls for cls in ERROR_CLASSES}


def _make_error(code, message):
    cls = _ERRORS_BY_CODE.get(code)
    return cls(code, message) if cls is not None else TesseraError(code, message)


def invalid_argument(message):
    """An InvalidArgumentError raised by the Python layer itself."""
    return InvalidArgumentError(_capi.INVALID_ARGUMENT, message)


def failed_precondition(message):
    return FailedPreconditionError(_capi.FAILED_PRECONDITION, message)


_capi._set_error_factory(_make_error)
