#include "support/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "support/error.h"

namespace saturate {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kTemporaryTag = ".tmp-saturate-";

fs::path directory_of(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

// Temporaries of `name` left by runs that were killed (their process is gone): removed, so that
// killed runs do not fill the disk. A live run's temporaries are kept.
void remove_orphaned_temporaries(const fs::path& directory, const std::string& name) {
  const std::string prefix = "." + name + std::string(kTemporaryTag);
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    std::string file = entry.path().filename().string();
    if (file.rfind(prefix, 0) != 0) continue;
    // .NAME.tmp-saturate-PID-XXXXXX
    const std::string rest = file.substr(prefix.size());
    const size_t dash = rest.find('-');
    if (dash == std::string::npos) continue;
    char* end = nullptr;
    const long pid = std::strtol(rest.c_str(), &end, 10);
    if (end != rest.c_str() + dash || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    fs::remove(entry.path(), ignored);
  }
}

mode_t default_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

bool is_special(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return false;
  return S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode) || S_ISFIFO(info.st_mode) ||
         S_ISSOCK(info.st_mode);
}

void write_all(int fd, std::string_view contents, const std::string& path) {
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error("error while writing '" + path + "': " + os_reason());
    done += static_cast<size_t>(n);
  }
}

// `contents` written to the file at `path` (opened O_WRONLY | flags); `name` for messages.
void write_to(const std::string& path, int flags, std::string_view contents,
              const std::string& name) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | flags);
  if (fd < 0) throw Error("cannot open '" + name + "' for writing: " + os_reason());
  try {
    write_all(fd, contents, name);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw Error("error while writing '" + name + "': " + os_reason());
}

}  // namespace

std::string resolve_links(const std::string& path) {
  fs::path current = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code error;
    if (!fs::is_symlink(fs::symlink_status(current, error))) return current.string();
    fs::path next = fs::read_symlink(current, error);
    if (error) throw Error("cannot read the symbolic link '" + current.string() + "'");
    current = next.is_absolute() ? next : current.parent_path() / next;
  }
  throw Error("too many levels of symbolic links at '" + path + "'");
}

std::string os_reason() {
  return std::strerror(errno);
}

StagedFile::StagedFile(const std::string& path) : target_(resolve_links(path)) {
  const fs::path target(target_);
  std::error_code error;
  if (fs::is_directory(target, error)) throw Error("'" + path + "' is a directory");
  const fs::path directory = directory_of(target);
  const std::string name = target.filename().string();
  remove_orphaned_temporaries(directory, name);
  std::string pattern = (directory / ("." + name + std::string(kTemporaryTag) +
                                      std::to_string(::getpid()) + "-XXXXXX"))
                            .string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) throw Error("cannot create a file beside '" + path + "': " + os_reason());
  ::close(fd);
  temporary_ = pattern;
}

StagedFile::~StagedFile() {
  if (!committed_) ::unlink(temporary_.c_str());
}

void StagedFile::write(std::string_view contents) {
  write_to(temporary_, O_TRUNC, contents, target_);
}

namespace {

// The temporary's bytes on disk before a name makes them visible.
void flush_to_disk(const std::string& temporary, const std::string& target) {
  const int fd = ::open(temporary.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    const std::string reason = os_reason();
    if (fd >= 0) ::close(fd);
    throw Error("cannot write '" + target + "': " + reason);
  }
  ::close(fd);
}

void sync_directory(const fs::path& file) {
  const int directory = ::open(directory_of(file).c_str(), O_RDONLY | O_DIRECTORY);
  if (directory >= 0) {
    ::fsync(directory);
    ::close(directory);
  }
}

}  // namespace

void StagedFile::commit_as(const std::string& path) {
  move_to(path, default_mode());
}

void StagedFile::commit() {
  struct stat previous {};
  move_to(target_,
          ::stat(target_.c_str(), &previous) == 0 ? (previous.st_mode & 07777) : default_mode());
}

void StagedFile::move_to(const std::string& path, unsigned mode) {
  flush_to_disk(temporary_, path);
  if (::chmod(temporary_.c_str(), static_cast<mode_t>(mode)) != 0 ||
      ::rename(temporary_.c_str(), path.c_str()) != 0) {
    throw Error("cannot move the written file into place at '" + path + "': " + os_reason());
  }
  committed_ = true;
  sync_directory(path);  // the rename itself reaches the disk with the directory
}

void write_file_atomically(const std::string& path, std::string_view contents) {
  const std::string target = resolve_links(path);
  if (is_special(target)) {
    // /dev/stdout, a FIFO: written to, never replaced by a regular file.
    write_to(target, 0, contents, path);
    return;
  }
  StagedFile staged(target);
  staged.write(contents);
  staged.commit();
}

}  // namespace saturate
