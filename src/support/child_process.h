#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "support/deadline.h"

namespace saturate {

// Every program Saturate starts (Python helpers, the PyPM front end) is started here, with
// posix_spawnp: the program is exec'ed at once, nothing of ours runs in a forked copy of a
// process that may have threads, and no shell sits in between (arguments are passed as they
// are); the one fork without exec is the CBC solver's (extract/solver_isolation.h: its child only
// solves and exits). `environment` entries ("NAME=value") are added to ours, replacing those of the
// same name, and SATURATE_PARENT_PID names us: our Python helpers die with us (python/saturate/
// child_guard.py), and take the limits their caller sets there.

// What a process run to completion printed on standard output, and its exit code (-1 when a
// signal ended it).
struct CompletedProcess {
  int exit_code = -1;
  int signal = 0;  // the signal that ended it, 0 when it exited
  std::string output;
};

// Runs `argv` (argv[0] looked up on PATH) to completion. Its standard error goes to ours, so a
// helper's messages reach the user as it writes them. Throws saturate::Error when it cannot
// start (a program that is not found exits 127, as under a shell).
CompletedProcess run_to_completion(const std::vector<std::string>& argv,
                                   const std::vector<std::string>& environment = {});

// A child process spoken to line by line: its standard input and output are pipes to us, its
// standard error goes to a file we read back when it fails, so that a helper's own error
// message reaches the user. Used to keep one Python helper (the ONNX Runtime timer) running for
// a whole batch of requests instead of starting an interpreter per request.
class ChildProcess {
 public:
  // Starts `argv` (argv[0] looked up on PATH). Throws saturate::Error when it cannot start.
  ChildProcess(const std::vector<std::string>& argv,
               const std::vector<std::string>& environment = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Writes one line (a newline is added), then each attachment's bytes as they are, and reads
  // one line back. Throws saturate::Error with the child's standard error when it has exited or
  // closed its output, and DeadlinePassed when `deadline` comes first: the child is then killed
  // (it may be stuck in work that never reads its input again) and running() is false.
  std::string request(const std::string& line,
                      const std::vector<std::string_view>& attachments = {},
                      const Deadline& deadline = Deadline::never());
  bool running() const { return to_child_ >= 0; }
  // What the child wrote to standard error so far (its last lines, for messages).
  std::string error_output() const;

 private:
  void stop();
  void kill_at_deadline();
  // Waits until `fd` is ready for `events` (POLLIN/POLLOUT); false when the deadline came first.
  bool wait_ready(int fd, short events, const Deadline& deadline) const;

  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string stderr_path_;
  std::string buffer_;  // read but not yet returned
  std::string program_;
};

}  // namespace saturate
