// Oracles shared by the boxing tests: a logical tensor from a closed form, its local
// pieces for any placed nd-sbp (slices by plain element loops; partial values split
// per element so that the nested reduction gives the logical value back), and the
// reconstruction of a logical tensor from every rank's pieces. Values are small
// integers (times 1/4 for floats), so every sum is exact in any order.
#ifndef TESSERA_TESTS_BOXING_ORACLE_H_
#define TESSERA_TESTS_BOXING_ORACLE_H_

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/common/shape.h"
#include "core/placement/placement.h"
#include "core/sbp/physical_layout.h"
#include "core/sbp/sbp.h"

namespace tessera::boxing::oracle {

// Logical element k.
template <typename T>
T Value(int64_t k) {
  int64_t v = (k * 37) % 101 - 50;
  return std::is_floating_point<T>::value ? T(T(v) * T(0.25)) : T(v);
}

template <typename T>
std::vector<T> Logical(const Shape& shape) {
  std::vector<T> logical(shape.num_elements());
  for (int64_t k = 0; k < shape.num_elements(); ++k) logical[k] = Value<T>(k);
  return logical;
}

inline std::vector<int64_t> Unflatten(const Shape& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.ndim());
  for (int d = shape.ndim() - 1; d >= 0; --d) {
    idx[d] = shape.dim(d) == 0 ? 0 : flat % shape.dim(d);
    flat = shape.dim(d) == 0 ? 0 : flat / shape.dim(d);
  }
  return idx;
}

inline int64_t Flatten(const Shape& shape, const std::vector<int64_t>& idx) {
  int64_t f = 0;
  for (int d = 0; d < shape.ndim(); ++d) f = f * shape.dim(d) + idx[d];
  return f;
}

// The logical flat index of element `local_flat` of parallel index `index`'s piece.
inline int64_t LogicalIndex(const PhysicalLayout& layout, const Shape& shape, int64_t local_flat) {
  std::vector<int64_t> idx = Unflatten(layout.local_shape, local_flat);
  for (int d = 0; d < shape.ndim(); ++d) idx[d] += layout.ranges[d].begin;
  return Flatten(shape, idx);
}

// Part `part` of `parts` of value v (element k, placement axis `axis`) under a
// partial kind: reducing all parts with the kind's op gives v, and for max/min only
// one part holds v itself. `salt` (from the coordinates on earlier axes) varies the
// split between groups, so that reducing the axes in the wrong order gives a wrong
// value rather than the right one by coincidence.
template <typename T>
T PartOf(SbpKind kind, T v, int64_t k, int axis, int64_t parts, int64_t part, int64_t salt) {
  if (kind == SbpKind::kPartialSum) {
    auto piece = [&](int64_t r) { return T((k * 5 + r * 3 + axis * 2 + salt) % 7 - 3); };
    if (part < parts - 1) return piece(part);
    T rest = v;
    for (int64_t r = 0; r < parts - 1; ++r) rest = rest - piece(r);  // f16/bf16 too
    return rest;
  }
  const T delta = part == (k + axis + salt) % parts ? T(0) : T((k + part + salt) % 5 + 1);
  return kind == SbpKind::kPartialMax ? v - delta : v + delta;
}

// Parallel index `index`'s local piece of `logical` under (placement, nd): the
// slice its layout names, with each partial axis splitting the value further, axis 0
// first (the nested order: the last partial axis is reduced first).
template <typename T>
std::vector<T> LocalOf(const std::vector<T>& logical, const Shape& shape,
                       const Placement& placement, const NdSbp& nd, int64_t index) {
  PhysicalLayout layout = PhysicalLayoutAt(shape, placement, nd, index).value();
  std::vector<T> local(layout.local_shape.num_elements());
  for (int64_t e = 0; e < static_cast<int64_t>(local.size()); ++e) {
    const int64_t k = LogicalIndex(layout, shape, e);
    T v = logical[k];
    int64_t salt = 0;
    for (int a = 0; a < nd.num_axes(); ++a) {
      const int64_t c = placement.Coordinate(index, a);
      if (nd[a].is_partial()) v = PartOf(nd[a].kind, v, k, a, placement.hierarchy()[a], c, salt);
      salt += c * (a + 2);
    }
    local[e] = v;
  }
  return local;
}

template <typename T>
T Combine(SbpKind kind, T a, T b) {
  if (kind == SbpKind::kPartialMax) return std::max(a, b);
  if (kind == SbpKind::kPartialMin) return std::min(a, b);
  return a + b;
}

// The logical tensor that every parallel index's piece (`pieces[i]`) stands for:
// per element, the pieces of the indices that hold it with every broadcast
// coordinate 0, reduced over the partial axes from the last one back.
template <typename T>
std::vector<T> Reconstruct(const std::vector<std::vector<T>>& pieces, const Shape& shape,
                           const Placement& placement, const NdSbp& nd) {
  std::vector<T> logical(shape.num_elements());
  std::vector<std::vector<T>> holders(shape.num_elements());
  for (int64_t i = 0; i < placement.parallel_num(); ++i) {
    bool first_copy = true;
    for (int a = 0; a < nd.num_axes(); ++a) {
      if (nd[a].is_broadcast() && placement.Coordinate(i, a) != 0) first_copy = false;
    }
    if (!first_copy) continue;
    PhysicalLayout layout = PhysicalLayoutAt(shape, placement, nd, i).value();
    for (int64_t e = 0; e < layout.local_shape.num_elements(); ++e) {
      // Indices ascend, so each element's holders arrive in row-major order over the
      // partial coordinates (the last partial axis fastest).
      holders[LogicalIndex(layout, shape, e)].push_back(pieces[i][e]);
    }
  }
  for (int64_t k = 0; k < shape.num_elements(); ++k) {
    std::vector<T> values = holders[k];
    for (int a = nd.num_axes() - 1; a >= 0; --a) {
      if (!nd[a].is_partial()) continue;
      const int64_t h = placement.hierarchy()[a];
      std::vector<T> reduced;
      for (size_t g = 0; g < values.size(); g += h) {
        T acc = values[g];
        for (int64_t r = 1; r < h; ++r) acc = Combine(nd[a].kind, acc, values[g + r]);
        reduced.push_back(acc);
      }
      values.swap(reduced);
    }
    logical[k] = values.empty() ? T(-999) : values[0];
  }
  return logical;
}

// "" when equal, else a description of the first mismatch.
template <typename T>
std::string Compare(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) {
    return "size " + std::to_string(got.size()) + " != " + std::to_string(want.size());
  }
  int64_t bad = 0, first = -1;
  for (size_t k = 0; k < got.size(); ++k) {
    if (got[k] != want[k]) {
      if (first < 0) first = k;
      ++bad;
    }
  }
  if (bad == 0) return "";
  std::ostringstream os;
  os << bad << " of " << got.size() << " elements differ; first at " << first << ": got "
     << got[first] << ", want " << want[first];
  return os.str();
}

}  // namespace tessera::boxing::oracle

#endif  // TESSERA_TESTS_BOXING_ORACLE_H_
