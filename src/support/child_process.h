#pragma once

#include <string>
#include <vector>

#include <sys/types.h>

namespace saturate {

// A child process spoken to line by line: its standard input and output are pipes to us, its
// standard error goes to a file we read back when it fails, so that a helper's own error
// message reaches the user. Used to keep one Python helper (the ONNX Runtime timer) running for
// a whole batch of requests instead of starting an interpreter per request.
class ChildProcess {
 public:
  // Starts `argv` (argv[0] looked up on PATH) with `environment` entries ("NAME=value") added to
  // ours. Throws saturate::Error when it cannot start.
  ChildProcess(const std::vector<std::string>& argv,
               const std::vector<std::string>& environment = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Writes one line (a newline is added) and reads one line back. Throws saturate::Error with
  // the child's standard error when it has exited or closed its output.
  std::string request(const std::string& line);
  // What the child wrote to standard error so far (its last lines, for messages).
  std::string error_output() const;

 private:
  void stop();

  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string stderr_path_;
  std::string buffer_;  // read but not yet returned
  std::string program_;
};

}  // namespace saturate
