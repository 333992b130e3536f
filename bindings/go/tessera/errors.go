package tessera

import "github.com/tessera-runtime/tessera/bindings/go/tessera/internal/capi"

// Error is a failed Tessera call: the C API's status code and message. Every error
// the package returns is an *Error. Test for a code with errors.Is and a sentinel
// (errors.Is(err, tessera.ErrNotFound)); read the detail with errors.As.
type Error struct {
	Code    int32  // the status code, e.g. InvalidArgument (3)
	Status  string // the code's name, e.g. "INVALID_ARGUMENT"
	Message string // the C API's message, naming what is wrong and the values
}

// Error is "STATUS: message", e.g. "NOT_FOUND: rank 7 is not in cpu:[0,1]".
func (e *Error) Error() string { return e.Status + ": " + e.Message }

// Is reports whether target stands for e's code: the code's sentinel (ErrNotFound,
// ...) or another *Error with the same Code, so that the older form
// errors.Is(err, &tessera.Error{Code: tessera.NotFound}) works too.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case codeError:
		return int32(t) == e.Code
	case *Error:
		return t != nil && t.Code == e.Code
	}
	return false
}

// newError is the raw layer's constructor of errors (capi.NewError).
func newError(code int32, message string) error {
	return &Error{Code: code, Status: StatusString(code), Message: message}
}

// Setting a Go function variable starts nothing native: importing the package
// initialises no runtime (see Init).
func init() { capi.NewError = newError }

// codeError is a status code as a sentinel error; *Error.Is matches it by code.
type codeError int32

// Error is the code's name, e.g. "NOT_FOUND".
func (c codeError) Error() string { return StatusString(int32(c)) }

// Status codes (absl's canonical codes), the Code of an *Error.
const (
	OK                 = int32(capi.OK)
	Cancelled          = int32(capi.CANCELLED)
	Unknown            = int32(capi.UNKNOWN)
	InvalidArgument    = int32(capi.INVALID_ARGUMENT)
	DeadlineExceeded   = int32(capi.DEADLINE_EXCEEDED)
	NotFound           = int32(capi.NOT_FOUND)
	AlreadyExists      = int32(capi.ALREADY_EXISTS)
	PermissionDenied   = int32(capi.PERMISSION_DENIED)
	ResourceExhausted  = int32(capi.RESOURCE_EXHAUSTED)
	FailedPrecondition = int32(capi.FAILED_PRECONDITION)
	Aborted            = int32(capi.ABORTED)
	OutOfRange         = int32(capi.OUT_OF_RANGE)
	Unimplemented      = int32(capi.UNIMPLEMENTED)
	Internal           = int32(capi.INTERNAL)
	Unavailable        = int32(capi.UNAVAILABLE)
	DataLoss           = int32(capi.DATA_LOSS)
)

// Sentinel errors, one per status code: errors.Is(err, ErrInvalidArgument) reports
// whether err is an *Error with Code InvalidArgument (wrapped or not).
var (
	ErrCancelled          error = codeError(Cancelled)          // TESS_CANCELLED
	ErrUnknown            error = codeError(Unknown)            // TESS_UNKNOWN
	ErrInvalidArgument    error = codeError(InvalidArgument)    // TESS_INVALID_ARGUMENT
	ErrDeadlineExceeded   error = codeError(DeadlineExceeded)   // TESS_DEADLINE_EXCEEDED
	ErrNotFound           error = codeError(NotFound)           // TESS_NOT_FOUND
	ErrAlreadyExists      error = codeError(AlreadyExists)      // TESS_ALREADY_EXISTS
	ErrPermissionDenied   error = codeError(PermissionDenied)   // TESS_PERMISSION_DENIED
	ErrResourceExhausted  error = codeError(ResourceExhausted)  // TESS_RESOURCE_EXHAUSTED
	ErrFailedPrecondition error = codeError(FailedPrecondition) // TESS_FAILED_PRECONDITION
	ErrAborted            error = codeError(Aborted)            // TESS_ABORTED
	ErrOutOfRange         error = codeError(OutOfRange)         // TESS_OUT_OF_RANGE
	ErrUnimplemented      error = codeError(Unimplemented)      // TESS_UNIMPLEMENTED
	ErrInternal           error = codeError(Internal)           // TESS_INTERNAL
	ErrUnavailable        error = codeError(Unavailable)        // TESS_UNAVAILABLE
	ErrDataLoss           error = codeError(DataLoss)           // TESS_DATA_LOSS
)

// StatusString names a status code: "INVALID_ARGUMENT"; "UNKNOWN_CODE" if unknown.
func StatusString(code int32) string { return capi.Status_string(int(code)) }
