#include "support/child_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "support/error.h"

namespace saturate {
namespace {

void write_all(int fd, const std::string& text) {
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error("write to child process failed: " + std::string(std::strerror(errno)));
    written += static_cast<size_t>(n);
  }
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv,
                           const std::vector<std::string>& environment) {
  if (argv.empty()) throw Error("ChildProcess: no program given");
  program_ = argv.front();
  char stderr_template[] = "/tmp/saturate-child-XXXXXX";
  const int stderr_fd = ::mkstemp(stderr_template);
  if (stderr_fd < 0) throw Error("cannot create a temporary file for " + program_ + "'s errors");
  stderr_path_ = stderr_template;
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe(in_pipe) != 0 || ::pipe(out_pipe) != 0) {
    ::close(stderr_fd);
    throw Error("cannot create pipes to start " + program_);
  }
  // Built before fork: the child may only call async-signal-safe functions. Our environment,
  // with the given entries replacing those of the same name.
  std::vector<std::string> env_strings;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string current = *entry;
    const std::string name = current.substr(0, current.find('='));
    bool replaced = false;
    for (const std::string& given : environment) {
      replaced = replaced || given.substr(0, given.find('=')) == name;
    }
    if (!replaced) env_strings.push_back(current);
  }
  env_strings.insert(env_strings.end(), environment.begin(), environment.end());
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) {
    ::close(stderr_fd);
    throw Error("cannot start " + program_ + ": fork failed");
  }
  if (pid_ == 0) {
    ::dup2(in_pipe[0], STDIN_FILENO);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(stderr_fd, STDERR_FILENO);
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    ::close(stderr_fd);
    ::execvpe(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(stderr_fd);
  to_child_ = in_pipe[1];
  from_child_ = out_pipe[0];
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
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
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

std::string ChildProcess::request(const std::string& line) {
  auto failure = [&](const std::string& what) {
    stop();
    std::string details = error_output();
    if (details.empty()) details = "no message";
    return Error(program_ + " " + what + ": " + details);
  };
  if (to_child_ < 0) throw Error(program_ + " is no longer running");
  try {
    write_all(to_child_, line + "\n");
  } catch (const Error&) {
    throw failure("stopped before the request");
  }
  for (;;) {
    const size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string answer = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return answer;
    }
    char chunk[4096];
    const ssize_t n = ::read(from_child_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw failure("exited without answering");
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace saturate
