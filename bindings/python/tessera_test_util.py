"""What the Python binding's unittest files share."""

import unittest

import tessera as ts


class TesseraTestCase(unittest.TestCase):
    def assertTesseraError(self, cls, text, fn, *args, **kwargs):
        """fn(*args, **kwargs) raises `cls`, a TesseraError whose C message contains
        `text`; returns the exception."""
        with self.assertRaises(cls) as ctx:
            fn(*args, **kwargs)
        self.assertIsInstance(ctx.exception, ts.TesseraError)
        self.assertIn(text, ctx.exception.message)
        return ctx.exception
