"""SWIG's handle classes as Python objects: every raw function `<prefix>_<verb>`
becomes a method `<verb>` of the handle class for <prefix>, nullary queries become
properties, and each class gets close(), `with` and str()."""

import functools

from . import _capi


def _close(self):
    """Destroys the handle now (idempotent). Later calls on it raise TypeError."""
    this = self.__dict__.get("this")
    if this is not None and this.own():
        self.__swig_destroy__(self)
    self.__dict__["this"] = None


def _enter(self):
    return self


def _exit(self, *exc_info):
    self.close()
    return False


def _as_method(fn):
    @functools.wraps(fn)
    def method(self, *args):
        return fn(self, *args)

    return method


def as_property(fn):
    return property(_as_method(fn), doc=fn.__doc__)


def handle_protocols(cls, to_string):
    """close(), `with` and str() (`to_string(self)`) for a handle class."""
    cls.close = _close
    cls.__enter__ = _enter
    cls.__exit__ = _exit
    cls.__str__ = to_string


def attach(cls, prefix, factories, properties, exclude=()):
    """Attaches each raw `prefix_verb` function of the SWIG module to `cls`:
    factories as static methods, `properties` as read-only properties, the rest
    (but `exclude`) as methods."""
    for name, fn in list(vars(_capi).items()):
        if not name.startswith(prefix) or not callable(fn):
            continue
        verb = name[len(prefix):]
        if verb in exclude:
            continue
        if verb in factories:
            setattr(cls, verb, staticmethod(fn))
        elif verb in properties:
            setattr(cls, verb, as_property(fn))
        else:
            setattr(cls, verb, _as_method(fn))
    handle_protocols(cls, lambda self: self.string)
