"""Test macros of the Python binding: a py_test on the `tessera` module, and a
script run under mpirun on several world sizes."""

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
        deps = [":tessera"] + deps,
    )

def python_mpi_tests(name, script, nps, data = []):
    """sh_tests `<name>_np<N>` running `script` under mpirun on N ranks, for N in
    `nps`, through python_mpi_test.sh; `data`: modules the script imports besides
    tessera (they sit beside the script in the runfiles). Exclusive: up to N
    processes on 2 cores."""
    for np in nps:
        native.sh_test(
            name = "%s_np%d" % (name, np),
            size = "small",
            srcs = ["python_mpi_test.sh"],
            args = [
                str(np),
                "$(location //tests/comm:mpirun_test.sh)",
                "$(location %s)" % script,
                "$(location :pkg/tessera/__init__.py)",
            ],
            data = [
                script,
                ":pkg/tessera/__init__.py",
                ":tessera",
                "//tests/comm:mpirun_test.sh",
            ] + data,
            tags = ["exclusive"],
        )

def python_exit_tests(name, nps, script = None):
    """sh_tests `<name>_np<N>` running `script` (or, without one, the issue's
    acceptance one-liner) under mpirun on N ranks through python_exit_test.sh, which
    fails unless mpirun exits 0 and prints no Open MPI banner about a rank that
    exited improperly: the programs never call finalize(); the atexit hook does."""
    for np in nps:
        native.sh_test(
            name = "%s_np%d" % (name, np),
            size = "small",
            srcs = ["python_exit_test.sh"],
            args = [
                str(np),
                "$(location //tests/comm:mpirun_test.sh)",
                "$(location :pkg/tessera/__init__.py)",
            ] + (["$(location %s)" % script] if script else []),
            data = [
                ":pkg/tessera/__init__.py",
                ":tessera",
                "//tests/comm:mpirun_test.sh",
            ] + ([script] if script else []),
            tags = ["exclusive"],
        )
