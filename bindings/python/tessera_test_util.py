"""What the Python binding's unittest files share."""

import sys
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


def mpi_main(min_world_size=1):
    """The main of a test script run under mpirun: every rank runs the unittest cases
    of __main__ (verbose on rank 0), finalizes and exits 1 on a failure or a world
    smaller than `min_world_size`, saying which rank failed."""
    rank, size = ts.world_rank(), ts.world_size()
    result = unittest.main(exit=False, verbosity=2 if rank == 0 else 1).result
    ok = result.wasSuccessful() and size >= min_world_size
    ts.finalize()
    if not ok:
        print("rank %d: FAILED (world size %d)" % (rank, size), file=sys.stderr)
    sys.exit(0 if ok else 1)
