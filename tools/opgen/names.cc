// opgen: names, defaults and attribute type names, shared by every generator.
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

std::string Camel(const std::string& snake, bool upper_first) {
  std::string out;
  bool up = upper_first;
  for (char c : snake) {
    if (c == '_') {
      up = true;
      continue;
    }
    out += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return out;
}

bool Keyword(const std::set<std::string>& words, const std::string& name) {
  return words.count(name) != 0;
}

const std::set<std::string> kPythonKeywords = {
    "in",       "is",     "and",    "or",      "not",      "for",    "if",     "else",  "def",
    "class",    "return", "from",   "import",  "as",       "with",   "lambda", "pass",  "yield",
    "global",   "del",    "try",    "raise",   "while",    "assert", "async",  "await", "break",
    "continue", "elif",   "except", "finally", "nonlocal", "None",   "True",   "False"};
const std::set<std::string> kJavaKeywords = {
    "abstract", "boolean", "byte", "char",   "class",   "default", "double",   "float",
    "final",    "int",     "long", "new",    "package", "private", "public",   "short",
    "static",   "switch",  "this", "throw",  "try",     "void",    "while",    "do",
    "if",       "else",    "for",  "return", "case",    "break",   "continue", "native",
    "super",    "const",   "goto", "enum",   "assert"};
const std::set<std::string> kGoKeywords = {
    "break",  "case",        "chan", "const",   "continue", "default", "defer",
    "else",   "fallthrough", "for",  "func",    "go",       "goto",    "if",
    "import", "interface",   "map",  "package", "range",    "return",  "select",
    "struct", "switch",      "type", "var",     "err",      "out"};

std::string PyName(const std::string& n) { return Keyword(kPythonKeywords, n) ? n + "_" : n; }
std::string JavaName(const std::string& n) {
  std::string c = Camel(n, false);
  return Keyword(kJavaKeywords, c) ? c + "_" : c;
}
std::string GoName(const std::string& n) {
  std::string c = Camel(n, false);
  return Keyword(kGoKeywords, c) ? c + "_" : c;
}

std::string OutParam(const OpDef& def, size_t i) {
  const std::string& n = def.outputs()[i].name;
  return n == "out" ? "out" : "out_" + n;
}

bool HasRepeated(const OpDef& def) {
  for (const auto& in : def.inputs()) {
    if (in.repeated()) return true;
  }
  return false;
}

// The shortest text that reads back as `v` ("1e-05", not "1.0000000000000001e-05").
std::string ShortestDouble(double v) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string DefaultText(const AttrDef& a) {
  if (!a.default_value) return "required";
  if (a.type == AttrType::kFloat) return ShortestDouble(a.default_value->float_value());
  return a.default_value->ToString();
}

AttrTypeNames TypeNames(AttrType t) {
  switch (t) {
    case AttrType::kInt: return {"int", "int($)", "long", "$", "int64", "$"};
    case AttrType::kFloat: return {"float", "float($)", "double", "$", "float64", "$"};
    case AttrType::kBool: return {"bool", "as_bool($)", "boolean", "$ ? 1 : 0", "bool", "flag($)"};
    case AttrType::kInts:
      return {"Union[int, Sequence[int]]",   "as_ints($)", "long[]",
              "$ == null ? new long[0] : $", "[]int64",    "$"};
    case AttrType::kDType:
      return {"Any", "as_dtype($)", "String", "DType.parse($)", "string", "int($Code)"};
  }
  return {"Any", "$", "Object", "$", "any", "$"};
}

// `pattern` with each `$` replaced by `name`.
std::string Subst(const char* pattern, const std::string& name) {
  std::string out;
  for (const char* p = pattern; *p != '\0'; ++p) {
    if (*p == '$') {
      out += name;
    } else {
      out += *p;
    }
  }
  return out;
}

std::string PyStubType(AttrType t) { return TypeNames(t).py_stub; }
std::string JavaType(AttrType t) { return TypeNames(t).java; }
std::string GoType(AttrType t) { return TypeNames(t).go; }

}  // namespace tessera::opgen
