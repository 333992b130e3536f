"""Public Bazel macros for code that uses Tessera (docs/bazel.md).

    load("@tessera//:defs.bzl", "tessera_mpi_test", "tessera_py_mpi_test")

    tessera_mpi_test(
        name = "allreduce_test",
        srcs = ["allreduce_test.c"],
        deps = ["@tessera//:tessera"],
        ranks = [1, 3],
    )

makes the tests allreduce_test_np1 and allreduce_test_np3, each running the program
under mpirun on that many local ranks, and the test_suite allreduce_test with both.
Every label here is a Label(), so the macros work the same in Tessera's own
workspace and in one that declares it with local_repository(name = "tessera", ...)
and calls tessera_dependencies() (//:repositories.bzl).

Java and Go have no counterpart: offline, Bazel 4.2.3 has no usable java_* rules (they
need the remote java_tools download) and no Go rules (rules_go is not installed), so
Tessera's own Java and Go tests are sh_tests that run javac / go build inside the test
(bindings/java, bindings/go). A Java or Go program uses the jar or Go module
outside Bazel (bindings/README.md).
"""

load("//bindings/python:python_tests.bzl", "python_mpi_tests")
load("//tests/comm:mpirun_tests.bzl", "mpirun_tests")

def tessera_mpi_test(name, srcs, deps = [], ranks = [1, 2, 3], copts = [], linkopts = [], env = {}, size = "small", tags = [], **kwargs):
    """A C or C++ program run under mpirun, one test per rank count.

    Makes the cc_binary `<name>_bin` from `srcs` and `deps`, the sh_tests `<name>_np<N>`
    for N in `ranks` (each runs `mpirun -np N <name>_bin` with the settings these
    machines need: shared-memory transport, oversubscription, a 50 s bound so a hung
    collective fails instead of waiting for Bazel's timeout), and the test_suite
    `<name>` with all of them. A test passes when every rank exits with 0.

    The tests are tagged "exclusive": N processes on a small machine must not overlap
    other tests.

    Args:
      name: the test_suite's name and the prefix of the other targets.
      srcs: the program's .c / .cc / .h files (with a main()).
      deps: its cc deps, typically "@tessera//:tessera" (the C API: <tessera/tessera.h>
        and libtessera.so); "@mpi" for direct MPI calls.
      ranks: the rank counts, one test each.
      copts: compiler flags for srcs.
      linkopts: linker flags for the program.
      env: environment of every rank.
      size: the tests' size.
      tags: the tests' tags, besides "exclusive".
      **kwargs: passed to every sh_test (timeout, flaky, target_compatible_with, ...).
    """
    binary = name + "_bin"
    native.cc_binary(
        name = binary,
        testonly = True,
        srcs = srcs,
        copts = copts,
        linkopts = linkopts,
        deps = deps,
        tags = tags,
        visibility = ["//visibility:private"],
    )
    tests = mpirun_tests(
        name = name,
        binary = ":" + binary,
        nps = ranks,
        env = env,
        size = size,
        tags = tags,
        **kwargs
    )
    native.test_suite(name = name, tests = [":" + t for t in tests])

def tessera_py_mpi_test(name, srcs, deps = [], ranks = [1, 2, 3], size = "small", tags = [], **kwargs):
    """A Python script that imports `tessera`, run under mpirun, one test per rank count.

    Makes the sh_tests `<name>_np<N>` for N in `ranks`, each running
    `mpirun -np N python3 <script>` with the tessera package (built from
    @tessera//bindings/python:tessera) on PYTHONPATH, and the test_suite `<name>`.
    Needs the Python toolchain tessera_dependencies() registers and numpy
    (Debian's python3-numpy).

    Args:
      name: the test_suite's name and the prefix of the tests.
      srcs: one .py file, the script to run.
      deps: other files the script imports; they must sit beside it (same package).
      ranks: the rank counts, one test each.
      size: the tests' size.
      tags: the tests' tags, besides "exclusive".
      **kwargs: passed to every sh_test.
    """
    if len(srcs) != 1:
        fail("tessera_py_mpi_test: srcs must be exactly one script, got %s" % srcs)
    tests = python_mpi_tests(
        name = name,
        script = srcs[0],
        nps = ranks,
        data = deps,
        size = size,
        tags = tags,
        **kwargs
    )
    native.test_suite(name = name, tests = [":" + t for t in tests])
