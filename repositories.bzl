"""tessera_dependencies(): every external repository Tessera's build needs, offline.

The one place they are declared: Tessera's own WORKSPACE calls this macro, and so does
any workspace that uses Tessera as an external repository (docs/bazel.md):

    local_repository(name = "tessera", path = "/path/to/tessera")
    load("@tessera//:repositories.bzl", "tessera_dependencies")
    tessera_dependencies()

Nothing is downloaded. The Bazel shims (rules_cc, rules_java, remote_coverage_tools)
are directories of this repository; MPI, OpenBLAS, GoogleTest, CUDA and NCCL are the
system packages tools/setup.sh installs. SWIG, the JDK and Go are system programs the
build runs from PATH (.bazelrc's --action_env), not repositories, so nothing is declared
for them. A repository the calling workspace already declared is left as it is.
"""

load("//tools:version_repository.bzl", "tessera_version_repository")

def _tessera_local_repository_impl(rctx):
    # Tessera's root on this machine, wherever the calling workspace is: a path relative
    # to it (as local_repository would take) would resolve in the caller's workspace.
    directory = rctx.path(Label("//:WORKSPACE")).dirname
    for part in rctx.attr.path.split("/"):
        directory = directory.get_child(part)
    for child in directory.readdir():
        rctx.symlink(child, child.basename)
    if rctx.attr.build_file:
        rctx.symlink(rctx.attr.build_file, "BUILD.bazel")
    if not directory.get_child("WORKSPACE").exists:
        rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)

# A directory of this repository as a repository of its own (optionally with a BUILD
# file from elsewhere): local_repository / new_local_repository with the path taken
# relative to Tessera's root instead of the calling workspace's.
_tessera_local_repository = repository_rule(
    implementation = _tessera_local_repository_impl,
    attrs = {
        "path": attr.string(mandatory = True, doc = "Directory, relative to Tessera's root."),
        "build_file": attr.label(allow_single_file = True),
    },
    local = True,
)

def _maybe(rule, name, **kwargs):
    if name not in native.existing_rules():
        rule(name = name, **kwargs)

def tessera_dependencies():
    """Declares the repositories Tessera needs and registers its Python toolchain.

    Repositories: rules_cc, rules_java, remote_coverage_tools (local shims that stand in
    for what Bazel 4.2.3 would download), platforms and bazel_skylib (Debian's
    bazel-platforms / bazel-skylib), mpi (Open MPI), system_libs (OpenBLAS, GoogleTest,
    Google Benchmark), cuda (the CUDA toolkit with cuBLAS and NCCL; only fetched by
    targets built under --config=cuda) and tessera_version (version.h's numbers for
    BUILD files, tools/version_repository.bzl). Toolchain: Debian's /usr/bin/python3 for
    py_binary / py_test.
    """

    # Bazel 4.2.3 would download these three; local shims stand in. Declared before
    # Bazel's own WORKSPACE suffix, which then leaves them alone.
    _maybe(_tessera_local_repository, "rules_cc", path = "third_party/rules_cc")
    _maybe(_tessera_local_repository, "rules_java", path = "third_party/rules_java")
    _maybe(
        _tessera_local_repository,
        "remote_coverage_tools",
        path = "third_party/remote_coverage_tools",
    )

    # Debian's bazel-platforms / bazel-skylib packages.
    _maybe(native.local_repository, "platforms", path = "/usr/share/bazel/tools/platforms")
    _maybe(native.local_repository, "bazel_skylib", path = "/usr/share/bazel/tools/skylib")

    # Open MPI (libopenmpi-dev): headers live outside the compiler's built-in search path.
    _maybe(
        native.new_local_repository,
        "mpi",
        build_file = str(Label("//third_party:mpi.BUILD")),
        path = "/usr/lib/x86_64-linux-gnu/openmpi",
    )

    # Libraries whose headers sit in /usr/include (libgtest-dev, libbenchmark-dev,
    # libopenblas-dev): the repository only names the link flags.
    _maybe(
        _tessera_local_repository,
        "system_libs",
        build_file = Label("//third_party:system_libs.BUILD"),
        path = "third_party/system_libs",
    )

    # CUDA 13 toolkit with cuBLAS and NCCL; only referenced by targets built under
    # --config=cuda, so plain builds never touch it.
    _maybe(
        native.new_local_repository,
        "cuda",
        build_file = str(Label("//third_party:cuda.BUILD")),
        path = "/usr/local/cuda",
    )

    # The version numbers of capi/include/tessera/version.h (the one place they are
    # written) for BUILD files that need them at loading time: libtessera.so's SONAME
    # and the libtessera.so.<major> file the examples load.
    _maybe(
        tessera_version_repository,
        "tessera_version",
        header = Label("//capi:include/tessera/version.h"),
    )

    # Bazel's Python is Debian's /usr/bin/python3 (which sees python3-numpy).
    native.register_toolchains(str(Label("//third_party/python:python_toolchain")))
