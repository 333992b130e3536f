#include "core/op/attr.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>

#include "core/common/hash.h"

namespace tessera {
namespace op {

const char* AttrTypeName(AttrType type) {
  switch (type) {
    case AttrType::kInt: return "int";
    case AttrType::kFloat: return "float";
    case AttrType::kBool: return "bool";
    case AttrType::kInts: return "ints";
    case AttrType::kDType: return "dtype";
  }
  return "invalid";
}

namespace {

uint64_t FloatBits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

}  // namespace

std::string AttrValue::ToString() const {
  switch (type()) {
    case AttrType::kInt: return std::to_string(int_value());
    case AttrType::kFloat: {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.17g", float_value());
      return buf;
    }
    case AttrType::kBool: return bool_value() ? "true" : "false";
    case AttrType::kInts: {
      std::string s = "[";
      for (size_t i = 0; i < ints_value().size(); ++i) {
        if (i) s += ",";
        s += std::to_string(ints_value()[i]);
      }
      return s + "]";
    }
    case AttrType::kDType: return DTypeName(dtype_value());
  }
  return "invalid";
}

size_t AttrValue::Hash() const {
  size_t h = static_cast<size_t>(type()) + 1;
  switch (type()) {
    case AttrType::kInt: return HashCombine(h, static_cast<size_t>(int_value()));
    case AttrType::kFloat: return HashCombine(h, static_cast<size_t>(FloatBits(float_value())));
    case AttrType::kBool: return HashCombine(h, bool_value() ? 1 : 0);
    case AttrType::kInts:
      h = HashCombine(h, ints_value().size());
      for (int64_t v : ints_value()) h = HashCombine(h, static_cast<size_t>(v));
      return h;
    case AttrType::kDType: return HashCombine(h, static_cast<size_t>(dtype_value()));
  }
  return h;
}

bool operator==(const AttrValue& a, const AttrValue& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case AttrType::kFloat: return FloatBits(a.float_) == FloatBits(b.float_);
    case AttrType::kInts: return a.ints_ == b.ints_;
    default: return a.int_ == b.int_;
  }
}

AttrMap::AttrMap(std::initializer_list<std::pair<std::string, AttrValue>> entries) {
  for (const auto& e : entries) Set(e.first, e.second);
}

AttrMap& AttrMap::Set(std::string_view name, AttrValue value) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const auto& e, std::string_view n) { return e.first < n; });
  if (it != entries_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    entries_.insert(it, {std::string(name), std::move(value)});
  }
  Rehash();
  return *this;
}

const AttrValue* AttrMap::Find(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const auto& e, std::string_view n) { return e.first < n; });
  if (it != entries_.end() && it->first == name) return &it->second;
  return nullptr;
}

std::string AttrMap::ToString() const {
  std::string s = "{";
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (i) s += ", ";
    s += entries_[i].first + "=" + entries_[i].second.ToString();
  }
  return s + "}";
}

void AttrMap::Rehash() {
  size_t h = entries_.size();
  for (const auto& e : entries_) {
    h = HashCombine(h, std::hash<std::string>()(e.first));
    h = HashCombine(h, e.second.Hash());
  }
  hash_ = h;
}

bool operator==(const AttrMap& a, const AttrMap& b) {
  return a.hash_ == b.hash_ && a.entries_ == b.entries_;
}

}  // namespace op
}  // namespace tessera
