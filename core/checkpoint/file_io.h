// The POSIX file operations a checkpoint needs, each returning a Status that names the
// path and errno's text: durable writes (fsync of the file, then of its directory),
// positioned reads that report a short file as DATA_LOSS, and the directory renames of
// an atomic save.
#ifndef TESSERA_CORE_CHECKPOINT_FILE_IO_H_
#define TESSERA_CORE_CHECKPOINT_FILE_IO_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/common/status.h"

namespace tessera::checkpoint {

// A Status with code DATA_LOSS (status.h has no helper for it).
Status DataLoss(std::string message);

// One contiguous part of a file's contents.
struct ByteSpan {
  const void* data;
  size_t size;
};

// Creates `path` (it must not exist), writes the spans in order, fsyncs and closes it.
Status WriteFileDurably(const std::string& path, const std::vector<ByteSpan>& spans);

// A file open for reading; closes on destruction.
class ReadOnlyFile {
 public:
  // NOT_FOUND naming the path when it does not exist; other failures as
  // INVALID_ARGUMENT (a directory) or DATA_LOSS (unreadable).
  static Result<ReadOnlyFile> Open(const std::string& path);
  ReadOnlyFile(ReadOnlyFile&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), size_(other.size_), path_(std::move(other.path_)) {}
  ReadOnlyFile& operator=(ReadOnlyFile&&) = delete;
  ~ReadOnlyFile();

  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Reads `bytes` bytes at `offset`; DATA_LOSS naming the path when the file ends
  // before offset + bytes ("truncated").
  Status ReadAt(uint64_t offset, void* out, size_t bytes) const;

 private:
  ReadOnlyFile(int fd, uint64_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}
  int fd_;
  uint64_t size_;
  std::string path_;
};

// The whole file as a string; at most `max_bytes` (DATA_LOSS beyond: not a file this
// reader expects).
Result<std::string> ReadWholeFile(const std::string& path, uint64_t max_bytes);

bool PathExists(const std::string& path);
// The names in a directory, without "." and "..", in no particular order.
Result<std::vector<std::string>> ListDirectory(const std::string& path);
// mkdir with mode 0755; fails when it exists.
Status MakeDirectory(const std::string& path);
// fsync of a directory, so the entries created or renamed in it are durable.
Status SyncDirectory(const std::string& path);
// rename(2): atomic within one filesystem.
Status RenamePath(const std::string& from, const std::string& to);
// Removes a directory and everything under it (files and subdirectories; symbolic
// links are removed, not followed). OK when it does not exist.
Status RemoveTree(const std::string& path);
// The directory holding `path` ("." when it has no '/').
std::string ParentDirectory(const std::string& path);

}  // namespace tessera::checkpoint

#endif  // TESSERA_CORE_CHECKPOINT_FILE_IO_H_
