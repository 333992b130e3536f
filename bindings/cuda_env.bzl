"""The build's CUDA configuration as test environment, the oracle the bindings' tests
check cuda_info's built_with_cuda against."""

load("//tools:cuda.bzl", "if_cuda")

def cuda_build_env():
    """{"TESSERA_TEST_CUDA_BUILD": "1"} under --config=cuda, else "0"."""
    return if_cuda({"TESSERA_TEST_CUDA_BUILD": "1"}, {"TESSERA_TEST_CUDA_BUILD": "0"})
