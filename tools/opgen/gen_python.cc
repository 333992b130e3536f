// opgen: the Python module of typed ops and its stub.
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

// ---- Python ----------------------------------------------------------------------

std::string PyDefault(const AttrDef& a) {
  const AttrValue& v = *a.default_value;
  switch (a.type) {
    case AttrType::kBool: return v.bool_value() ? "True" : "False";
    case AttrType::kInts: {
      std::string s = "(";
      for (int64_t x : v.ints_value()) s += std::to_string(x) + ", ";
      if (v.ints_value().size() == 1) return s.substr(0, s.size() - 1) + ")";
      if (!v.ints_value().empty()) s.resize(s.size() - 2);
      return s + ")";
    }
    case AttrType::kDType: return "\"" + std::string(tessera::DTypeName(v.dtype_value())) + "\"";
    case AttrType::kFloat: {
      std::string s = ShortestDouble(v.float_value());
      if (s.find_first_of(".en") == std::string::npos) s += ".0";
      return s;
    }
    case AttrType::kInt: return std::to_string(v.int_value());
  }
  return "None";
}

std::string PyParams(const OpDef& def, bool stub) {
  std::string p;
  auto add = [&p](const std::string& s) { p += (p.empty() ? "" : ", ") + s; };
  for (const auto& in : def.inputs()) {
    add(PyName(in.name) + (stub ? (in.repeated() ? ": Sequence[Tensor]" : ": Tensor") : ""));
  }
  for (const AttrDef& a : def.attrs()) {
    std::string s = PyName(a.name) + (stub ? ": " + PyStubType(a.type) : "");
    if (a.default_value) s += stub ? " = ..." : "=" + PyDefault(a);
    add(s);
  }
  return p;
}

std::string PyModule(const OpRegistry& reg) {
  Writer w;
  w << "# " << kGenerated << ".\n"
    << "\"\"\"One function per registered op, each a thin call of the C API's tess_<op>\n"
    << "(collective over the inputs' placement, like every op). Attributes are keyword\n"
    << "arguments with the op definition's defaults; a repeated input is a sequence of\n"
    << "Tensors; an op with several outputs returns a tuple. tessera._ops adds the\n"
    << "operators and the conveniences (numbers as tensors, reduce's `axis`).\"\"\"\n\n"
    << "from . import _capi\nfrom ._attrs import as_bool, as_dtype, as_ints\n\n"
    << "__all__ = [";
  {
    std::string line;
    std::string all;
    for (const std::string& name : reg.Names()) {
      std::string item = "\"" + name + "\", ";
      if (line.size() + item.size() > 80) {
        line.pop_back();  // the space after the comma
        all += line + "\n           ";
        line.clear();
      }
      line += item;
    }
    all += line;
    while (!all.empty() && (all.back() == ' ' || all.back() == ',')) all.pop_back();
    w << all << "]\n";
  }
  for (const std::string& name : reg.Names()) {
    const OpDef& def = **reg.Find(name);
    w << "\n\ndef " << def.name() << "(" << PyParams(def, false) << "):\n";
    std::string doc = def.doc() + ".";
    if (!def.attrs().empty()) doc += " Attributes: " + AttrSummary(def) + ".";
    if (def.outputs().size() > 1) {
      doc += " Returns (";
      for (size_t i = 0; i < def.outputs().size(); ++i) {
        doc += (i ? ", " : "") + def.outputs()[i].name;
      }
      doc += ").";
    }
    w << CloseComment(Wrap(doc, "    \"\"\"", "    ", 88), "\"\"\"", "    ");
    const bool multi = def.outputs().size() > 1;
    const std::string call_open =
        std::string("    return ") + (multi ? "tuple(" : "") + "_capi." + def.name() + "(";
    std::string args;
    auto add = [&args](const std::string& s) { args += (args.empty() ? "" : ", ") + s; };
    for (const auto& in : def.inputs()) {
      add(in.repeated() ? "list(" + PyName(in.name) + ")" : PyName(in.name));
    }
    for (const AttrDef& a : def.attrs()) {
      const std::string n = PyName(a.name);
      add(Subst(TypeNames(a.type).py_arg, n));
    }
    w << WrapCall(call_open, args, multi ? "))" : ")", 99);
  }
  return w.s.str();
}

std::string PyStub(const OpRegistry& reg) {
  Writer w;
  w << "# " << kGenerated << ".\n"
    << "from typing import Any, Sequence, Tuple, Union\n\nfrom . import Tensor\n\n";
  for (const std::string& name : reg.Names()) {
    const OpDef& def = **reg.Find(name);
    std::string ret = "Tensor";
    if (def.outputs().size() > 1) {
      ret = "Tuple[";
      for (size_t i = 0; i < def.outputs().size(); ++i)
        ret += (i ? ", " : "") + std::string("Tensor");
      ret += "]";
    }
    w << "def " << def.name() << "(" << PyParams(def, true) << ") -> " << ret << ": ...\n";
  }
  return w.s.str();
}

}  // namespace tessera::opgen
