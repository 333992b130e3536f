// opgen: writes the typed op surfaces of every op in op::OpRegistry::Global(), the one
// place an op is declared (name, inputs, outputs, typed attributes with defaults, SBP
// signature rule, doc). Usage: opgen <root>; it (re)writes, under <root>:
//
//   capi/include/tessera/ops.h            tess_op_call_apply, tess_<op> per op,
//   tess_explanation_last capi/src/ops_generated.cc             their implementations
//   (capi/src/typed_ops.h) bindings/ops_generated.i              SWIG: %tess_expose, %apply of the
//   op arrays,
//                                         Python's GIL release
//   bindings/python/src/tessera/_ops_generated.py(i)   Python functions and stubs
//   bindings/java/src/org/tessera/Ops.java              Java static methods
//   bindings/go/tessera/ops_generated.go                Go functions
//
// The mapping (docs/c-api.md, "Typed ops"): inputs in order (a repeated input is an
// array and its length), then attributes in declaration order; int -> int64_t, float
// -> double, bool -> int32_t, ints -> (const int64_t*, size_t), dtype -> tess_dtype.
// Output "out" is the out-param `out`, any other output `out_<name>`.
#include "tools/opgen/opgen.h"

#include <fstream>
#include <iostream>
#include <string>

#include "core/op/op_registry.h"

namespace tessera::opgen {
namespace {

// Prefixes of the other C modules' functions: an op named like one would collide with
// them (tess_<op> is the ops' exception to tess_<noun>_<verb>).
const char* const kReservedPrefixes[] = {
    "runtime_",  "comm_",    "status_",  "last_error", "version",     "placement_", "nd_sbp_",
    "layout_",   "dtype_",   "op_",      "infer",      "explanation", "tensor_",    "boxing_",
    "bucketed_", "program_", "capture_", "plan_",      "allocator_"};

bool Check(const OpRegistry& reg) {
  bool ok = true;
  for (const std::string& name : reg.Names()) {
    for (const char* p : kReservedPrefixes) {
      if (name.rfind(p, 0) == 0) {
        std::cerr << "opgen: op \"" << name << "\" would collide with the C API's tess_" << p
                  << "* functions; rename the op\n";
        ok = false;
      }
    }
    const OpDef& def = **reg.Find(name);
    bool defaulted = false;
    for (const AttrDef& a : def.attrs()) {
      if (a.default_value) {
        defaulted = true;
      } else if (defaulted) {
        std::cerr << "opgen: op \"" << name << "\": required attribute \"" << a.name
                  << "\" follows one with a default; declare required attributes first\n";
        ok = false;
      }
    }
  }
  return ok;
}

bool Write(const std::string& root, const std::string& path, const std::string& text) {
  std::ofstream f(root + "/" + path, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) {
    std::cerr << "opgen: cannot write " << root << "/" << path << "\n";
    return false;
  }
  return true;
}

}  // namespace
}  // namespace tessera::opgen

int main(int argc, char** argv) {
  using namespace tessera::opgen;  // NOLINT: the generators, one per file
  if (argc != 2) {
    std::cerr << "usage: opgen <root>  (writes the generated op surfaces under <root>)\n";
    return 2;
  }
  const OpRegistry& reg = OpRegistry::Global();
  if (!Check(reg)) return 1;
  const std::string root = argv[1];
  bool ok = Write(root, "capi/include/tessera/ops.h", OpsHeader(reg)) &&
            Write(root, "capi/src/ops_generated.cc", OpsSource(reg)) &&
            Write(root, "bindings/ops_generated.i", SwigInterface(reg)) &&
            Write(root, "bindings/python/src/tessera/_ops_generated.py", PyModule(reg)) &&
            Write(root, "bindings/python/src/tessera/_ops_generated.pyi", PyStub(reg)) &&
            Write(root, "bindings/java/src/org/tessera/Ops.java", JavaOps(reg)) &&
            Write(root, "bindings/go/tessera/ops_generated.go", GoOps(reg));
  return ok ? 0 : 1;
}
