#include "core/infer/explain_json.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace tessera {
namespace infer {
namespace {

std::string Number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

// Writes nested objects and arrays with two-space indents. Keys and string values
// go through JsonQuote.
class Writer {
 public:
  void Open(char bracket) {
    Separate();
    out_ += bracket;
    first_.push_back(true);
  }
  void Close(char bracket) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) NewLine();
    out_ += bracket;
  }
  void Key(std::string_view key) {
    Separate();
    out_ += JsonQuote(key) + ": ";
    after_key_ = true;
  }
  void Raw(const std::string& value) {
    Separate();
    out_ += value;
  }
  void String(std::string_view value) { Raw(JsonQuote(value)); }
  void Int(long long value) { Raw(std::to_string(value)); }
  void Double(double value) { Raw(Number(value)); }
  void Bool(bool value) { Raw(value ? "true" : "false"); }
  void NullableString(const std::string& value) {
    if (value.empty()) {
      Raw("null");
    } else {
      String(value);
    }
  }
  void Shape(const tessera::Shape& shape) {
    std::string s = "[";
    for (int d = 0; d < shape.ndim(); ++d) s += (d ? ", " : "") + std::to_string(shape.dim(d));
    Raw(s + "]");
  }
  std::string Finish() { return out_ + "\n"; }

 private:
  // Before any value or key: a comma and a new line inside a container, nothing
  // right after a key.
  void Separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ += ",";
    first_.back() = false;
    NewLine();
  }
  void NewLine() {
    out_ += "\n";
    out_.append(2 * first_.size(), ' ');
  }
  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

void Meta(Writer* w, const std::string& name, const TensorMeta& m, bool with_bytes) {
  w->Open('{');
  w->Key("name");
  w->String(name);
  w->Key("shape");
  w->Shape(m.shape);
  w->Key("dtype");
  w->String(DTypeName(m.dtype));
  w->Key("nd_sbp");
  w->String(m.nd_sbp.ToString());
  if (with_bytes) {
    w->Key("bytes");
    w->Double(m.bytes());
  }
  w->Close('}');
}

void NdSbpList(Writer* w, const std::vector<NdSbp>& list) {
  w->Open('[');
  for (const NdSbp& nd : list) w->String(nd.ToString());
  w->Close(']');
}

}  // namespace

std::string JsonQuote(std::string_view text) {
  std::string s = "\"";
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': s += "\\\""; break;
      case '\\': s += "\\\\"; break;
      case '\n': s += "\\n"; break;
      case '\r': s += "\\r"; break;
      case '\t': s += "\\t"; break;
      case '\b': s += "\\b"; break;
      case '\f': s += "\\f"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          s += buf;
        } else {
          s += ch;
        }
    }
  }
  return s + "\"";
}

std::string ExplanationToJson(const Explanation& e) {
  Writer w;
  w.Open('{');
  w.Key("op");
  w.String(e.op);
  w.Key("attrs");
  w.String(e.attrs);
  w.Key("placement");
  if (e.inputs.empty()) {
    w.Raw("null");
  } else {
    w.String(e.inputs[0].placement.ToString());
  }
  w.Key("trivial");
  w.Bool(e.trivial);

  w.Key("inputs");
  w.Open('[');
  for (size_t i = 0; i < e.inputs.size(); ++i) Meta(&w, e.input_names[i], e.inputs[i], true);
  w.Close(']');

  w.Key("constraints");
  w.Open('[');
  for (const SbpConstraint& c : e.constraints) {
    w.Open('{');
    w.Key("side");
    w.String(c.is_output ? "output" : "input");
    w.Key("slot");
    w.Int(c.slot);
    w.Key("name");
    const std::vector<std::string>& names = c.is_output ? e.output_names : e.input_names;
    if (c.slot >= 0 && static_cast<size_t>(c.slot) < names.size()) {
      w.String(names[c.slot]);
    } else {
      w.Raw("null");
    }
    w.Key("nd_sbp");
    w.String(c.nd_sbp.ToString());
    w.Close('}');
  }
  w.Close(']');

  w.Key("candidates");
  w.Open('[');
  for (const CandidateRecord& c : e.candidates) {
    w.Open('{');
    w.Key("index");
    w.Int(c.index);
    w.Key("text");
    w.String(c.text);
    w.Key("inputs");
    NdSbpList(&w, c.signature.inputs);
    w.Key("outputs");
    NdSbpList(&w, c.signature.outputs);
    w.Key("filtered");
    w.Bool(c.filtered);
    w.Key("filter_reason");
    if (c.filtered) {
      w.String(c.filter_reason);
    } else {
      w.Raw("null");
    }
    w.Key("input_costs");
    w.Open('[');
    for (double cost : c.input_costs) w.Double(cost);
    w.Close(']');
    w.Key("cost");
    w.Double(c.cost);
    w.Key("matching_inputs");
    w.Int(c.matching_inputs);
    w.Key("order_value");
    w.Int(c.order_value);
    w.Key("rank");
    w.Int(c.rank);
    w.Close('}');
  }
  w.Close(']');

  w.Key("chosen");
  w.Int(e.chosen);
  w.Key("oneflow_choice");
  w.Int(e.oneflow_choice);

  w.Key("boxing");
  w.Open('[');
  for (const InputBoxing& b : e.boxing) {
    w.Open('{');
    w.Key("input");
    w.Int(b.input);
    w.Key("name");
    w.String(b.name);
    w.Key("from");
    w.String(b.from.ToString());
    w.Key("to");
    w.String(b.to.ToString());
    w.Key("cost");
    w.Double(b.cost);
    w.Close('}');
  }
  w.Close(']');

  w.Key("outputs");
  w.Open('[');
  for (size_t o = 0; o < e.outputs.size(); ++o) Meta(&w, e.output_names[o], e.outputs[o], false);
  w.Close(']');

  w.Key("failure");
  w.NullableString(e.failure);
  w.Close('}');
  return w.Finish();
}

}  // namespace infer
}  // namespace tessera
