"""Element types: tess_dtype codes <-> numpy dtypes and names. numpy is optional:
the placement / inference API works without it."""

from . import _capi
from ._errors import UnimplementedError, invalid_argument

try:
    import numpy as _np
except ImportError:
    _np = None

# bf16 has no numpy type of its own; ml_dtypes (pip install ml_dtypes) provides one.
# Without it, bf16 tensors still work but cannot become numpy arrays: numpy_dtype
# raises an error that says so.
# Only with numpy: ml_dtypes needs it, and its extension prints numpy's import error
# to stderr before raising when numpy is missing.
_ml_dtypes = None
if _np is not None:
    try:
        import ml_dtypes as _ml_dtypes
    except ImportError:
        _ml_dtypes = None


def numpy():
    if _np is None:
        raise ImportError("tessera tensors need numpy (Debian: python3-numpy)")
    return _np


def has_numpy():
    """Whether numpy can be imported."""
    return _np is not None


def has_numpy_array(value):
    return _np is not None and isinstance(value, _np.ndarray)


# tess_dtype <-> numpy dtype names. bf16 is ml_dtypes.bfloat16 where ml_dtypes imports.
_NUMPY_NAMES = {_capi.DTYPE_F32: "float32", _capi.DTYPE_F64: "float64",
                _capi.DTYPE_I32: "int32", _capi.DTYPE_I64: "int64",
                _capi.DTYPE_F16: "float16", _capi.DTYPE_BOOL: "bool"}
if _ml_dtypes is not None:
    _NUMPY_NAMES[_capi.DTYPE_BF16] = "bfloat16"
_DTYPE_OF_NUMPY = {name: code for code, name in _NUMPY_NAMES.items()}
float32, float64, int32, int64, float16 = "float32", "float64", "int32", "int64", "float16"
bfloat16 = "bf16"
bool_ = "bool"


def dtype(value):
    """A tess_dtype from a name ("f32") or a DTYPE_* value."""
    return _capi.dtype_parse(value) if isinstance(value, str) else value


def dtype_code(value):
    """A tess_dtype from a numpy dtype or type, a name ("float32", "f32") or DTYPE_*."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value not in _DTYPE_OF_NUMPY:
        return _capi.dtype_parse(value)
    name = value if isinstance(value, str) else numpy().dtype(value).name
    if name not in _DTYPE_OF_NUMPY:
        raise invalid_argument("dtype %s has no Tessera dtype; float32, float64, int32, int64, "
                               "float16 and bool do" % name)
    return _DTYPE_OF_NUMPY[name]


def has_bfloat16():
    """Whether bf16 tensors convert to and from numpy (ml_dtypes imports)."""
    return _ml_dtypes is not None


def raw(array):
    """`array` as the C API reads it: bf16 (ml_dtypes) as its uint16 bits, since numpy's
    buffer protocol does not export ml_dtypes' types; any other array as it is."""
    if _ml_dtypes is not None and array.dtype == _ml_dtypes.bfloat16:
        return array.view(numpy().uint16)
    return array


def numpy_dtype(code):
    if code == _capi.DTYPE_BF16:
        if _ml_dtypes is None:
            raise UnimplementedError(
                _capi.UNIMPLEMENTED,
                "dtype bf16 has no numpy type without ml_dtypes (pip install ml_dtypes)")
        return numpy().dtype(_ml_dtypes.bfloat16)
    name = _NUMPY_NAMES.get(code)
    if name is None:
        raise UnimplementedError(_capi.UNIMPLEMENTED,
                                 "dtype %s has no numpy type" % _capi.dtype_name(code))
    return numpy().dtype(name)


def in_place(function, name, array):
    """`array` as a numpy array that can be written in place."""
    np = numpy()
    if not isinstance(array, np.ndarray):
        raise TypeError("%s: %s is not a numpy array but %s"
                        % (function, name, type(array).__name__))
    if not (array.flags.c_contiguous and array.flags.writeable):
        raise invalid_argument(
            "%s: %s must be C-contiguous and writable: it is reduced in place" % (function, name))
    return array
