/* Go section of bindings/tessera.i: the raw layer, package internal/capi of the module
 * github.com/tessera-runtime/tessera/bindings/go/tessera.
 *
 * swig -go -cgo -intgosize 64 -package capi. The idiomatic package (tessera/*.go in
 * this folder) wraps it; users never import capi.
 *
 * - tess_status -> error. The C wrapper turns a failure into "code:message", reading
 *   tess_last_error_message() inside that same C call (goroutines move between OS
 *   threads, so a second Go->C call could read another thread's message); the Go
 *   side decodes it into NewError(code, message) (package tessera's *Error), or nil
 *   on success.
 * - Out-params are Go slices of at least one element that the wrapper fills
 *   (SWIG's OUTPUT convention): handles as []uintptr, int32_t as []int32,
 *   int64_t/size_t as []int64, uint64_t as []uint64, double as []float64.
 * - Borrowed shapes (const int64_t** out_dims, size_t* out_ndim) are one *[]int64 the
 *   wrapper sets to a Go-allocated copy of the dims.
 * - (const int64_t*, size_t) takes []int64, (const int32_t*, size_t) []int32, and
 *   tess_nd_sbp_create's (kinds, split_axes, num_axes) takes [][2]int32 pairs.
 *   An empty slice is passed on as (NULL, 0).
 * - Host buffers are []byte (the C API keeps no pointer): TESS_IN_BUFFER and
 *   TESS_INOUT_BUFFER pass an empty slice as NULL; TESS_OUT_BUFFER's length is the
 *   byte count, and so is TESS_IN_BUFFER's when paired with TESS_IN_BYTES.
 *   TESS_BUFFER_LIST is an []uintptr of addresses, TESS_IN_BUFFER_LIST a [][2]uintptr
 *   of {address, byte count} pairs. TESS_OPT_SHAPE is an []int64, nil for NULL.
 * - tess_op_call_apply takes []uintptr handles for its inputs and an []uintptr whose length
 *   is the capacity for its outputs, filled from index 0 (the rest stay 0).
 */

%go_import("strconv", "strings")

/* Include and library flags come from pkg-config's tessera.pc (an installed prefix's
 * lib/pkgconfig on PKG_CONFIG_PATH: tools/install.sh; docs/go.md). */
%insert(cgo_comment_typedefs) %{
#cgo pkg-config: tessera
%}

%fragment("AllocateString");
%{
/* "" on success; "code:message" on failure. */
static _gostring_ tess_go_status(tess_status status) {
  const char* message;
  size_t size;
  char* text;
  int n;
  _gostring_ result;
  if (status == TESS_OK) return Swig_AllocateString("", 0);
  message = tess_last_error_message();
  size = strlen(message) + 16;
  text = (char*)malloc(size);
  if (text == NULL) return Swig_AllocateString("13:out of memory reporting an error", 35);
  n = snprintf(text, size, "%d:%s", (int)status, message);
  result = Swig_AllocateString(text, n > 0 ? (size_t)n : 0);
  free(text);
  return result;
}
%}

%insert(go_wrapper) %{
// NewError builds the error a failed call returns from the C API's status code and
// message. Package tessera points it at its own *tessera.Error; this default is
// for the raw layer used alone.
var NewError = func(code int32, message string) error { return &rawError{code, message} }

type rawError struct {
	code    int32
	message string
}

func (e *rawError) Error() string { return Status_string(int(e.code)) + ": " + e.message }

// statusError decodes tess_go_status's text: nil for "", else NewError's error.
func statusError(text string) error {
	if text == "" {
		return nil
	}
	code := int64(UNKNOWN)
	message := text
	if i := strings.IndexByte(text, ':'); i >= 0 {
		if c, err := strconv.ParseInt(text[:i], 10, 32); err == nil {
			code, message = c, text[i+1:]
		}
	}
	return NewError(int32(code), message)
}
%}

/* --- Status -------------------------------------------------------------------- */
%typemap(gotype) tess_status "error"
%typemap(imtype) tess_status "string"
%typemap(out) tess_status %{ $result = tess_go_status($1); %}
%typemap(goout, fragment="CopyString") tess_status %{ $result = statusError(swigCopyString($1)) %}
/* tess_status_string takes a code, not a result. */
%apply int32_t { tess_status status };
%typemap(imtype) tess_status status "int"

/* --- Handle out-params ----------------------------------------------------------- */
%typemap(gotype) SWIGTYPE** "[]uintptr"
%typemap(in) SWIGTYPE** ($*1_ltype handle = NULL) {
  if ($input.len < 1) _swig_gopanic("out-param slice must have at least one element");
  $1 = &handle;
}
%typemap(argout) SWIGTYPE** { ((uintptr_t*)$input.array)[0] = (uintptr_t)handle$argnum; }

/* --- Scalar out-params ----------------------------------------------------------- */
%define TESS_GO_OUT(CTYPE, GOSLICE, GOELEM)
%typemap(gotype) CTYPE* TESS_OUT GOSLICE
%typemap(in) CTYPE* TESS_OUT (CTYPE value = 0) {
  if ($input.len < 1) _swig_gopanic("out-param slice must have at least one element");
  $1 = &value;
}
%typemap(argout) CTYPE* TESS_OUT { ((GOELEM*)$input.array)[0] = (GOELEM)value$argnum; }
%enddef
TESS_GO_OUT(int32_t, "[]int32", int32_t)
TESS_GO_OUT(int64_t, "[]int64", int64_t)
TESS_GO_OUT(uint64_t, "[]uint64", uint64_t)
TESS_GO_OUT(size_t, "[]int64", int64_t)
TESS_GO_OUT(double, "[]float64", double)

/* --- Borrowed shapes ------------------------------------------------------------ */
/* (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM) -> one *[]int64 that the
 * wrapper points at a Go-allocated copy of the dims (length ndim; empty, not nil, for
 * a 0-d shape and on failure). The C side hands the borrowed pointer and ndim back
 * through a two-element []uintptr; the Go side copies the dims out before the wrapper
 * returns, while the caller still holds the handle they were lent from (the
 * idiomatic layer's runtime.KeepAlive comes after the call). A nil *[]int64 is
 * allowed: the shape is then only checked for, not copied. */
%typemap(gotype) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM) "*[]int64"
%typemap(imtype) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM) "[]uintptr"
%typemap(goin) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM) %{
	$result = []uintptr{0, 0}
%}
%typemap(in) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM)
    (const int64_t* dims = NULL, size_t ndim = 0) {
  if ($input.len < 2) _swig_gopanic("shape holder must have two elements");
  $1 = ($1_ltype)&dims;
  $2 = &ndim;
}
%typemap(argout) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM) {
  ((uintptr_t*)$input.array)[0] = (uintptr_t)dims$argnum;
  ((uintptr_t*)$input.array)[1] = (uintptr_t)ndim$argnum;
}
%typemap(goargout) (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM) %{
	if $1 != nil {
		shape := make([]int64, int($input[1]))
		if len(shape) > 0 {
			copy(shape, unsafe.Slice((*int64)(unsafe.Pointer($input[0])), len(shape)))
		}
		*$1 = shape
	}
%}

/* --- Array inputs ---------------------------------------------------------------- */
%define TESS_GO_ARRAY(CTYPE, GOSLICE)
%typemap(gotype) (const CTYPE* TESS_ARRAY, size_t TESS_LEN) GOSLICE
%typemap(in) (const CTYPE* TESS_ARRAY, size_t TESS_LEN) {
  $1 = $input.len > 0 ? (CTYPE*)$input.array : NULL;
  $2 = (size_t)$input.len;
}
%enddef
TESS_GO_ARRAY(int32_t, "[]int32")
TESS_GO_ARRAY(int64_t, "[]int64")

/* [][2]int32{{kind, split_axis}, ...} for tess_nd_sbp_create. */
%typemap(gotype) (const tess_sbp_kind* kinds, const int32_t* split_axes, size_t num_axes)
    "[][2]int32"
%typemap(in) (const tess_sbp_kind* kinds, const int32_t* split_axes, size_t num_axes)
    (int32_t* kinds = NULL, int32_t* axes = NULL) {
  const int32_t* pairs = (const int32_t*)$input.array;
  size_t n = (size_t)$input.len, i;
  kinds = (int32_t*)malloc(sizeof(int32_t) * (n + 1));
  axes = (int32_t*)malloc(sizeof(int32_t) * (n + 1));
  if (kinds == NULL || axes == NULL) _swig_gopanic("out of memory");
  for (i = 0; i < n; ++i) {
    kinds[i] = pairs[2 * i];
    axes[i] = pairs[2 * i + 1];
  }
  $1 = kinds;
  $2 = axes;
  $3 = n;
}
%typemap(freearg) (const tess_sbp_kind* kinds, const int32_t* split_axes, size_t num_axes) {
  free(kinds$argnum);
  free(axes$argnum);
}

/* --- Host buffers -------------------------------------------------------------- */
%typemap(gotype) const void* TESS_IN_BUFFER "[]byte"
%typemap(in) const void* TESS_IN_BUFFER { $1 = $input.len > 0 ? $input.array : NULL; }

%typemap(gotype) (void* TESS_OUT_BUFFER, size_t TESS_OUT_BYTES) "[]byte"
%typemap(in) (void* TESS_OUT_BUFFER, size_t TESS_OUT_BYTES) {
  $1 = $input.array;
  $2 = (size_t)$input.len;
}

%typemap(gotype) (const void* TESS_IN_BUFFER, size_t TESS_IN_BYTES) "[]byte"
%typemap(in) (const void* TESS_IN_BUFFER, size_t TESS_IN_BYTES) {
  $1 = $input.len > 0 ? $input.array : NULL;
  $2 = (size_t)$input.len;
}

%typemap(gotype) void* TESS_INOUT_BUFFER "[]byte"
%typemap(in) void* TESS_INOUT_BUFFER { $1 = $input.len > 0 ? $input.array : NULL; }

/* []uintptr of buffer addresses (0 for NULL): a [][]byte would hand C Go pointers
 * to Go pointers, which cgo forbids. The caller keeps the buffers alive over the
 * call (runtime.KeepAlive); Go's heap does not move, and a goroutine's stack does
 * not move while it is inside a C call. */
%typemap(gotype) void* const* TESS_BUFFER_LIST "[]uintptr"
%typemap(in) void* const* TESS_BUFFER_LIST { $1 = ($1_ltype)$input.array; }

/* [][2]uintptr{{address, bytes}, ...} (address 0 for NULL), for the same reason; the
 * caller keeps the buffers alive over the call. */
%typemap(gotype) (const void* const* TESS_IN_BUFFER_LIST, const size_t* TESS_IN_BYTES_LIST,
                  size_t TESS_LIST_LEN) "[][2]uintptr"
%typemap(in) (const void* const* TESS_IN_BUFFER_LIST, const size_t* TESS_IN_BYTES_LIST,
              size_t TESS_LIST_LEN) (const void** pointers = NULL, size_t* sizes = NULL) {
  const uintptr_t* pairs = (const uintptr_t*)$input.array;
  size_t n = (size_t)$input.len, i;
  pointers = (const void**)malloc(sizeof(void*) * (n + 1));
  sizes = (size_t*)malloc(sizeof(size_t) * (n + 1));
  if (pointers == NULL || sizes == NULL) _swig_gopanic("out of memory");
  for (i = 0; i < n; ++i) {
    pointers[i] = (const void*)pairs[2 * i];
    sizes[i] = (size_t)pairs[2 * i + 1];
  }
  $1 = ($1_ltype)pointers;
  $2 = ($2_ltype)sizes;
  $3 = n;
}
%typemap(freearg) (const void* const* TESS_IN_BUFFER_LIST, const size_t* TESS_IN_BYTES_LIST,
                   size_t TESS_LIST_LEN) {
  free((void*)pointers$argnum);
  free(sizes$argnum);
}

%typemap(gotype) const int64_t* TESS_OPT_SHAPE "[]int64"
%typemap(in) const int64_t* TESS_OPT_SHAPE { $1 = (int64_t*)$input.array; }

/* --- tess_op_call_apply ------------------------------------------------------------------ */
%typemap(gotype) (tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs)
    "[]uintptr"
%typemap(in) (tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs)
    (size_t count = 0) {
  /* uintptr_t and a pointer have one size here, so the slice holds the handles. */
  $1 = (tess_tensor**)$input.array;
  $2 = (size_t)$input.len;
  $3 = &count;
}
/* The C API writes the handles straight into the slice; nothing to copy back. */
%typemap(argout) (tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs) ""

%typemap(gotype) (const tess_tensor* const* inputs, size_t num_inputs) "[]uintptr"
%typemap(in) (const tess_tensor* const* inputs, size_t num_inputs) {
  $1 = ($1_ltype)$input.array;
  $2 = (size_t)$input.len;
}
