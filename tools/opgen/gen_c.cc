// opgen: the C header and implementation of the typed ops, and the SWIG list.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/common/dtype.h"
#include "tools/opgen/opgen.h"

namespace tessera::opgen {

// ---- C ---------------------------------------------------------------------------

std::string CParams(const OpDef& def) {
  std::string p;
  auto add = [&p](const std::string& s) { p += (p.empty() ? "" : ", ") + s; };
  for (size_t i = 0; i < def.outputs().size(); ++i) add("tess_tensor** " + OutParam(def, i));
  for (const auto& in : def.inputs()) {
    if (in.repeated()) {
      add("const tess_tensor* const* " + in.name + ", size_t num_" + in.name);
    } else {
      add("const tess_tensor* " + in.name);
    }
  }
  for (const AttrDef& a : def.attrs()) {
    switch (a.type) {
      case AttrType::kInt: add("int64_t " + a.name); break;
      case AttrType::kFloat: add("double " + a.name); break;
      case AttrType::kBool: add("int32_t " + a.name); break;
      case AttrType::kInts: add("const int64_t* " + a.name + ", size_t num_" + a.name); break;
      case AttrType::kDType: add("tess_dtype " + a.name); break;
    }
  }
  return p;
}

// Wraps a comment body at ~88 columns with `prefix` on each line.
std::string Wrap(const std::string& text, const std::string& first, const std::string& prefix,
                 size_t width) {
  std::istringstream words(text);
  std::string word, line = first, out;
  bool empty = true;
  while (words >> word) {
    if (!empty && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = prefix;
      empty = true;
    }
    line += (empty ? "" : " ") + word;
    empty = false;
  }
  return out + line + "\n";
}

// `open` + the comma-separated `args` + `close`, in 100 columns: arguments that do
// not fit continue on lines aligned after `open` (clang-format's way).
std::string WrapCall(const std::string& open, const std::string& args, const std::string& close,
                     size_t width) {
  if (open.size() + args.size() + close.size() <= width) return open + args + close + "\n";
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t comma = args.find(", ", start);
    parts.push_back(args.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 2;
  }
  const std::string indent(open.size(), ' ');
  std::string out, line = open;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string piece = parts[i] + (i + 1 == parts.size() ? close : ",");
    if (line.size() > open.size() && line.size() + 1 + piece.size() > width) {
      out += line + "\n";
      line = indent + piece;
    } else {
      line += (line.size() > open.size() ? " " : "") + piece;
    }
  }
  return out + line + "\n";
}

// Appends `close` to the last line of `wrapped` when it fits in 100 columns, else on a
// line of its own after `indent`.
std::string CloseComment(std::string wrapped, const std::string& close, const std::string& indent) {
  wrapped.pop_back();  // the last newline
  const size_t last = wrapped.rfind('\n');
  const size_t len = wrapped.size() - (last == std::string::npos ? 0 : last + 1);
  if (len + close.size() <= 100) return wrapped + close + "\n";
  return wrapped + "\n" + indent + (close[0] == ' ' ? close.substr(1) : close) + "\n";
}

std::string AttrSummary(const OpDef& def) {
  std::string s;
  for (const AttrDef& a : def.attrs()) {
    s += (s.empty() ? "" : ", ") + a.name + ": " + tessera::op::AttrTypeName(a.type) + " = " +
         DefaultText(a);
  }
  return s;
}

std::string OneLineDoc(const OpDef& def) {
  std::string d = def.doc();
  std::string attrs = AttrSummary(def);
  if (!attrs.empty()) d += ". Attributes (C: every one is a parameter): " + attrs;
  return d + ".";
}

std::string OpsHeader(const OpRegistry& reg) {
  Writer w;
  w << "/* " << kGenerated << ".\n"
    << " * Regenerate with tools/opgen.sh after changing an op definition (core/op/ops/).\n"
    << " *\n"
    << " * Tessera C API. Ops on eager tensors: tess_op_call_apply, one typed function per op of "
       "the\n"
    << " * op registry, tess_explanation_last.\n"
    << " *\n"
    << " * Part of <tessera/tessera.h>, which includes every module; this header\n"
    << " * compiles alone. Conventions: <tessera/common.h>.\n"
    << " */\n"
    << "#ifndef TESSERA_OPS_H_\n#define TESSERA_OPS_H_\n\n"
    << "#include <stddef.h>\n#include <stdint.h>\n\n"
    << "#include \"tessera/common.h\"\n#include \"tessera/dtype.h\"\n#include \"tessera/infer.h\"\n"
    << "#include \"tessera/status.h\"\n#include \"tessera/tensor.h\"\n\n"
    << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
    << "/* Runs the op of `call` (its attributes and constraints; tess_op_call_add_input is\n"
    << " * for inference and must not have been used) on `inputs`: SBP signature inference\n"
    << " * through the calling thread's cache, boxing of the inputs that need it, then the\n"
    << " * local kernel. Writes *num_outputs new tensors to outputs[0..]. All inputs must\n"
    << " * share one placement (tess_tensor_to_global moves one). INVALID_ARGUMENT for a\n"
    << " * call with input metas, outputs_capacity below the op's output count, a NULL\n"
    << " * input, or inputs the op rejects (the message names the op and the input).\n"
    << " * Collective over the inputs' placement. Thread safety: the call may be shared by\n"
    << " * several threads while none changes it. */\n"
    << "TESS_API tess_status tess_op_call_apply(tess_tensor** outputs, size_t outputs_capacity, "
       "size_t* num_outputs,\n"
    << "                                const tess_op_call* call, const tess_tensor* const* "
       "inputs,\n"
    << "                                size_t num_inputs);\n\n"
    << "/* Typed ops: tess_<op> runs the registered op <op> exactly as tess_op_call_apply would,\n"
    << " * with every attribute a parameter (in declaration order, after the inputs; a bool\n"
    << " * is an int32_t, nonzero = true; an int list is a pointer and its length; a dtype is\n"
    << " * a tess_dtype). Out-params first: `out`, or `out_<name>` per output of an op with\n"
    << " * several. A repeated input is an array and its length. A warm call with the\n"
    << " * inference cached, no boxing and the attributes of the thread's previous call of\n"
    << " * the op allocates only its outputs (handle and core tensor) and takes no lock.\n"
    << " * On failure the out-params are untouched. Collective over the inputs' placement;\n"
    << " * thread-safe. */\n\n";
  for (const std::string& name : reg.Names()) {
    const OpDef& def = **reg.Find(name);
    w << CloseComment(Wrap(OneLineDoc(def), "/* " + def.name() + ": ", " * "), " */", "");
    w << WrapCall("TESS_API tess_status tess_" + def.name() + "(", CParams(def), ");");
  }
  w << "\n/* The full inference record (see tess_op_call_explain) of the calling thread's last op\n"
    << " * (tess_op_call_apply or a typed op), including one that failed for want of a fitting\n"
    << " * signature. FAILED_PRECONDITION before the thread's first op. Local; the record is\n"
    << " * per thread. */\n"
    << "TESS_API tess_status tess_explanation_last(tess_explanation** out);\n\n"
    << "#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* TESSERA_OPS_H_ */\n";
  return w.s.str();
}

std::string OpsSource(const OpRegistry& reg) {
  Writer w;
  w << "// " << kGenerated << ".\n"
    << "// The typed ops of capi/include/tessera/ops.h: each checks its pointers, sets its\n"
    << "// attributes on a per-thread map (only when they changed, so a repeated call\n"
    << "// allocates nothing there) and runs the op through capi::RunTypedOp, the path\n"
    << "// tess_op_call_apply takes.\n"
    << "#include <vector>\n\n"
    << "#include \"capi/src/capi_error.h\"\n"
    << "#include \"capi/src/handles.h\"\n"
    << "#include \"capi/src/typed_ops.h\"\n"
    << "#include \"tessera/tessera.h\"\n\n"
    << "using tessera::capi::RunTypedOp;\n"
    << "using tessera::capi::TypedOpAttrs;\n"
    << "using tessera::capi::TypedOpDef;\n\n"
    << "extern \"C\" {\n";
  for (const std::string& name : reg.Names()) {
    const OpDef& def = **reg.Find(name);
    w << "\n" << WrapCall("tess_status tess_" + def.name() + "(", CParams(def), ") {");
    for (size_t i = 0; i < def.outputs().size(); ++i) {
      w << "  TESS_CAPI_REQUIRE(" << OutParam(def, i) << ");\n";
    }
    for (const auto& in : def.inputs()) {
      if (in.repeated()) {
        w << "  if (num_" << in.name << " > 0) TESS_CAPI_REQUIRE(" << in.name << ");\n";
      } else {
        w << "  TESS_CAPI_REQUIRE(" << in.name << ");\n";
      }
    }
    for (const AttrDef& a : def.attrs()) {
      if (a.type == AttrType::kInts) {
        w << "  if (num_" << a.name << " > 0) TESS_CAPI_REQUIRE(" << a.name << ");\n";
      }
    }
    w << "  TESS_CAPI_BEGIN\n";
    w << "  static const tessera::op::OpDef* const def = TypedOpDef(\"" << def.name() << "\");\n";
    if (def.attrs().empty()) {
      w << "  const tessera::op::AttrMap& attrs = tessera::capi::NoAttrs();\n";
    } else {
      w << "  thread_local TypedOpAttrs attrs;\n";
      for (const AttrDef& a : def.attrs()) {
        switch (a.type) {
          case AttrType::kInt:
            w << "  attrs.SetInt(\"" << a.name << "\", " << a.name << ");\n";
            break;
          case AttrType::kFloat:
            w << "  attrs.SetFloat(\"" << a.name << "\", " << a.name << ");\n";
            break;
          case AttrType::kBool:
            w << "  attrs.SetBool(\"" << a.name << "\", " << a.name << " != 0);\n";
            break;
          case AttrType::kInts:
            w << "  attrs.SetInts(\"" << a.name << "\", " << a.name << ", num_" << a.name << ");\n";
            break;
          case AttrType::kDType:
            w << "  if (!attrs.SetDType(__func__, \"" << a.name << "\", " << a.name
              << ")) return TESS_INVALID_ARGUMENT;\n";
            break;
        }
      }
    }
    w << "  tess_tensor** const outs[] = {";
    for (size_t i = 0; i < def.outputs().size(); ++i) w << (i ? ", " : "") << OutParam(def, i);
    w << "};\n";
    if (HasRepeated(def)) {
      w << "  std::vector<const tess_tensor*>& inputs = tessera::capi::TypedOpInputs();\n"
        << "  inputs.clear();\n";
      for (const auto& in : def.inputs()) {
        if (in.repeated()) {
          w << "  for (size_t i = 0; i < num_" << in.name << "; ++i) {\n"
            << "    if (" << in.name << "[i] == nullptr) {\n"
            << "      inputs.clear();\n"
            << "      return tessera::capi::NullListItem(__func__, \"" << in.name << "\", i);\n"
            << "    }\n"
            << "    inputs.push_back(" << in.name << "[i]);\n"
            << "  }\n";
        } else {
          w << "  inputs.push_back(" << in.name << ");\n";
        }
      }
      w << "  return RunTypedOp(__func__, def, inputs.data(), inputs.size(), attrs"
        << (def.attrs().empty() ? "" : ".map()") << ", outs, " << def.outputs().size()
        << ", &inputs);\n";
    } else {
      w << "  const tess_tensor* const inputs[] = {";
      for (size_t i = 0; i < def.inputs().size(); ++i) {
        w << (i ? ", " : "") << def.inputs()[i].name;
      }
      w << "};\n";
      w << "  return RunTypedOp(__func__, def, inputs, " << def.inputs().size() << ", attrs"
        << (def.attrs().empty() ? "" : ".map()") << ", outs, " << def.outputs().size() << ");\n";
    }
    w << "  TESS_CAPI_END\n}\n";
  }
  w << "\n}  // extern \"C\"\n";
  return w.s.str();
}

// ---- SWIG ------------------------------------------------------------------------

std::string SwigInterface(const OpRegistry& reg) {
  Writer w;
  w << "/* " << kGenerated << ".\n"
    << " * Included by tessera.i: the typed ops of tessera/ops.h, their array parameters and\n"
    << " * (Python) the GIL released around each. */\n\n";
  std::set<std::string> arrays, lists;
  for (const std::string& name : reg.Names()) {
    const OpDef& def = **reg.Find(name);
    for (const auto& in : def.inputs()) {
      if (in.repeated()) lists.insert(in.name);
    }
    for (const AttrDef& a : def.attrs()) {
      if (a.type == AttrType::kInts) arrays.insert(a.name);
    }
  }
  if (!arrays.empty()) {
    w << "%apply (const int64_t* TESS_ARRAY, size_t TESS_LEN) {\n";
    size_t i = 0;
    for (const std::string& a : arrays) {
      w << "  (const int64_t* " << a << ", size_t num_" << a << ")"
        << (++i == arrays.size() ? "\n" : ",\n");
    }
    w << "};\n";
  }
  if (!lists.empty()) {
    w << "%apply (const tess_tensor* const* inputs, size_t num_inputs) {\n";
    size_t i = 0;
    for (const std::string& a : lists) {
      w << "  (const tess_tensor* const* " << a << ", size_t num_" << a << ")"
        << (++i == lists.size() ? "\n" : ",\n");
    }
    w << "};\n";
  }
  w << "\n%tess_expose(tess_op_call_apply)\n";
  for (const std::string& name : reg.Names()) w << "%tess_expose(tess_" << name << ")\n";
  w << "%tess_expose(tess_explanation_last)\n\n#if defined(SWIGPYTHON)\n"
    << "TESS_PY_RELEASE_GIL(tess_op_call_apply)\n";
  for (const std::string& name : reg.Names()) w << "TESS_PY_RELEASE_GIL(tess_" << name << ")\n";
  w << "#endif\n";
  return w.s.str();
}

}  // namespace tessera::opgen
