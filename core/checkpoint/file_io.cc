#include "core/checkpoint/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tessera::checkpoint {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

// "<what> <path>: <strerror>", DATA_LOSS unless the path is missing (NOT_FOUND).
Status PathError(const char* what, const std::string& path, int err) {
  std::string message = std::string(what) + " " + path + ": " + ErrnoText(err);
  if (err == ENOENT) return NotFound(std::move(message));
  return DataLoss(std::move(message));
}

}  // namespace

Status DataLoss(std::string message) { return Status(StatusCode::kDataLoss, std::move(message)); }

Status WriteFileDurably(const std::string& path, const std::vector<ByteSpan>& spans) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return PathError("cannot create", path, errno);
  Status status;
  for (const ByteSpan& span : spans) {
    const char* p = static_cast<const char*>(span.data);
    size_t left = span.size;
    while (left > 0 && status.ok()) {
      const ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        status = PathError("cannot write", path, n < 0 ? errno : EIO);
      } else {
        p += n;
        left -= static_cast<size_t>(n);
      }
    }
  }
  if (status.ok() && ::fsync(fd) != 0) status = PathError("cannot fsync", path, errno);
  if (::close(fd) != 0 && status.ok()) status = PathError("cannot close", path, errno);
  return status;
}

Result<ReadOnlyFile> ReadOnlyFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound("missing file " + path);
    return PathError("cannot open", path, errno);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return PathError("cannot stat", path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return InvalidArgument(path + " is not a regular file");
  }
  return ReadOnlyFile(fd, static_cast<uint64_t>(st.st_size), path);
}

ReadOnlyFile::~ReadOnlyFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status ReadOnlyFile::ReadAt(uint64_t offset, void* out, size_t bytes) const {
  if (offset > size_ || bytes > size_ - offset) {
    return DataLoss("truncated file " + path_ + ": it has " + std::to_string(size_) +
                    " bytes, reading bytes [" + std::to_string(offset) + ", " +
                    std::to_string(offset + bytes) + ")");
  }
  char* p = static_cast<char*>(out);
  while (bytes > 0) {
    const ssize_t n = ::pread(fd_, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return PathError("cannot read", path_, errno);
    if (n == 0) return DataLoss("truncated file " + path_ + ": it ended while being read");
    p += n;
    offset += static_cast<uint64_t>(n);
    bytes -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

Result<std::string> ReadWholeFile(const std::string& path, uint64_t max_bytes) {
  TESS_ASSIGN_OR_RETURN(ReadOnlyFile file, ReadOnlyFile::Open(path));
  if (file.size() > max_bytes) {
    return DataLoss(path + " has " + std::to_string(file.size()) + " bytes, more than the " +
                    std::to_string(max_bytes) + " allowed");
  }
  std::string text(file.size(), '\0');
  TESS_RETURN_IF_ERROR(file.ReadAt(0, text.data(), text.size()));
  return text;
}

bool PathExists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

Result<std::vector<std::string>> ListDirectory(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return PathError("cannot open directory", path, errno);
  std::vector<std::string> names;
  while (struct dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(dir);
  return names;
}

Status MakeDirectory(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0) return PathError("cannot create directory", path, errno);
  return Status::Ok();
}

Status SyncDirectory(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return PathError("cannot open directory", path, errno);
  Status status;
  if (::fsync(fd) != 0) status = PathError("cannot fsync directory", path, errno);
  ::close(fd);
  return status;
}

Status RenamePath(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return PathError("cannot rename", from + " to " + to, errno);
  }
  return Status::Ok();
}

Status RemoveTree(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return PathError("cannot stat", path, errno);
  }
  if (S_ISDIR(st.st_mode)) {
    TESS_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDirectory(path));
    for (const std::string& name : names) TESS_RETURN_IF_ERROR(RemoveTree(path + "/" + name));
    if (::rmdir(path.c_str()) != 0) return PathError("cannot remove directory", path, errno);
    return Status::Ok();
  }
  if (::unlink(path.c_str()) != 0) return PathError("cannot remove", path, errno);
  return Status::Ok();
}

std::string ParentDirectory(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  const size_t slash = trimmed.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return trimmed.substr(0, slash);
}

}  // namespace tessera::checkpoint
