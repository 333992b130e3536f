#include "core/sbp/sbp.h"

#include "core/common/hash.h"
#include "core/common/limits.h"
#include "core/common/text_cursor.h"

namespace tessera {
namespace {

Result<Sbp> ParseOne(TextCursor* cur) {
  if (cur->ConsumeWord("S")) {
    TESS_RETURN_IF_ERROR(cur->Expect('('));
    TESS_ASSIGN_OR_RETURN(int64_t axis, cur->ParseSignedInt());
    // A negative axis counts from the end; ResolveNdSbp maps it once a rank is known.
    if (axis < -Shape::kMaxDims || axis > kMaxSplitAxis) {
      return cur->Error("a split axis in [" + std::to_string(-Shape::kMaxDims) + ", " +
                        std::to_string(kMaxSplitAxis) + "] (got S(" + std::to_string(axis) + "))");
    }
    TESS_RETURN_IF_ERROR(cur->Expect(')'));
    return Sbp::Split(static_cast<int32_t>(axis));
  }
  if (cur->ConsumeWord("B")) return Sbp::Broadcast();
  if (cur->ConsumeWord("P")) {
    if (!cur->Consume('(')) return Sbp::PartialSum();
    Sbp sbp;
    if (cur->ConsumeWord("sum")) {
      sbp = Sbp::PartialSum();
    } else if (cur->ConsumeWord("max")) {
      sbp = Sbp::PartialMax();
    } else if (cur->ConsumeWord("min")) {
      sbp = Sbp::PartialMin();
    } else {
      return cur->Error("a partial reduction \"sum\", \"max\" or \"min\"");
    }
    TESS_RETURN_IF_ERROR(cur->Expect(')'));
    return sbp;
  }
  return cur->Error("an SBP: S(i), B, P, P(max) or P(min)");
}

}  // namespace

Result<Sbp> Sbp::Make(int kind, int32_t axis) {
  if (kind < static_cast<int>(SbpKind::kSplit) || kind > static_cast<int>(SbpKind::kPartialMin)) {
    return InvalidArgument("sbp kind " + std::to_string(kind) +
                           " is not split (0), broadcast (1), partial_sum (2), "
                           "partial_max (3) or partial_min (4)");
  }
  if (kind == static_cast<int>(SbpKind::kSplit)) {
    if (axis < 0 || axis > kMaxSplitAxis) {
      return InvalidArgument("split axis " + std::to_string(axis) + " is outside [0, " +
                             std::to_string(kMaxSplitAxis) + "]");
    }
    return Split(axis);
  }
  return Sbp{static_cast<SbpKind>(kind), 0};
}

Result<Sbp> Sbp::Parse(std::string_view text) {
  TextCursor cur(text, "sbp");
  TESS_ASSIGN_OR_RETURN(Sbp sbp, ParseOne(&cur));
  TESS_RETURN_IF_ERROR(cur.ExpectEnd());
  return sbp;
}

std::string Sbp::ToString() const {
  switch (kind) {
    case SbpKind::kSplit: return "S(" + std::to_string(axis) + ")";
    case SbpKind::kBroadcast: return "B";
    case SbpKind::kPartialSum: return "P";
    case SbpKind::kPartialMax: return "P(max)";
    case SbpKind::kPartialMin: return "P(min)";
  }
  return "invalid";
}

Result<NdSbp> NdSbp::Make(const Sbp* sbps, int num_axes) {
  if (num_axes < 1 || num_axes > kMaxAxes) {
    return InvalidArgument("nd-sbp has " + std::to_string(num_axes) + " axes; expected 1 to " +
                           std::to_string(kMaxAxes));
  }
  NdSbp nd;
  for (int i = 0; i < num_axes; ++i) {
    TESS_ASSIGN_OR_RETURN(Sbp checked, Sbp::Make(static_cast<int>(sbps[i].kind), sbps[i].axis));
    nd.Append(checked);
  }
  return nd;
}

Result<NdSbp> NdSbp::Parse(std::string_view text) {
  TESS_RETURN_IF_ERROR(CheckParsedTextLength("nd-sbp", text));
  TextCursor cur(text, "nd-sbp");
  NdSbp nd;
  if (cur.Consume('(')) {
    if (cur.Peek() == ')') return cur.Error("an SBP (empty nd-sbp)");
    do {
      if (nd.num_axes() == kMaxAxes) {
        return cur.Error("')' (at most " + std::to_string(kMaxAxes) + " axes)");
      }
      TESS_ASSIGN_OR_RETURN(Sbp sbp, ParseOne(&cur));
      nd.Append(sbp);
    } while (cur.Consume(','));
    TESS_RETURN_IF_ERROR(cur.Expect(')'));
  } else {
    TESS_ASSIGN_OR_RETURN(Sbp sbp, ParseOne(&cur));
    nd.Append(sbp);
  }
  TESS_RETURN_IF_ERROR(cur.ExpectEnd());
  return nd;
}

bool NdSbp::Append(Sbp sbp) {
  if (num_axes_ == kMaxAxes) return false;
  sbps_[num_axes_++] = sbp;
  return true;
}

bool NdSbp::all_broadcast() const {
  for (int i = 0; i < num_axes_; ++i) {
    if (!sbps_[i].is_broadcast()) return false;
  }
  return true;
}

bool NdSbp::has_partial() const {
  for (int i = 0; i < num_axes_; ++i) {
    if (sbps_[i].is_partial()) return true;
  }
  return false;
}

std::string NdSbp::ToString() const {
  if (num_axes_ == 1) return sbps_[0].ToString();
  std::string s = "(";
  for (int i = 0; i < num_axes_; ++i) {
    if (i) s += ", ";
    s += sbps_[i].ToString();
  }
  return s + ")";
}

size_t NdSbp::Hash() const {
  size_t h = static_cast<size_t>(num_axes_);
  for (int i = 0; i < num_axes_; ++i) {
    h = HashCombine(h, static_cast<size_t>(sbps_[i].kind) * 64 + sbps_[i].axis);
  }
  return h;
}

bool operator==(const NdSbp& a, const NdSbp& b) {
  if (a.num_axes_ != b.num_axes_) return false;
  for (int i = 0; i < a.num_axes_; ++i) {
    if (a.sbps_[i] != b.sbps_[i]) return false;
  }
  return true;
}

Status ValidateNdSbp(const NdSbp& nd_sbp, const Placement& placement, const Shape& shape) {
  if (nd_sbp.num_axes() != placement.num_axes()) {
    return InvalidArgument("nd-sbp " + nd_sbp.ToString() + " has " +
                           std::to_string(nd_sbp.num_axes()) + " axes but placement " +
                           placement.ToString() + " has a " + std::to_string(placement.num_axes()) +
                           "-axis hierarchy");
  }
  for (int i = 0; i < nd_sbp.num_axes(); ++i) {
    const Sbp& sbp = nd_sbp[i];
    if (sbp.is_split() && sbp.axis >= shape.ndim()) {
      return InvalidArgument("nd-sbp " + nd_sbp.ToString() + " splits tensor axis " +
                             std::to_string(sbp.axis) + " but the tensor of shape " +
                             shape.ToString() + " has " + std::to_string(shape.ndim()) + " axes");
    }
  }
  return Status::Ok();
}

Result<NdSbp> ResolveNdSbp(const NdSbp& nd_sbp, const Shape& shape) {
  NdSbp out;
  for (int i = 0; i < nd_sbp.num_axes(); ++i) {
    Sbp sbp = nd_sbp[i];
    if (sbp.is_split() && sbp.axis < 0) {
      if (sbp.axis + shape.ndim() < 0) {
        return InvalidArgument("nd-sbp " + nd_sbp.ToString() + " splits axis " +
                               std::to_string(sbp.axis) + " but the tensor of shape " +
                               shape.ToString() + " has " + std::to_string(shape.ndim()) +
                               " axes (split axes " + std::to_string(-shape.ndim()) + ".." +
                               std::to_string(shape.ndim() - 1) + ")");
      }
      sbp.axis += shape.ndim();
    }
    out.Append(sbp);
  }
  return out;
}

Status CheckBoolNotPartial(DType dtype, const NdSbp& nd_sbp, const char* what) {
  if (dtype != DType::kBool) return Status::Ok();
  for (int i = 0; i < nd_sbp.num_axes(); ++i) {
    if (nd_sbp[i].is_partial()) {
      return InvalidArgument(std::string(what) + " of dtype bool cannot be partial (nd-sbp " +
                             nd_sbp.ToString() + "): bool has no sum, max or min");
    }
  }
  return Status::Ok();
}

}  // namespace tessera
