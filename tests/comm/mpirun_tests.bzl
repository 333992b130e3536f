"""mpirun_tests: one sh_test per rank count around an MPI test program."""

def mpirun_tests(name, binary, nps = [1, 2, 3, 4], env = {}, target_compatible_with = [], size = "small"):
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
    """
    for np in nps:
        native.sh_test(
            name = "%s_np%d" % (name, np),
            size = size,
            srcs = ["//tests/comm:mpirun_test.sh"],
            args = [
                str(np),
                "$(location %s)" % binary,
            ],
            data = [binary],
            env = env,
            tags = ["exclusive"],
            target_compatible_with = target_compatible_with,
        )
