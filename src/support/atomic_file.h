#pragma once

// Files a run writes appear whole or not at all, and never damage what is there:
//   - a regular file (or none) is replaced by one rename of a uniquely named temporary written
//     beside it, so a kill or a failed write leaves the previous file exactly as it was, and two
//     runs writing one path never share a temporary; a replaced file keeps its permissions;
//   - a symbolic link is written through: the file it points to is replaced, the link stays;
//   - a device, FIFO or socket (/dev/null, /dev/stdout) is written to in place, never replaced.
#include <string>
#include <string_view>

namespace saturate {

// A uniquely named temporary file beside `path` (created empty, mode 0600 until commit), removed
// by the destructor unless committed. Throws saturate::Error, naming the OS's reason, when it
// cannot be created.
class StagedFile {
 public:
  explicit StagedFile(const std::string& path);
  ~StagedFile();
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;

  // Where to write the contents.
  const std::string& temporary() const { return temporary_; }
  // The file the commit replaces (symbolic links resolved).
  const std::string& target() const { return target_; }
  // Writes `contents` to the temporary (replacing what it holds). Throws saturate::Error.
  void write(std::string_view contents);
  // Flushes the temporary to disk and renames it over the target, with the target's previous
  // permissions (or 0666 less the umask for a new file).
  void commit();
  // Flushes the temporary to disk and renames it to `path` (in the same folder), a name the
  // caller owns (claimed empty with O_EXCL), with 0666 less the umask. Throws saturate::Error.
  void commit_as(const std::string& path);

 private:
  // fsync, chmod to `mode`, rename to `path`, fsync the folder.
  void move_to(const std::string& path, unsigned mode);

  std::string target_;
  std::string temporary_;
  bool committed_ = false;
};

// `path` with `contents`, by the rules above. Throws saturate::Error with the OS's reason.
void write_file_atomically(const std::string& path, std::string_view contents);

// `path` with its symbolic links followed (a dangling link gives the path it names).
std::string resolve_links(const std::string& path);

// The OS's reason for the last failed call (strerror of errno), for error messages.
std::string os_reason();

}  // namespace saturate
