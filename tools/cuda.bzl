"""CUDA build rules: nvcc-compiled libraries and targets that exist only under --config=cuda.

Plain builds (`bazel test //...`) skip every target made with these macros (incompatible
target skipping), and never load the @cuda repository: all deps sit behind a select, so a
machine without /usr/local/cuda still builds everything else.

    load("//tools:cuda.bzl", "cuda_cc_library", "cuda_cc_test", "cuda_library")

    cuda_library(name = "kernels", srcs = ["k.cu"], hdrs = ["k.h"], deps = [...])
    cuda_cc_library(...)  # a plain C++ library that needs CUDA headers/libraries
    cuda_cc_test(...)     # a cc_test that needs CUDA
"""

# nvcc from the preinstalled toolkit; actions run with Bazel's default shell env, whose PATH
# (.bazelrc --action_env) lets nvcc find the host compiler g++.
_NVCC = "/usr/local/cuda/bin/nvcc"

# SASS for A100 (sm_80) and H100/H200 (sm_90), plus compute_90 PTX that the driver JIT-compiles
# on newer GPUs. Two real architectures keep compile time modest.
CUDA_GENCODE = [
    "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_90,code=compute_90",
]

_CUDA_ENABLED = str(Label("//tools:cuda_enabled"))

_INCOMPATIBLE = str(Label("@platforms//:incompatible"))

def requires_cuda():
    """`target_compatible_with` value: compatible only under --config=cuda."""
    return select({
        _CUDA_ENABLED: [],
        "//conditions:default": [_INCOMPATIBLE],
    })

def if_cuda(if_true, if_false = []):
    """`if_true` under --config=cuda, else `if_false`."""
    return select({
        _CUDA_ENABLED: if_true,
        "//conditions:default": if_false,
    })

def _nvcc_objects_impl(ctx):
    # Headers and include paths come from the C++ deps' CcInfo, so a .cu can include any
    # header its deps export, exactly like a .cc in a cc_library would.
    compilation = cc_common.merge_cc_infos(
        cc_infos = [dep[CcInfo] for dep in ctx.attr.deps],
    ).compilation_context
    headers = depset(ctx.files.hdrs, transitive = [compilation.headers])

    include_dirs = [".", ctx.genfiles_dir.path]
    if ctx.label.workspace_root:
        # Built from another workspace: this repository's root and its generated files
        # are under external/<name>, not at the execroot.
        include_dirs += [
            ctx.label.workspace_root,
            ctx.genfiles_dir.path + "/" + ctx.label.workspace_root,
        ]
    include_dirs += compilation.quote_includes.to_list()
    include_dirs += compilation.includes.to_list()

    objects = []
    for src in ctx.files.srcs:
        # .pic.o: compiled with -fPIC, so cc_library links it into shared and static outputs.
        obj = ctx.actions.declare_file(
            "_objs/{}/{}.pic.o".format(ctx.label.name, src.basename[:-len(".cu")]),
        )
        args = ctx.actions.args()
        args.add_all(["-c", "-std=c++17", "-O2", "-Xcompiler", "-fPIC", "-Xcompiler", "-Wall"])
        # nvcc's front end reports #2810 when the Status& returned by an assignment to a
        # [[nodiscard]] class is unused (status.h does that); g++ rightly does not. Real
        # discarded Status values still warn, as #3004 and from g++.
        args.add("-diag-suppress=2810")
        args.add_all(CUDA_GENCODE)
        args.add_all(include_dirs, format_each = "-I%s")
        args.add_all(compilation.system_includes, format_each = "--system-include=%s")
        args.add_all(compilation.defines, format_each = "-D%s")
        args.add("-DTESSERA_WITH_CUDA=1")
        args.add_all(ctx.attr.copts)
        args.add(src)
        args.add("-o", obj)
        ctx.actions.run(
            executable = _NVCC,
            arguments = [args],
            inputs = depset([src], transitive = [headers]),
            outputs = [obj],
            use_default_shell_env = True,
            mnemonic = "NvccCompile",
            progress_message = "Compiling CUDA %s" % src.short_path,
        )
        objects.append(obj)
    return [DefaultInfo(files = depset(objects))]

_nvcc_objects = rule(
    implementation = _nvcc_objects_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"]),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(),
    },
)

def cuda_library(name, srcs, hdrs = [], deps = [], copts = [], **kwargs):
    """A cc_library whose sources are .cu files compiled by nvcc.

    Args:
      name: the cc_library's name.
      srcs: .cu files, each compiled to its own object.
      hdrs: public headers; also visible to the .cu files.
      deps: cc_library deps; their headers are visible to nvcc and they are linked in.
      copts: extra nvcc flags (host-compiler flags need -Xcompiler).
      **kwargs: passed to the cc_library (visibility, testonly, ...).
    """
    target_compatible_with = kwargs.pop("target_compatible_with", [])
    _nvcc_objects(
        name = name + "_nvcc",
        srcs = srcs,
        hdrs = hdrs,
        deps = if_cuda(deps),
        copts = copts,
        target_compatible_with = requires_cuda(),
        testonly = kwargs.get("testonly", False),
        visibility = ["//visibility:private"],
    )
    native.cc_library(
        name = name,
        srcs = [":" + name + "_nvcc"],
        hdrs = hdrs,
        deps = if_cuda(deps + [Label("@cuda//:cudart")]),
        # nvcc registers each object's kernels from a static constructor; keep every object
        # so a kernel reached only through a registry is never dropped by the linker.
        alwayslink = True,
        target_compatible_with = requires_cuda() + target_compatible_with,
        **kwargs
    )

def cuda_cc_library(name, deps = [], **kwargs):
    """A cc_library (g++-compiled) that needs CUDA, e.g. to call cudart, cuBLAS or NCCL."""
    target_compatible_with = kwargs.pop("target_compatible_with", [])
    native.cc_library(
        name = name,
        deps = if_cuda(deps),
        target_compatible_with = requires_cuda() + target_compatible_with,
        **kwargs
    )

def cuda_cc_test(name, deps = [], **kwargs):
    """A cc_test that needs CUDA; skipped, not failed, outside --config=cuda."""
    target_compatible_with = kwargs.pop("target_compatible_with", [])
    native.cc_test(
        name = name,
        deps = if_cuda(deps),
        target_compatible_with = requires_cuda() + target_compatible_with,
        **kwargs
    )
