"""tessera_fuzzer: one libFuzzer target and the test that replays its corpus.

tessera_fuzzer(name = "placement_parse", deps = [...]) takes `<name>_fuzzer.cc` (defining
LLVMFuzzerTestOneInput) and makes

  <name>_fuzz_test  a cc_test, in every build: replay_main.cc runs each file of
                    corpus/<name>/ (seeds and crash reproducers) through the target
                    once, so `bazel test //...` and --config=asan replay them all;
  <name>_fuzzer     the libFuzzer binary, only under --config=fuzz (clang,
                    -fsanitize=fuzzer,address,undefined; tools/fuzz.sh builds and runs
                    it); every other build skips it as incompatible.
"""

_INCOMPATIBLE = str(Label("@platforms//:incompatible"))

def tessera_fuzzer(name, deps, replay_tags = [], size = "small"):
    src = name + "_fuzzer.cc"
    corpus = native.glob(["corpus/%s/**" % name])
    if not corpus:
        fail("fuzz/corpus/%s/ holds no seed inputs" % name)
    native.cc_test(
        name = name + "_fuzz_test",
        size = size,
        srcs = [src],
        args = ["fuzz/corpus/" + name],
        data = corpus,
        tags = replay_tags,
        deps = deps + ["//fuzz:fuzz_input", "//fuzz:replay_main"],
    )
    native.cc_binary(
        name = name + "_fuzzer",
        srcs = [src],
        linkopts = ["-fsanitize=fuzzer"],
        tags = ["manual"],
        target_compatible_with = select({
            "//fuzz:fuzzing": [],
            "//conditions:default": [_INCOMPATIBLE],
        }),
        deps = deps + ["//fuzz:fuzz_input"],
    )
