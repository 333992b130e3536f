#include "core/comm/shm_reduction.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/comm/comm_checks.h"
#include "core/comm/mpi_world.h"

namespace tessera::comm {
namespace {

// Segments are page multiples, so each rank's pair starts on its own page.
constexpr int64_t kPage = 4096;
// Blocks start on cache lines: no line is written by two ranks' reductions.
constexpr int64_t kLine = 64;

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Reduces one slice of this rank's block: out[k] = own[k] op peers[0][k] op ...
// (peers in rank order), written to `out` (the shared segment) and back to `own`
// (the caller's piece). The pointers never alias: own is the caller's memory, the
// rest are distinct segments.
using SliceFn = void (*)(void* own, void* out, const void* const* peers, int npeers, int64_t n);

// Integers add as unsigned: wrapping, as MPI's sum does, without signed overflow.
struct Sum {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
};
struct Max {
  template <typename T>
  T operator()(T a, T b) const {
    return a > b ? a : b;
  }
};
struct Min {
  template <typename T>
  T operator()(T a, T b) const {
    return a < b ? a : b;
  }
};

// Elements per tile when there are several peers: the partial result stays in L1
// between passes.
constexpr int64_t kTileBytes = 8192;

template <typename T, typename Op>
void ReduceSlice(void* own_v, void* out_v, const void* const* peers, int npeers, int64_t n) {
  T* __restrict own = static_cast<T*>(own_v);
  T* __restrict out = static_cast<T*>(out_v);
  const Op op;
  if (npeers == 1) {  // two ranks: one pass
    const T* __restrict p = static_cast<const T*>(peers[0]);
    for (int64_t k = 0; k < n; ++k) {
      const T v = op(own[k], p[k]);
      out[k] = v;
      own[k] = v;
    }
    return;
  }
  constexpr int64_t kTile = kTileBytes / sizeof(T);
  for (int64_t at = 0; at < n; at += kTile) {
    const int64_t m = std::min(kTile, n - at);
    T* __restrict o = out + at;
    T* __restrict w = own + at;
    const T* __restrict p = static_cast<const T*>(peers[0]) + at;
    for (int64_t k = 0; k < m; ++k) o[k] = op(w[k], p[k]);
    for (int j = 1; j + 1 < npeers; ++j) {
      const T* __restrict q = static_cast<const T*>(peers[j]) + at;
      for (int64_t k = 0; k < m; ++k) o[k] = op(o[k], q[k]);
    }
    const T* __restrict last = static_cast<const T*>(peers[npeers - 1]) + at;
    for (int64_t k = 0; k < m; ++k) {
      const T v = op(o[k], last[k]);
      o[k] = v;
      w[k] = v;
    }
  }
}

template <typename T>
SliceFn ForOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return ReduceSlice<T, Sum>;
    case ReduceOp::kMax: return ReduceSlice<T, Max>;
    case ReduceOp::kMin: return ReduceSlice<T, Min>;
  }
  return nullptr;
}

// Non-null for the dtypes and ops the callers validated.
SliceFn SliceFunction(DType dtype, ReduceOp op) {
  switch (dtype) {
    case DType::kF32: return ForOp<float>(op);
    case DType::kF64: return ForOp<double>(op);
    case DType::kI32: return ForOp<int32_t>(op);
    case DType::kI64: return ForOp<int64_t>(op);
    case DType::kF16:
    case DType::kBF16: break;
  }
  return nullptr;
}

// The attribute of a communicator without a shared-memory path (its address), so
// the node check runs once per communicator.
char unavailable_marker;

int DeleteState(MPI_Comm /*comm*/, int /*keyval*/, void* value, void* /*extra*/) {
  if (value != &unavailable_marker) delete static_cast<ShmReduction*>(value);
  return MPI_SUCCESS;
}

// The attribute key the state is cached under; created once per process.
Result<int> Keyval() {
  static int keyval = MPI_KEYVAL_INVALID;
  static int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, DeleteState, &keyval, nullptr);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_create_keyval", rc);
  return keyval;
}

}  // namespace

Result<ShmReduction*> ShmReduction::For(MpiCommunicator& comm) {
  constexpr const char* kFor = "ShmReduction::For";
  if (comm.timeout_seconds() > 0 || comm.poisoned()) {
    return FailedPrecondition(std::string(kFor) +
                              ": the communicator has a timeout or is poisoned; the shared-memory "
                              "reduction is unbounded, use the communicator's own AllReduce");
  }
  TESS_ASSIGN_OR_RETURN(int keyval, Keyval());
  void* value = nullptr;
  int found = 0;
  int rc = MPI_Comm_get_attr(comm.comm(), keyval, &value, &found);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_get_attr", rc);
  if (found) {
    return value == &unavailable_marker ? nullptr : static_cast<ShmReduction*>(value);
  }
  bool shared = false;
  if (comm.size() > 1) {
    MPI_Comm node = MPI_COMM_NULL;
    rc = MPI_Comm_split_type(comm.comm(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_split_type", rc);
    int node_size = 0;
    rc = MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_size", rc);
    shared = node_size == comm.size();
  }
  ShmReduction* state = shared ? new ShmReduction(comm.comm(), comm.rank(), comm.size()) : nullptr;
  rc = MPI_Comm_set_attr(comm.comm(), keyval,
                         state != nullptr ? static_cast<void*>(state) : &unavailable_marker);
  if (rc != MPI_SUCCESS) {
    delete state;
    return MpiError("MPI_Comm_set_attr", rc);
  }
  return state;
}

ShmReduction::~ShmReduction() { FreeWindow(); }

void ShmReduction::FreeWindow() {
  if (window_ == MPI_WIN_NULL) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    MPI_Win_unlock_all(window_);
    MPI_Win_free(&window_);
  }
  window_ = MPI_WIN_NULL;
  capacity_ = 0;
}

Status ShmReduction::Reserve(MpiCommunicator& comm, int64_t bytes) {
  if (bytes < 0) {
    return InvalidArgument("ShmReduction::Reserve: bytes is " + Str(bytes) + "; it must be >= 0");
  }
  if (bytes <= capacity_) return Status::Ok();
  // Another rank may still be copying out of the old segments.
  if (window_ != MPI_WIN_NULL) TESS_RETURN_IF_ERROR(comm.Barrier());
  FreeWindow();
  const int64_t capacity = RoundUp(bytes, kPage);
  MPI_Info info = MPI_INFO_NULL;
  int rc = MPI_Info_create(&info);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Info_create", rc);
  // Each rank's segment in its own mapping, placed where that rank touches it first.
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  // Open MPI does not align other ranks' segments to cache lines: each rank's pair
  // starts at the first line boundary of its segment.
  void* mine = nullptr;
  rc = MPI_Win_allocate_shared(static_cast<MPI_Aint>(2 * capacity + kLine), 1, info, comm_, &mine,
                               &window_);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) {
    window_ = MPI_WIN_NULL;
    return MpiError("MPI_Win_allocate_shared", rc);
  }
  segments_.assign(size_, nullptr);
  for (int32_t r = 0; r < size_; ++r) {
    MPI_Aint size = 0;
    int disp = 0;
    unsigned char* base = nullptr;
    rc = MPI_Win_shared_query(window_, r, &size, &disp, &base);
    if (rc != MPI_SUCCESS) {
      MPI_Win_free(&window_);
      return MpiError("MPI_Win_shared_query", rc);
    }
    const int64_t at = static_cast<int64_t>(reinterpret_cast<uintptr_t>(base));
    segments_[r] = base + (RoundUp(at, kLine) - at);
  }
  // Touched first by its owner, so its pages are placed near it.
  std::memset(segments_[rank_], 0, static_cast<size_t>(2 * capacity));
  // One passive epoch for the window's life: loads and stores are ordered by
  // MPI_Win_sync around the barriers.
  rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, window_);
  if (rc != MPI_SUCCESS) {
    MPI_Win_free(&window_);
    return MpiError("MPI_Win_lock_all", rc);
  }
  capacity_ = capacity;
  parity_ = 0;
  return Barrier(comm);
}

Status ShmReduction::Barrier(MpiCommunicator& comm) {
  MPI_Win_sync(window_);
  TESS_RETURN_IF_ERROR(comm.Barrier());
  MPI_Win_sync(window_);
  return Status::Ok();
}

Status ShmReduction::AllReduce(MpiCommunicator& comm, const std::vector<ShmPiece>& pieces,
                               int64_t count, DType dtype, ReduceOp op) {
  constexpr const char* kAllReduce = "ShmReduction::AllReduce";
  TESS_RETURN_IF_ERROR(CheckCommDType(kAllReduce, dtype));
  TESS_RETURN_IF_ERROR(CheckReduceOp(kAllReduce, op));
  const int64_t element = static_cast<int64_t>(DTypeSize(dtype));
  if (count < 0 || count * element > capacity_) {
    return InvalidArgument(std::string(kAllReduce) + ": count is " + Str(count) + " elements of " +
                           DTypeName(dtype) + "; the segments hold " + Str(capacity_) + " bytes");
  }
  int64_t end = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const ShmPiece& piece = pieces[i];
    if (piece.count < 0 || piece.offset < end || piece.offset + piece.count > count ||
        (piece.data == nullptr && piece.count > 0)) {
      return InvalidArgument(std::string(kAllReduce) + ": pieces[" + Str(static_cast<int64_t>(i)) +
                             "] holds " + Str(piece.count) + " elements at offset " +
                             Str(piece.offset) + (piece.data == nullptr ? " from NULL" : "") +
                             "; pieces must be in offset order, not overlap, lie in [0, " +
                             Str(count) + ") and have data");
    }
    end = piece.offset + piece.count;
  }
  const SliceFn reduce = SliceFunction(dtype, op);
  const int64_t line = std::max<int64_t>(1, kLine / element);
  for (int32_t b = 0; b < size_; ++b) starts_[b] = count * b / size_ / line * line;
  starts_[size_] = count;
  const int64_t mine_begin = starts_[rank_], mine_end = starts_[rank_ + 1];
  unsigned char* mine = Segment(rank_);
  auto bytes = [element](int64_t elements) { return static_cast<size_t>(elements * element); };

  // 1. What the other ranks reduce: every piece outside this rank's block.
  for (const ShmPiece& piece : pieces) {
    const int64_t lo = piece.offset, hi = piece.offset + piece.count;
    const unsigned char* src = static_cast<const unsigned char*>(piece.data);
    if (lo < mine_begin) {
      const int64_t to = std::min(hi, mine_begin);
      std::memcpy(mine + lo * element, src, bytes(to - lo));
    }
    if (hi > mine_end) {
      const int64_t from = std::max(lo, mine_end);
      std::memcpy(mine + from * element, src + (from - lo) * element, bytes(hi - from));
    }
  }
  TESS_RETURN_IF_ERROR(Barrier(comm));

  // 3. This rank's block, straight from and back into its pieces.
  for (const ShmPiece& piece : pieces) {
    const int64_t from = std::max(piece.offset, mine_begin);
    const int64_t to = std::min(piece.offset + piece.count, mine_end);
    if (from >= to) continue;
    int npeers = 0;
    for (int32_t q = 0; q < size_; ++q) {
      if (q != rank_) peers_[npeers++] = Segment(q) + from * element;
    }
    reduce(static_cast<unsigned char*>(piece.data) + (from - piece.offset) * element,
           mine + from * element, peers_.data(), npeers, to - from);
  }
  TESS_RETURN_IF_ERROR(Barrier(comm));

  // 5. The other blocks, from their owners' segments.
  for (const ShmPiece& piece : pieces) {
    const int64_t lo = piece.offset, hi = piece.offset + piece.count;
    unsigned char* dst = static_cast<unsigned char*>(piece.data);
    // Blocks are in element order: start at the one that holds `lo`.
    int32_t b = static_cast<int32_t>(std::upper_bound(starts_.begin(), starts_.end(), lo) -
                                     starts_.begin()) -
                1;
    for (; b < size_ && starts_[b] < hi; ++b) {
      if (b == rank_) continue;
      const int64_t from = std::max(lo, starts_[b]), to = std::min(hi, starts_[b + 1]);
      if (from >= to) continue;
      std::memcpy(dst + (from - lo) * element, Segment(b) + from * element, bytes(to - from));
    }
  }
  parity_ ^= 1;
  return Status::Ok();
}

}  // namespace tessera::comm
