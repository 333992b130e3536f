// CRC32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78): the checksum of
// every shard of a checkpoint (docs/checkpoints.md). Written here because nothing the
// project links provides it; a table-driven byte-at-a-time loop is fast enough for
// checkpoints (hundreds of MB/s) and obviously correct.
#ifndef TESSERA_CORE_CHECKPOINT_CRC32C_H_
#define TESSERA_CORE_CHECKPOINT_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace tessera::checkpoint {

// Extends `crc` (the CRC32C of the bytes before, 0 for none) over `bytes` bytes at
// `data`, so a long buffer may be checksummed in parts. `data` may be NULL when bytes
// is 0.
uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t bytes);

// The table loop alone, whatever the CPU (the reference the fast path is tested against).
uint32_t Crc32cExtendPortable(uint32_t crc, const void* data, size_t bytes);

inline uint32_t Crc32c(const void* data, size_t bytes) { return Crc32cExtend(0, data, bytes); }

}  // namespace tessera::checkpoint

#endif  // TESSERA_CORE_CHECKPOINT_CRC32C_H_
