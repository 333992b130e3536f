#include "core/boxing/boxing_cost.h"

namespace tessera::boxing {
namespace {

double CeilLog2(int64_t n) {
  double rounds = 0;
  for (int64_t reach = 1; reach < n; reach *= 2) ++rounds;
  return rounds;
}

}  // namespace

const char* CollectiveName(Collective collective) {
  switch (collective) {
    case Collective::kLocalCopy: return "local copy";
    case Collective::kLocalSlice: return "local slice";
    case Collective::kLocalFill: return "local identity fill";
    case Collective::kAllGather: return "all-gather-v";
    case Collective::kReduceScatter: return "reduce-scatter-v";
    case Collective::kAllReduce: return "all-reduce";
    case Collective::kAllToAll: return "all-to-all-v";
    case Collective::kReduce: return "reduce to index 0";
    case Collective::kReshard: return "reshard all-to-all-v";
    case Collective::kRelabel: return "relabel, nothing moves";
  }
  return "invalid";
}

double CollectiveSeconds(Collective collective, int64_t n, double group_bytes, double local_bytes) {
  const double local = kStepSeconds + kGammaSecondsPerByte * local_bytes;
  if (n <= 1 || collective == Collective::kRelabel) return local;
  const double rounds = static_cast<double>(n - 1);
  const double share = group_bytes * rounds / static_cast<double>(n);  // T(n-1)/n
  const double a = kAlphaSeconds, b = kBetaSecondsPerByte, g = kGammaSecondsPerByte;
  switch (collective) {
    case Collective::kLocalCopy:
    case Collective::kLocalSlice:
    case Collective::kLocalFill:
    case Collective::kRelabel: return local;
    case Collective::kAllGather: return a * rounds + b * share + local;
    case Collective::kReduceScatter: return a * rounds + b * share + g * share + local;
    case Collective::kAllReduce: return 2 * a * rounds + 2 * b * share + g * share + local;
    case Collective::kAllToAll: return a * rounds + b * share / static_cast<double>(n) + local;
    case Collective::kReduce: return a * CeilLog2(n) + b * group_bytes + g * group_bytes + local;
    case Collective::kReshard: break;
  }
  return local;
}

double ReshardSeconds(int64_t max_peers, double max_wire_bytes, double max_local_bytes) {
  return kStepSeconds + kAlphaSeconds * static_cast<double>(max_peers + 1) +
         kBetaSecondsPerByte * max_wire_bytes + kGammaSecondsPerByte * max_local_bytes;
}

double IntermediateSeconds(double bytes) { return kGammaSecondsPerByte * bytes; }

}  // namespace tessera::boxing
