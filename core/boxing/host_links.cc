#include "core/boxing/host_links.h"

#include <cmath>
#include <mutex>
#include <string>

namespace tessera::boxing {
namespace {

std::mutex links_mutex;
std::shared_ptr<const HostLinks> links;

}  // namespace

Status SetHostLinks(std::shared_ptr<const HostLinks> new_links) {
  if (new_links != nullptr) {
    if (new_links->host_of.empty()) return InvalidArgument("SetHostLinks: host_of is empty");
    for (size_t r = 0; r < new_links->host_of.size(); ++r) {
      if (new_links->host_of[r] < 0) {
        return InvalidArgument("SetHostLinks: host_of[" + std::to_string(r) + "] is " +
                               std::to_string(new_links->host_of[r]) + "; hosts are >= 0");
      }
    }
    if (!std::isfinite(new_links->bytes_per_second) || new_links->bytes_per_second <= 0) {
      return InvalidArgument("SetHostLinks: bytes_per_second is " +
                             std::to_string(new_links->bytes_per_second) +
                             "; it must be a positive finite number");
    }
  }
  std::lock_guard<std::mutex> lock(links_mutex);
  links = std::move(new_links);
  return Status::Ok();
}

std::shared_ptr<const HostLinks> CurrentHostLinks() {
  std::lock_guard<std::mutex> lock(links_mutex);
  return links;
}

}  // namespace tessera::boxing
