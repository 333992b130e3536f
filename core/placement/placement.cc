#include "core/placement/placement.h"

#include <algorithm>
#include <limits>

#include "core/common/checked_math.h"
#include "core/common/hash.h"
#include "core/common/limits.h"
#include "core/common/text_cursor.h"

namespace tessera {
namespace {

// Renders ranks[offset..] as nested lists over hierarchy[axis..].
void AppendNested(const std::vector<int32_t>& ranks, const std::vector<int64_t>& hierarchy,
                  int axis, int64_t* offset, std::string* out) {
  *out += '[';
  for (int64_t i = 0; i < hierarchy[axis]; ++i) {
    if (i) *out += ',';
    if (axis + 1 == static_cast<int>(hierarchy.size())) {
      *out += std::to_string(ranks[(*offset)++]);
    } else {
      AppendNested(ranks, hierarchy, axis + 1, offset, out);
    }
  }
  *out += ']';
}

// A parsed bracket list: either leaf ranks or child lists, never both.
struct Node {
  std::vector<int32_t> ranks;
  std::vector<Node> children;
};

// `*total` counts the ranks parsed so far in the whole text: a range is refused before
// any rank is stored when the text would hold more than kMaxPlacementRanks.
Status ParseRankOrRange(TextCursor* cur, int64_t* total, std::vector<int32_t>* out) {
  TESS_ASSIGN_OR_RETURN(int64_t first, cur->ParseInt());
  int64_t last = first;
  if (cur->Consume('-')) {
    TESS_ASSIGN_OR_RETURN(last, cur->ParseInt());
    if (last < first) {
      return cur->Error("a range whose end is >= its start (" + std::to_string(first) + "-" +
                        std::to_string(last) + ")");
    }
  }
  if (last > std::numeric_limits<int32_t>::max()) {
    return cur->Error("ranks below 2^31");
  }
  *total += last - first + 1;  // both below 2^31: no overflow
  if (*total > kMaxPlacementRanks) {
    return cur->Error("at most " + std::to_string(kMaxPlacementRanks) +
                      " ranks in a placement (this range, " + std::to_string(first) + "-" +
                      std::to_string(last) + ", brings the count to " + std::to_string(*total) +
                      ")");
  }
  for (int64_t r = first; r <= last; ++r) out->push_back(static_cast<int32_t>(r));
  return Status::Ok();
}

Status ParseList(TextCursor* cur, int depth, int64_t* total, Node* node) {
  if (depth > Placement::kMaxAxes) {
    return cur->Error("at most " + std::to_string(Placement::kMaxAxes) + " levels of brackets");
  }
  TESS_RETURN_IF_ERROR(cur->Expect('['));
  if (cur->Peek() == ']') return cur->Error("a rank or '[' (empty rank list)");
  do {
    if (cur->Peek() == '[') {
      if (!node->ranks.empty()) return cur->Error("a rank, not a nested list");
      node->children.emplace_back();
      TESS_RETURN_IF_ERROR(ParseList(cur, depth + 1, total, &node->children.back()));
    } else {
      if (!node->children.empty()) return cur->Error("'[' (a nested list)");
      TESS_RETURN_IF_ERROR(ParseRankOrRange(cur, total, &node->ranks));
    }
  } while (cur->Consume(','));
  return cur->Expect(']');
}

// Flattens `node` row-major, checking that every list at one depth has one length.
Status Flatten(const Node& node, size_t axis, std::vector<int64_t>* hierarchy,
               std::vector<int32_t>* ranks, const std::string& text) {
  int64_t len = node.children.empty() ? static_cast<int64_t>(node.ranks.size())
                                      : static_cast<int64_t>(node.children.size());
  bool leaf = node.children.empty();
  if (axis == hierarchy->size()) {
    hierarchy->push_back(len);
  } else if ((*hierarchy)[axis] != len || (leaf != (axis + 1 == hierarchy->size()))) {
    return InvalidArgument(
        "bad placement \"" + text + "\": nested rank lists must be rectangular (a list at depth " +
        std::to_string(axis) + " has " + std::to_string(len) +
        " entries where an earlier one has " + std::to_string((*hierarchy)[axis]) + ")");
  }
  if (leaf) {
    ranks->insert(ranks->end(), node.ranks.begin(), node.ranks.end());
    return Status::Ok();
  }
  for (const Node& child : node.children) {
    TESS_RETURN_IF_ERROR(Flatten(child, axis + 1, hierarchy, ranks, text));
  }
  return Status::Ok();
}

}  // namespace

const char* DeviceTypeName(DeviceType type) {
  switch (type) {
    case DeviceType::kCpu: return "cpu";
    case DeviceType::kCuda: return "cuda";
  }
  return "invalid";
}

Result<Placement> Placement::Make(DeviceType device_type, std::vector<int32_t> ranks,
                                  std::vector<int64_t> hierarchy) {
  if (device_type != DeviceType::kCpu && device_type != DeviceType::kCuda) {
    return InvalidArgument("placement device type " +
                           std::to_string(static_cast<int>(device_type)) +
                           " is not cpu (0) or cuda (1)");
  }
  if (ranks.empty()) return InvalidArgument("placement has an empty rank list");
  if (ranks.size() > static_cast<size_t>(kMaxPlacementRanks)) {
    return InvalidArgument("placement has " + std::to_string(ranks.size()) + " ranks; at most " +
                           std::to_string(kMaxPlacementRanks) + " are supported");
  }
  if (hierarchy.empty() || hierarchy.size() > static_cast<size_t>(kMaxAxes)) {
    return InvalidArgument("placement hierarchy has " + std::to_string(hierarchy.size()) +
                           " axes; expected 1 to " + std::to_string(kMaxAxes));
  }
  int64_t product = 1;
  for (size_t i = 0; i < hierarchy.size(); ++i) {
    if (hierarchy[i] <= 0) {
      return InvalidArgument("placement hierarchy axis " + std::to_string(i) + " is " +
                             std::to_string(hierarchy[i]) + "; axes must be >= 1");
    }
    if (!CheckedMul(product, hierarchy[i], &product)) {
      product = -1;  // overflows int64: it cannot equal ranks.size()
      break;
    }
  }
  if (product != static_cast<int64_t>(ranks.size())) {
    std::string h;
    for (int64_t d : hierarchy) h += (h.empty() ? "" : ",") + std::to_string(d);
    return InvalidArgument("placement hierarchy [" + h + "] does not hold " +
                           std::to_string(ranks.size()) + " ranks");
  }
  auto impl = std::make_shared<Impl>();
  impl->index_by_rank.reserve(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] < 0) {
      return InvalidArgument("placement rank " + std::to_string(ranks[i]) + " is negative");
    }
    impl->index_by_rank.emplace_back(ranks[i], static_cast<int64_t>(i));
  }
  std::sort(impl->index_by_rank.begin(), impl->index_by_rank.end());
  for (size_t i = 1; i < impl->index_by_rank.size(); ++i) {
    const auto& prev = impl->index_by_rank[i - 1];
    const auto& cur = impl->index_by_rank[i];
    if (prev.first == cur.first) {
      return InvalidArgument("placement lists rank " + std::to_string(cur.first) +
                             " twice (at indices " + std::to_string(prev.second) + " and " +
                             std::to_string(cur.second) + ")");
    }
  }
  impl->device_type = device_type;
  impl->ranks = std::move(ranks);
  impl->hierarchy = std::move(hierarchy);
  impl->text = std::string(DeviceTypeName(device_type)) + ":";
  int64_t offset = 0;
  AppendNested(impl->ranks, impl->hierarchy, 0, &offset, &impl->text);
  impl->hash = std::hash<std::string>()(impl->text);
  return Placement(std::move(impl));
}

Result<Placement> Placement::Parse(std::string_view text) {
  TESS_RETURN_IF_ERROR(CheckParsedTextLength("placement", text));
  TextCursor cur(text, "placement");
  DeviceType type;
  if (cur.ConsumeWord("cpu")) {
    type = DeviceType::kCpu;
  } else if (cur.ConsumeWord("cuda")) {
    type = DeviceType::kCuda;
  } else {
    return cur.Error("device type \"cpu\" or \"cuda\"");
  }
  TESS_RETURN_IF_ERROR(cur.Expect(':'));
  std::vector<int32_t> ranks;
  std::vector<int64_t> hierarchy;
  int64_t total = 0;
  if (cur.Peek() == '[') {
    Node root;
    TESS_RETURN_IF_ERROR(ParseList(&cur, 1, &total, &root));
    TESS_RETURN_IF_ERROR(Flatten(root, 0, &hierarchy, &ranks, std::string(text)));
  } else {
    TESS_RETURN_IF_ERROR(ParseRankOrRange(&cur, &total, &ranks));
    hierarchy.push_back(static_cast<int64_t>(ranks.size()));
  }
  TESS_RETURN_IF_ERROR(cur.ExpectEnd());
  Result<Placement> p = Make(type, std::move(ranks), std::move(hierarchy));
  if (!p.ok()) {
    return InvalidArgument("bad placement \"" + std::string(text) + "\": " + p.status().message());
  }
  return p;
}

int64_t Placement::index_of(int32_t rank) const {
  const auto& table = impl_->index_by_rank;
  auto it = std::lower_bound(table.begin(), table.end(), std::make_pair(rank, int64_t{-1}));
  if (it == table.end() || it->first != rank) return -1;
  return it->second;
}

Result<int32_t> Placement::RankAt(int64_t index) const {
  if (index < 0 || index >= parallel_num()) {
    return OutOfRange("parallel index " + std::to_string(index) + " is outside " + ToString() +
                      " (parallel_num " + std::to_string(parallel_num()) + ")");
  }
  return rank_at(index);
}

Result<int64_t> Placement::IndexOf(int32_t rank) const {
  int64_t index = index_of(rank);
  if (index < 0) {
    return NotFound("rank " + std::to_string(rank) + " is not in placement " + ToString());
  }
  return index;
}

int64_t Placement::Coordinate(int64_t index, int axis) const {
  const std::vector<int64_t>& h = impl_->hierarchy;
  int64_t stride = 1;
  for (size_t a = axis + 1; a < h.size(); ++a) stride *= h[a];
  return (index / stride) % h[axis];
}

Result<Placement> Placement::AxisGroup(int axis, int32_t rank) const {
  if (axis < 0 || axis >= num_axes()) {
    return OutOfRange("hierarchy axis " + std::to_string(axis) + " is outside " + ToString() +
                      ", which has " + std::to_string(num_axes()) + " axes");
  }
  TESS_ASSIGN_OR_RETURN(int64_t index, IndexOf(rank));
  const std::vector<int64_t>& h = impl_->hierarchy;
  int64_t stride = 1;
  for (size_t a = axis + 1; a < h.size(); ++a) stride *= h[a];
  int64_t base = index - Coordinate(index, axis) * stride;
  std::vector<int32_t> group;
  group.reserve(h[axis]);
  for (int64_t c = 0; c < h[axis]; ++c) group.push_back(impl_->ranks[base + c * stride]);
  return Make(device_type(), std::move(group), {h[axis]});
}

bool operator==(const Placement& a, const Placement& b) {
  if (a.impl_ == b.impl_) return true;
  return a.impl_->hash == b.impl_->hash && a.impl_->device_type == b.impl_->device_type &&
         a.impl_->hierarchy == b.impl_->hierarchy && a.impl_->ranks == b.impl_->ranks;
}

}  // namespace tessera
