"""service_tests: the shared service check (service_check.py) of an example service.

Declares <name>_np1 (seed 0) and <name>_np3 (seed 3): each starts the program under
tools/mpirun.sh, checks every endpoint of docs/serving.md against the model's reference,
and stops the job with SIGTERM, expecting exit status 0. And <name>_fault_np3: a follower
is killed while the service runs (mpirun --enable-recovery, a 1 s timeout): predict and
/healthz must answer 503 within the bound and the driver must still stop on SIGTERM.
Tagged exclusive (up to 3 ranks and a load of clients on a 2-core machine).
"""

def service_tests(name, program, args = [], size = "medium", tags = [], **kwargs):
    """One sh_test per rank count (1 and 3) around `program` (a runnable target)."""
    for np, seed in [(1, 0), (3, 3)]:
        native.sh_test(
            name = "%s_np%d" % (name, np),
            size = size,
            srcs = [Label("//tests/serve:service_check.sh")],
            args = [
                "--ranks",
                str(np),
                "--seed",
                str(seed),
                "--",
                "$(location %s)" % program,
            ] + args,
            data = [
                program,
                Label("//tests/serve:service_check.py"),
                Label("//tools:mpirun.sh"),
            ],
            tags = ["exclusive"] + tags,
            **kwargs
        )
    native.sh_test(
        name = "%s_fault_np3" % name,
        size = size,
        srcs = [Label("//tests/serve:service_check.sh")],
        args = ["--ranks", "3", "--fault", "kill", "--", "$(location %s)" % program] + args,
        data = [
            program,
            Label("//tests/serve:service_check.py"),
            Label("//tools:mpirun.sh"),
        ],
        tags = ["exclusive"] + tags,
        **kwargs
    )
