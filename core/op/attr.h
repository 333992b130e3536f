// Typed op attributes: a small closed set of value types and an ordered name->value
// map whose hash is computed as values are set, so an inference-cache lookup can hash
// and compare attributes without allocating.
#ifndef TESSERA_CORE_OP_ATTR_H_
#define TESSERA_CORE_OP_ATTR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/common/dtype.h"

namespace tessera {
namespace op {

// Values are part of the C ABI once wrapped (tess_attr_type): append only.
enum class AttrType : int {
  kInt = 0,    // int64
  kFloat = 1,  // double
  kBool = 2,   // bool
  kInts = 3,   // list of int64
  kDType = 4,  // element type
};

// "int", "float", "bool", "ints", "dtype".
const char* AttrTypeName(AttrType type);

class AttrValue {
 public:
  AttrValue() = default;  // Int(0)
  static AttrValue Int(int64_t v) { return AttrValue(AttrType::kInt, v, 0.0); }
  static AttrValue Float(double v) { return AttrValue(AttrType::kFloat, 0, v); }
  static AttrValue Bool(bool v) { return AttrValue(AttrType::kBool, v ? 1 : 0, 0.0); }
  static AttrValue Ints(std::vector<int64_t> v) {
    AttrValue a(AttrType::kInts, 0, 0.0);
    a.ints_ = std::move(v);
    return a;
  }
  static AttrValue OfDType(DType v) {
    return AttrValue(AttrType::kDType, static_cast<int64_t>(v), 0.0);
  }

  AttrType type() const { return type_; }
  // Preconditions: type() matches.
  int64_t int_value() const { return int_; }
  double float_value() const { return float_; }
  bool bool_value() const { return int_ != 0; }
  const std::vector<int64_t>& ints_value() const { return ints_; }
  DType dtype_value() const { return static_cast<DType>(int_); }

  // "3", "0.5", "true", "[0,2]", "f32".
  std::string ToString() const;
  size_t Hash() const;
  // Floats compare by bit pattern, so a NaN attribute still finds its cache entry.
  friend bool operator==(const AttrValue& a, const AttrValue& b);
  friend bool operator!=(const AttrValue& a, const AttrValue& b) { return !(a == b); }

 private:
  AttrValue(AttrType type, int64_t i, double f) : type_(type), int_(i), float_(f) {}
  // A tagged record rather than std::variant: tiny, and free of GCC 12's spurious
  // -Wmaybe-uninitialized on variants holding a vector.
  AttrType type_ = AttrType::kInt;
  int64_t int_ = 0;  // kInt, kBool (0/1), kDType
  double float_ = 0;
  std::vector<int64_t> ints_;
};

// Attributes given to one op call, kept sorted by name so equal maps compare equal
// whatever order they were set in.
class AttrMap {
 public:
  AttrMap() = default;
  AttrMap(std::initializer_list<std::pair<std::string, AttrValue>> entries);

  // Sets or replaces `name`.
  AttrMap& Set(std::string_view name, AttrValue value);
  // nullptr when absent.
  const AttrValue* Find(std::string_view name) const;

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const std::vector<std::pair<std::string, AttrValue>>& entries() const { return entries_; }

  // "{axis=1, keepdims=true}"; "{}" when empty.
  std::string ToString() const;
  size_t Hash() const { return hash_; }

  friend bool operator==(const AttrMap& a, const AttrMap& b);
  friend bool operator!=(const AttrMap& a, const AttrMap& b) { return !(a == b); }

 private:
  void Rehash();
  std::vector<std::pair<std::string, AttrValue>> entries_;
  size_t hash_ = 0;
};

}  // namespace op
}  // namespace tessera

#endif  // TESSERA_CORE_OP_ATTR_H_
