// opgen: Ops.java, the Java static methods of the typed ops.
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

// ---- Java ------------------------------------------------------------------------

std::string JavaDefault(const AttrDef& a) {
  const AttrValue& v = *a.default_value;
  switch (a.type) {
    case AttrType::kBool: return v.bool_value() ? "true" : "false";
    case AttrType::kInts: {
      std::string s = "new long[] {";
      for (size_t i = 0; i < v.ints_value().size(); ++i) {
        s += (i ? ", " : "") + std::to_string(v.ints_value()[i]);
      }
      return s + "}";
    }
    case AttrType::kDType: return "\"" + std::string(tessera::DTypeName(v.dtype_value())) + "\"";
    case AttrType::kFloat: {
      std::string s = ShortestDouble(v.float_value());
      if (s.find_first_of(".en") == std::string::npos) s += ".0";
      return s;
    }
    case AttrType::kInt: return std::to_string(v.int_value()) + "L";
  }
  return "null";
}

std::string JavaDocEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '@') {
      out += "{@literal @}";
    } else {
      out += c;
    }
  }
  return out;
}

std::string JavaOps(const OpRegistry& reg) {
  Writer w;
  w << "// " << kGenerated << ".\n"
    << "package org.tessera;\n\n"
    << "/**\n"
    << " * One static method per registered op, each a thin call of the C API's {@code\n"
    << " * tess_<op>} (collective over the inputs' placement). Attributes follow the inputs\n"
    << " * in declaration order; an overload without the trailing attributes that have\n"
    << " * defaults uses the op definition's defaults. A repeated input is an array; an op\n"
    << " * with several outputs returns them as an array, in order.\n"
    << " */\n"
    << "public final class Ops {\n"
    << "  private Ops() {}\n\n"
    << "  private static long[] ptrs(Tensor[] tensors) {\n"
    << "    long[] p = new long[tensors.length];\n"
    << "    for (int i = 0; i < tensors.length; ++i) p[i] = Handle.ptr(tensors[i]);\n"
    << "    return p;\n"
    << "  }\n";
  for (const std::string& name : reg.Names()) {
    const OpDef& def = **reg.Find(name);
    const std::string method = Camel(def.name(), false);
    const bool multi = def.outputs().size() > 1;
    const std::string ret = multi ? "Tensor[]" : "Tensor";
    std::string params;
    auto add = [&params](const std::string& s) { params += (params.empty() ? "" : ", ") + s; };
    for (const auto& in : def.inputs()) {
      add(std::string(in.repeated() ? "Tensor[] " : "Tensor ") + JavaName(in.name));
    }
    for (const AttrDef& a : def.attrs()) add(JavaType(a.type) + " " + JavaName(a.name));
    std::string doc = def.doc() + ".";
    if (!def.attrs().empty()) doc += " Attributes: " + AttrSummary(def) + ".";
    if (multi) {
      doc += " Returns {";
      for (size_t i = 0; i < def.outputs().size(); ++i) {
        doc += (i ? ", " : "") + def.outputs()[i].name;
      }
      doc += "}.";
    }
    w << "\n" << CloseComment(Wrap(JavaDocEscape(doc), "  /** ", "   * ", 92), " */", "  ");
    w << WrapCall("  public static " + ret + " " + method + "(", params, ") {");
    for (size_t i = 0; i < def.outputs().size(); ++i) {
      w << "    long[] " << Camel(OutParam(def, i), false) << " = {0};\n";
    }
    const std::string jni_open = "    TesseraJNI." + def.name() + "(";
    std::string args;
    auto arg = [&args](const std::string& s) { args += (args.empty() ? "" : ", ") + s; };
    for (size_t i = 0; i < def.outputs().size(); ++i) arg(Camel(OutParam(def, i), false));
    for (const auto& in : def.inputs()) {
      const std::string n = JavaName(in.name);
      if (in.repeated()) {
        arg("ptrs(" + n + ")");
      } else {
        arg("Handle.ptr(" + n + "), " + n);
      }
    }
    for (const AttrDef& a : def.attrs()) {
      const std::string n = JavaName(a.name);
      arg(Subst(TypeNames(a.type).java_arg, n));
    }
    w << WrapCall(jni_open, args, ");");
    for (const auto& in : def.inputs()) {
      if (in.repeated()) {
        w << "    java.lang.ref.Reference.reachabilityFence(" << JavaName(in.name) << ");\n";
      }
    }
    if (multi) {
      w << "    return new Tensor[] {";
      for (size_t i = 0; i < def.outputs().size(); ++i) {
        w << (i ? ", " : "") << "new Tensor(" << Camel(OutParam(def, i), false) << "[0])";
      }
      w << "};\n";
    } else {
      w << "    return new Tensor(" << Camel(OutParam(def, 0), false) << "[0]);\n";
    }
    w << "  }\n";
    // Overloads dropping trailing defaulted attributes, one at a time.
    size_t n_attrs = def.attrs().size();
    for (size_t keep = n_attrs; keep-- > 0;) {
      if (!def.attrs()[keep].default_value) break;
      std::string p2, call;
      auto add2 = [&p2](const std::string& s) { p2 += (p2.empty() ? "" : ", ") + s; };
      auto addc = [&call](const std::string& s) { call += (call.empty() ? "" : ", ") + s; };
      for (const auto& in : def.inputs()) {
        add2(std::string(in.repeated() ? "Tensor[] " : "Tensor ") + JavaName(in.name));
        addc(JavaName(in.name));
      }
      for (size_t i = 0; i < n_attrs; ++i) {
        const AttrDef& a = def.attrs()[i];
        if (i < keep) {
          add2(JavaType(a.type) + " " + JavaName(a.name));
          addc(JavaName(a.name));
        } else {
          addc(JavaDefault(a));
        }
      }
      std::string defaults;
      for (size_t i = keep; i < n_attrs; ++i) {
        defaults +=
            (i > keep ? ", " : "") + def.attrs()[i].name + " = " + DefaultText(def.attrs()[i]);
      }
      w << "\n"
        << CloseComment(
               Wrap(JavaDocEscape(def.name() + " with " + defaults + "."), "  /** ", "   * ", 92),
               " */", "  ");
      w << WrapCall("  public static " + ret + " " + method + "(", p2, ") {")
        << WrapCall("    return " + method + "(", call, ");") << "  }\n";
    }
  }
  w << "}\n";
  return w.s.str();
}

}  // namespace tessera::opgen
