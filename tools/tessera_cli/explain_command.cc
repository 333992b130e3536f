#include "tools/tessera_cli/explain_command.h"

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <utility>

#include "core/infer/explain_json.h"
#include "core/infer/op_call.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera {
namespace cli {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Result<int64_t> ParseInt(std::string_view text, const std::string& what) {
  const std::string s(Trim(text));
  char* end = nullptr;
  errno = 0;
  const long long v = s.empty() ? 0 : std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno == ERANGE) {
    return InvalidArgument(what + " \"" + std::string(text) + "\" is not an integer");
  }
  return static_cast<int64_t>(v);
}

// "1,2,3" -> {1,2,3}; "" -> {}.
Result<std::vector<int64_t>> ParseIntList(std::string_view text, const std::string& what) {
  std::vector<int64_t> values;
  if (Trim(text).empty()) return values;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    TESS_ASSIGN_OR_RETURN(int64_t v, ParseInt(text.substr(start, comma - start), what));
    values.push_back(v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return values;
}

Status Usage(std::string message) { return InvalidArgument(std::move(message)); }

struct Options {
  std::string op;
  std::optional<std::string> placement;
  std::vector<std::string> inputs;
  std::vector<std::string> attrs;
  std::vector<std::string> constrain_inputs;
  std::vector<std::string> constrain_outputs;
  bool json = false;
  bool help = false;
};

Result<Options> ParseOptions(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "--help" || arg == "-h") {
      o.help = true;
      continue;
    }
    if (arg == "--json") {
      o.json = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      if (!o.op.empty()) {
        return Usage("unexpected argument \"" + arg + "\" (the op is already \"" + o.op + "\")");
      }
      o.op = arg;
      continue;
    }
    std::string value;
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else {
      if (arg != "--placement" && arg != "--input" && arg != "--attr" &&
          arg != "--constrain-input" && arg != "--constrain-output") {
        return Usage("unknown option \"" + arg + "\"");
      }
      if (i + 1 >= args.size()) return Usage("option " + arg + " needs a value");
      value = args[++i];
    }
    if (arg == "--placement") {
      if (o.placement) {
        return Usage("--placement given twice (\"" + *o.placement + "\" and \"" + value + "\")");
      }
      o.placement = value;
    } else if (arg == "--input") {
      o.inputs.push_back(value);
    } else if (arg == "--attr") {
      o.attrs.push_back(value);
    } else if (arg == "--constrain-input") {
      o.constrain_inputs.push_back(value);
    } else if (arg == "--constrain-output") {
      o.constrain_outputs.push_back(value);
    } else {
      return Usage("unknown option \"" + arg + "\"");
    }
  }
  if (o.help) return o;
  if (o.op.empty()) return Usage("missing the op name");
  if (!o.placement) return Usage("missing --placement");
  if (o.inputs.empty()) return Usage("missing --input (one per op input, in order)");
  return o;
}

// The declared name of input `slot` when `inputs` inputs are given, or "" when the
// count does not fit the op (inference then reports the count).
std::string DeclaredInputName(const op::OpDef& def, size_t inputs, size_t slot) {
  Result<std::vector<int>> counts = def.ResolveInputCounts(inputs);
  if (!counts.ok()) return "";
  size_t first = 0;
  for (size_t a = 0; a < counts->size(); ++a) {
    first += static_cast<size_t>((*counts)[a]);
    if (slot < first) return def.inputs()[a].name;
  }
  return "";
}

// "i=NDSBP" where i is a slot number or a declared argument name.
Status AddConstraint(infer::OpCall* call, bool is_output, const std::string& spec) {
  const char* option = is_output ? "--constrain-output" : "--constrain-input";
  const size_t eq = spec.find('=');
  if (eq == std::string::npos) {
    return Usage(std::string(option) + " \"" + spec + "\": expected SLOT=NDSBP, e.g. 0=S(0)");
  }
  const std::string key(Trim(std::string_view(spec).substr(0, eq)));
  Result<NdSbp> nd = NdSbp::Parse(spec.substr(eq + 1));
  if (!nd.ok()) return Usage(std::string(option) + " \"" + spec + "\": " + nd.status().message());
  int slot = -1;
  Result<int64_t> index = ParseInt(key, "slot");
  if (index.ok()) {
    slot = *index < 0 || *index > (1 << 20) ? -1 : static_cast<int>(*index);
  } else {
    const op::OpDef& def = call->def();
    const std::vector<op::ArgDef>& args = is_output ? def.outputs() : def.inputs();
    std::string names;
    int first = 0;
    for (const op::ArgDef& a : args) {
      if (a.name == key && a.min_count == 1 && a.max_count == 1) slot = first;
      names += (names.empty() ? "" : ", ") + a.name;
      first += a.min_count;
      if (a.repeated()) break;  // later slots depend on the input count
    }
    if (slot < 0) {
      return Usage(std::string(option) + " \"" + spec + "\": " + def.name() + " has no " +
                   (is_output ? "output" : "input") + " named \"" + key + "\" (" + names +
                   "); give a name or a slot number");
    }
  }
  Status s = call->Constrain(is_output, slot, *nd);
  if (!s.ok()) return Usage(std::string(option) + " \"" + spec + "\": " + s.message());
  return Status::Ok();
}

Status BuildCall(const Options& o, infer::OpCall* call) {
  Result<Placement> placement = Placement::Parse(*o.placement);
  if (!placement.ok()) {
    return Usage("--placement \"" + *o.placement + "\": " + placement.status().message());
  }
  for (const std::string& spec : o.attrs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos) {
      return Usage("--attr \"" + spec + "\": expected NAME=VALUE, e.g. transpose_b=true");
    }
    const std::string name(Trim(std::string_view(spec).substr(0, eq)));
    const op::AttrDef* def = call->def().FindAttr(name);
    if (def == nullptr) {
      // The op's own message, listing the attributes it has.
      return Usage("--attr \"" + spec +
                   "\": " + call->def().ValidateAttr(name, op::AttrValue()).message());
    }
    Result<op::AttrValue> value = ParseAttrValue(def->type, spec.substr(eq + 1));
    if (!value.ok()) {
      return Usage("--attr \"" + spec + "\": " + call->def().name() + ": attribute \"" + name +
                   "\": " + value.status().message());
    }
    TESS_RETURN_IF_ERROR(call->SetAttr(name, *std::move(value)));
  }
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    const std::string& text = o.inputs[i];
    Result<InputSpec> spec = ParseInputSpec(text);
    if (!spec.ok()) return Usage("--input \"" + text + "\": " + spec.status().message());
    const std::string declared = DeclaredInputName(call->def(), o.inputs.size(), i);
    if (!spec->name.empty() && !declared.empty() && spec->name != declared) {
      return Usage("--input \"" + text + "\": input " + std::to_string(i) + " of " +
                   call->def().Signature() + " is \"" + declared + "\", not \"" + spec->name +
                   "\" (give inputs in declared order)");
    }
    Result<NdSbp> nd = NdSbp::Parse(spec->nd_sbp);
    if (!nd.ok()) return Usage("--input \"" + text + "\": " + nd.status().message());
    Status s = call->AddInput(spec->shape, static_cast<int>(spec->dtype), *placement, *nd);
    if (!s.ok()) return Usage("--input \"" + text + "\": " + s.message());
  }
  for (const std::string& spec : o.constrain_inputs) {
    TESS_RETURN_IF_ERROR(AddConstraint(call, false, spec));
  }
  for (const std::string& spec : o.constrain_outputs) {
    TESS_RETURN_IF_ERROR(AddConstraint(call, true, spec));
  }
  return Status::Ok();
}

int Fail(std::ostream& err, const std::string& message) {
  err << "tessera explain: " << message << "\n"
      << "usage: tessera explain OP --placement P --input [NAME:]DTYPE[SHAPE]:NDSBP ... "
         "[--attr NAME=VALUE ...] [--constrain-input SLOT=NDSBP ...] "
         "[--constrain-output SLOT=NDSBP ...] [--json]  (tessera explain --help)\n";
  return kExitUsage;
}

}  // namespace

Result<InputSpec> ParseInputSpec(std::string_view text) {
  const std::string hint = "expected [NAME:]DTYPE[SHAPE]:NDSBP, e.g. a:f32[64,32]:S(0)";
  const size_t open = text.find('[');
  const size_t close = open == std::string_view::npos ? open : text.find(']', open);
  if (open == std::string_view::npos || close == std::string_view::npos) {
    return InvalidArgument("no [SHAPE]; " + hint);
  }
  if (close + 1 >= text.size() || text[close + 1] != ':') {
    return InvalidArgument("no \":NDSBP\" after the shape; " + hint);
  }
  InputSpec spec;
  std::string_view head = text.substr(0, open);  // "a:f32" or "f32"
  const size_t colon = head.find(':');
  std::string_view dtype = head;
  if (colon != std::string_view::npos) {
    spec.name = std::string(Trim(head.substr(0, colon)));
    dtype = head.substr(colon + 1);
    if (spec.name.empty()) return InvalidArgument("empty input name; " + hint);
  }
  TESS_ASSIGN_OR_RETURN(spec.dtype, ParseDType(Trim(dtype)));
  TESS_ASSIGN_OR_RETURN(spec.shape,
                        ParseIntList(text.substr(open + 1, close - open - 1), "shape dim"));
  spec.nd_sbp = std::string(Trim(text.substr(close + 2)));
  if (spec.nd_sbp.empty()) return InvalidArgument("empty nd-sbp; " + hint);
  return spec;
}

Result<op::AttrValue> ParseAttrValue(op::AttrType type, std::string_view text) {
  const std::string_view t = Trim(text);
  switch (type) {
    case op::AttrType::kInt: {
      TESS_ASSIGN_OR_RETURN(int64_t v, ParseInt(t, "int value"));
      return op::AttrValue::Int(v);
    }
    case op::AttrType::kFloat: {
      const std::string s(t);
      char* end = nullptr;
      errno = 0;
      const double v = s.empty() ? 0 : std::strtod(s.c_str(), &end);
      if (s.empty() || *end != '\0' || errno == ERANGE) {
        return InvalidArgument("float value \"" + std::string(text) + "\" is not a number");
      }
      return op::AttrValue::Float(v);
    }
    case op::AttrType::kBool:
      if (t == "true" || t == "1") return op::AttrValue::Bool(true);
      if (t == "false" || t == "0") return op::AttrValue::Bool(false);
      return InvalidArgument("bool value \"" + std::string(text) + "\" is not true, false, 1 or 0");
    case op::AttrType::kInts: {
      std::string_view list = t;
      if (!list.empty() && list.front() == '[') {
        if (list.back() != ']') {
          return InvalidArgument("ints value \"" + std::string(text) + "\" lacks its ']'");
        }
        list = list.substr(1, list.size() - 2);
      }
      TESS_ASSIGN_OR_RETURN(std::vector<int64_t> v, ParseIntList(list, "ints element"));
      return op::AttrValue::Ints(std::move(v));
    }
    case op::AttrType::kDType: {
      TESS_ASSIGN_OR_RETURN(DType v, ParseDType(t));
      return op::AttrValue::OfDType(v);
    }
  }
  return InvalidArgument("attribute type " + std::to_string(static_cast<int>(type)) +
                         " is not known");
}

const char* ExplainUsage() {
  return R"(usage: tessera explain OP --placement P --input [NAME:]DTYPE[SHAPE]:NDSBP ...
                       [--attr NAME=VALUE ...] [--constrain-input SLOT=NDSBP ...]
                       [--constrain-output SLOT=NDSBP ...] [--json]

Explains how Tessera infers OP's SBP signature for global inputs on placement P:
every candidate signature with its modelled boxing cost (or why it was dropped),
the chosen one, what each input must be boxed into, and the outputs.

  OP                     a registered op (`tessera ops` lists them)
  --placement P          the inputs' placement: cpu:[0,1,2,3], cpu:[[0,1],[2,3]], cpu:0-3
  --input SPEC           one per op input, in declared order: a:f32[64,32]:S(0),
                         b:f32[32,16]:B, x:f64[6,5]:(S(0), B); NAME is optional
                         and, when given, must be the declared input's name
  --attr NAME=VALUE      transpose_b=true, axis=1, epsilon=1e-5, axes=[0,2], dtype=f64
  --constrain-input S=N  require input S (slot number or name) to be N
  --constrain-output S=N require output S (slot number or name) to be N
  --json                 print the structured record as JSON instead of text

Exit status: 0 explained; 1 no signature fits (the record is still printed);
2 bad command line or a call the op rejects (message on stderr).

Example:
  tessera explain matmul --placement 'cpu:[0,1,2,3]' \
      --input 'a:f32[64,32]:S(0)' --input 'b:f32[32,16]:B'
)";
}

int RunExplain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Result<Options> options = ParseOptions(args);
  if (!options.ok()) return Fail(err, options.status().message());
  if (options->help) {
    out << ExplainUsage();
    return kExitOk;
  }
  Result<infer::OpCall> call = infer::OpCall::Make(options->op);
  if (!call.ok()) return Fail(err, call.status().message());
  Status built = BuildCall(*options, &*call);
  if (!built.ok()) return Fail(err, built.message());
  Result<infer::Explanation> e = call->Explain();
  if (!e.ok()) return Fail(err, e.status().message());
  out << (options->json ? infer::ExplanationToJson(*e) : e->ToString());
  return e->failure.empty() ? kExitOk : kExitNoSignature;
}

}  // namespace cli
}  // namespace tessera
