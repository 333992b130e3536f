"""Conversions of op attributes to what the C API takes (used by _ops_generated)."""

import numbers

from ._dtypes import dtype_code


def as_bool(value):
    """A C bool (int32_t): 1 or 0."""
    return 1 if value else 0


def as_ints(value):
    """An int list from None (empty), an int or a sequence of ints."""
    if value is None:
        return []
    if isinstance(value, numbers.Integral):
        return [int(value)]
    return [int(v) for v in value]


def as_dtype(value):
    """A dtype code from a name ("f32"), a numpy dtype or a code."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return dtype_code(value)
