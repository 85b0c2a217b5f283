#include "support/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "support/error.h"

namespace saturate {
namespace {

// Our environment with the given entries replacing those of the same name.
std::vector<std::string> merged_environment(const std::vector<std::string>& environment) {
  std::vector<std::string> merged;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string current = *entry;
    const std::string name = current.substr(0, current.find('='));
    bool replaced = false;
    for (const std::string& given : environment) {
      replaced = replaced || given.substr(0, given.find('=')) == name;
    }
    if (!replaced) merged.push_back(current);
  }
  merged.insert(merged.end(), environment.begin(), environment.end());
  return merged;
}

// Descriptors the child gets as its standard streams (-1: ours). Every other descriptor we
// open for a child is close-on-exec, so the child keeps only these.
struct ChildStreams {
  int input = -1;
  int output = -1;
  int error = -1;
};

// Starts the program with posix_spawnp; returns its pid. A program that cannot be exec'ed is
// reported here (glibc's posix_spawn reports exec failures to the caller).
pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
            const ChildStreams& streams) {
  if (argv.empty()) throw Error("no program given to start");
  // Our helpers read this to die with us (python/saturate/child_guard.py): a killed saturate
  // leaves no helper running.
  std::vector<std::string> with_parent = environment;
  with_parent.push_back("SATURATE_PARENT_PID=" + std::to_string(::getpid()));
  std::vector<std::string> env_strings = merged_environment(with_parent);
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  if (::posix_spawn_file_actions_init(&actions) != 0) {
    throw Error("cannot start " + argv.front() + ": out of memory");
  }
  const int targets[] = {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO};
  const int sources[] = {streams.input, streams.output, streams.error};
  for (int k = 0; k < 3; ++k) {
    if (sources[k] >= 0) ::posix_spawn_file_actions_adddup2(&actions, sources[k], targets[k]);
  }
  pid_t pid = -1;
  const int failure = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  ::posix_spawn_file_actions_destroy(&actions);
  if (failure != 0) {
    throw Error("cannot start " + argv.front() + ": " + std::string(std::strerror(failure)));
  }
  return pid;
}

// The exit code, or -1 with `signal` set when a signal ended the process.
int wait_for(pid_t pid, int* signal = nullptr) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (signal != nullptr) *signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

CompletedProcess run_to_completion(const std::vector<std::string>& argv,
                                   const std::vector<std::string>& environment) {
  int out_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw Error("cannot create a pipe to start a program");
  pid_t pid = -1;
  try {
    ChildStreams streams;
    streams.output = out_pipe[1];
    pid = spawn(argv, environment, streams);
  } catch (const Error&) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    throw;
  }
  ::close(out_pipe[1]);
  CompletedProcess result;
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(out_pipe[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(chunk, static_cast<size_t>(n));
  }
  ::close(out_pipe[0]);
  result.exit_code = wait_for(pid, &result.signal);
  return result;
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv,
                           const std::vector<std::string>& environment) {
  if (argv.empty()) throw Error("ChildProcess: no program given");
  program_ = argv.front();
  char stderr_template[] = "/tmp/saturate-child-XXXXXX";
  const int stderr_fd = ::mkostemp(stderr_template, O_CLOEXEC);
  if (stderr_fd < 0) throw Error("cannot create a temporary file for " + program_ + "'s errors");
  stderr_path_ = stderr_template;
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) {
    ::close(stderr_fd);
    throw Error("cannot create pipes to start " + program_);
  }
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    ::close(stderr_fd);
    throw Error("cannot create pipes to start " + program_);
  }
  try {
    // The pipes are close-on-exec: the child keeps only the three it gets as its streams.
    ChildStreams streams;
    streams.input = in_pipe[0];
    streams.output = out_pipe[1];
    streams.error = stderr_fd;
    pid_ = spawn(argv, environment, streams);
  } catch (const Error&) {
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], stderr_fd}) ::close(fd);
    throw;
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(stderr_fd);
  to_child_ = in_pipe[1];
  from_child_ = out_pipe[0];
  // Our ends never block: request() waits in poll(), where a deadline can end the wait.
  for (int fd : {to_child_, from_child_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  // A child that exits early must not kill us with SIGPIPE on the next write.
  std::signal(SIGPIPE, SIG_IGN);
}

ChildProcess::~ChildProcess() {
  stop();
  if (!stderr_path_.empty()) ::unlink(stderr_path_.c_str());
}

void ChildProcess::stop() {
  if (to_child_ >= 0) ::close(to_child_);
  if (from_child_ >= 0) ::close(from_child_);
  to_child_ = from_child_ = -1;
  if (pid_ > 0) {
    wait_for(pid_);
    pid_ = -1;
  }
}

std::string ChildProcess::error_output() const {
  std::ifstream file(stderr_path_);
  std::stringstream text;
  text << file.rdbuf();
  std::string all = text.str();
  while (!all.empty() && (all.back() == '\n' || all.back() == ' ')) all.pop_back();
  // The last line is the message; a traceback above it helps nobody at the command line.
  const size_t last = all.rfind('\n');
  return last == std::string::npos ? all : all.substr(last + 1);
}

void ChildProcess::kill_at_deadline() {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
  stop();
}

bool ChildProcess::wait_ready(int fd, short events, const Deadline& deadline) const {
  for (;;) {
    int timeout_ms = -1;
    if (!deadline.is_never()) {
      const double left = deadline.seconds_left();
      if (left <= 0) return false;
      timeout_ms = static_cast<int>(std::min(std::ceil(left * 1000), 3.6e6));
    }
    pollfd entry{fd, events, 0};
    const int ready = ::poll(&entry, 1, timeout_ms);
    if (ready > 0) return true;  // ready, or an error/hang-up the read or write then reports
    if (ready < 0 && errno != EINTR) return true;
    if (ready == 0 && deadline.expired()) return false;
  }
}

std::string ChildProcess::request(const std::string& line,
                                  const std::vector<std::string_view>& attachments,
                                  const Deadline& deadline) {
  auto failure = [&](const std::string& what) {
    stop();
    std::string details = error_output();
    if (details.empty()) details = "no message";
    return Error(program_ + " " + what + ": " + details);
  };
  auto past_deadline = [&] {
    kill_at_deadline();
    return DeadlinePassed(program_ + " was stopped: the time limit came before it answered");
  };
  if (to_child_ < 0) throw Error(program_ + " is no longer running");
  const std::string framed = line + "\n";
  std::vector<std::string_view> parts{framed};
  parts.insert(parts.end(), attachments.begin(), attachments.end());
  for (std::string_view part : parts) {
    while (!part.empty()) {
      if (!wait_ready(to_child_, POLLOUT, deadline)) throw past_deadline();
      const ssize_t n = ::write(to_child_, part.data(), part.size());
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) throw failure("stopped before the request");
      part.remove_prefix(static_cast<size_t>(n));
    }
  }
  for (;;) {
    const size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string answer = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return answer;
    }
    if (!wait_ready(from_child_, POLLIN, deadline)) throw past_deadline();
    char chunk[4096];
    const ssize_t n = ::read(from_child_, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) throw failure("exited without answering");
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace saturate
