"""mpirun_tests: one sh_test per rank count around an MPI test program.

The implementation of the public tessera_mpi_test (//:defs.bzl); its labels are
Label()s, so it works the same from a workspace that uses Tessera as an external
repository.
"""

_MPIRUN_TEST = Label("//tests/comm:mpirun_test.sh")

def mpirun_tests(name, binary, nps = [1, 2, 3, 4], env = {}, target_compatible_with = [], **kwargs):
    """Runs `binary` under tests/comm/mpirun_test.sh as `<name>_np<N>` for N in nps.

    Tagged exclusive: each run starts up to 4 ranks on a 2-core machine, so runs
    must not overlap each other or other tests.

    Args:
      name: prefix of the test names.
      binary: label of the cc_binary to run.
      nps: rank counts.
      env: extra environment for the test (passed through mpirun to every rank).
      target_compatible_with: as for any rule, e.g. requires_cuda() for a program
        that exists only under --config=cuda.
      **kwargs: passed to every sh_test (size, tags added to "exclusive", visibility, ...).

    Returns:
      The names of the tests, in the order of nps.
    """
    tags = ["exclusive"] + kwargs.pop("tags", [])
    size = kwargs.pop("size", "small")
    tests = []
    for np in nps:
        test = "%s_np%d" % (name, np)
        native.sh_test(
            name = test,
            size = size,
            srcs = [_MPIRUN_TEST],
            args = [
                str(np),
                "$(location %s)" % binary,
            ],
            data = [binary],
            env = env,
            tags = tags,
            target_compatible_with = target_compatible_with,
            **kwargs
        )
        tests.append(test)
    return tests
