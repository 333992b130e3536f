"""Test macros of the Python binding: a py_test on the `tessera` module, and a
script run under mpirun on several world sizes. Their labels are Label()s, so the
public tessera_py_mpi_test (//:defs.bzl) works from another workspace too."""

_PY_MPI_TEST_SH = Label("//bindings/python:python_mpi_test.sh")

_TESSERA_PY = Label("//bindings/python:tessera")

_TESSERA_INIT_PY = Label("//bindings/python:pkg/tessera/__init__.py")

_MPIRUN_TEST_SH = Label("//tests/comm:mpirun_test.sh")

def tessera_py_test(name, srcs, deps = [], env = {}, size = "small"):
    """A py_test of `srcs` that imports `tessera` (and `deps`), run with `env`."""
    native.py_test(
        name = name,
        size = size,
        srcs = srcs,
        env = env,
        # No runfiles __init__.py: the workspace directory is also named "tessera".
        legacy_create_init = False,
        python_version = "PY3",
        deps = [_TESSERA_PY] + deps,
    )

def python_mpi_tests(name, script, nps, data = [], **kwargs):
    """sh_tests `<name>_np<N>` running `script` under mpirun on N ranks, for N in
    `nps`, through python_mpi_test.sh; `data`: modules the script imports besides
    tessera (they sit beside the script in the runfiles). Exclusive: up to N
    processes on 2 cores. `kwargs` go to every sh_test (size, tags, ...). Returns
    the tests' names."""
    tags = ["exclusive"] + kwargs.pop("tags", [])
    size = kwargs.pop("size", "small")
    tests = []
    for np in nps:
        test = "%s_np%d" % (name, np)
        native.sh_test(
            name = test,
            size = size,
            srcs = [_PY_MPI_TEST_SH],
            args = [
                str(np),
                "$(location %s)" % _MPIRUN_TEST_SH,
                "$(location %s)" % script,
                "$(location %s)" % _TESSERA_INIT_PY,
            ],
            data = [
                script,
                _TESSERA_INIT_PY,
                _TESSERA_PY,
                _MPIRUN_TEST_SH,
            ] + data,
            tags = tags,
            **kwargs
        )
        tests.append(test)
    return tests

def python_exit_tests(name, nps, script = None):
    """sh_tests `<name>_np<N>` running `script` (or, without one, the issue's
    acceptance one-liner) under mpirun on N ranks through python_exit_test.sh, which
    fails unless mpirun exits 0 and prints no Open MPI banner about a rank that
    exited improperly: the programs never call finalize(); the atexit hook does."""
    for np in nps:
        native.sh_test(
            name = "%s_np%d" % (name, np),
            size = "small",
            srcs = [Label("//bindings/python:python_exit_test.sh")],
            args = [
                str(np),
                "$(location %s)" % _MPIRUN_TEST_SH,
                "$(location %s)" % _TESSERA_INIT_PY,
            ] + (["$(location %s)" % script] if script else []),
            data = [
                _TESSERA_INIT_PY,
                _TESSERA_PY,
                _MPIRUN_TEST_SH,
            ] + ([script] if script else []),
            tags = ["exclusive"],
        )
