#include "extract/solver_isolation.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <string>

namespace saturate::extract {
namespace {

// The solution travels through a pipe as plain bytes: flags, numbers, values, status text.
class Writer {
 public:
  explicit Writer(int fd) : fd_(fd) {}
  template <typename T>
  void put(const T& value) {
    write_all(&value, sizeof(T));
  }
  void write_all(const void* data, size_t size) {
    const char* bytes = static_cast<const char*>(data);
    while (size > 0) {
      ssize_t written = ::write(fd_, bytes, size);
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) return;
      bytes += written;
      size -= static_cast<size_t>(written);
    }
  }

 private:
  int fd_;
};

class Reader {
 public:
  explicit Reader(int fd) : fd_(fd) {}
  template <typename T>
  bool get(T& value) {
    return read_all(&value, sizeof(T));
  }
  bool read_all(void* data, size_t size) {
    char* bytes = static_cast<char*>(data);
    while (size > 0) {
      ssize_t got = ::read(fd_, bytes, size);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      bytes += got;
      size -= static_cast<size_t>(got);
    }
    return true;
  }

 private:
  int fd_;
};

void send(int fd, const MilpSolution& solution) {
  Writer out(fd);
  out.put(static_cast<uint8_t>(solution.has_solution));
  out.put(static_cast<uint8_t>(solution.proven_optimal));
  out.put(static_cast<uint8_t>(solution.proven_infeasible));
  out.put(static_cast<uint8_t>(solution.stopped_on_limit));
  out.put(solution.objective);
  out.put(solution.bound);
  out.put(static_cast<uint64_t>(solution.values.size()));
  out.write_all(solution.values.data(), solution.values.size() * sizeof(double));
  out.put(static_cast<uint64_t>(solution.status.size()));
  out.write_all(solution.status.data(), solution.status.size());
}

bool receive(int fd, MilpSolution& solution) {
  Reader in(fd);
  uint8_t has_solution = 0, optimal = 0, infeasible = 0, limit = 0;
  uint64_t count = 0, length = 0;
  if (!in.get(has_solution) || !in.get(optimal) || !in.get(infeasible) || !in.get(limit) ||
      !in.get(solution.objective) || !in.get(solution.bound) || !in.get(count)) {
    return false;
  }
  solution.values.resize(count);
  if (!in.read_all(solution.values.data(), count * sizeof(double)) || !in.get(length)) return false;
  solution.status.resize(length);
  if (!in.read_all(solution.status.data(), length)) return false;
  solution.has_solution = has_solution != 0;
  solution.proven_optimal = optimal != 0;
  solution.proven_infeasible = infeasible != 0;
  solution.stopped_on_limit = limit != 0;
  return true;
}

MilpSolution failed(const std::string& why) {
  MilpSolution solution;
  solution.status = why;
  return solution;
}

}  // namespace

double solver_grace_seconds(double seconds) {
  return 0.5 + 0.1 * seconds;
}

MilpSolution solve_isolated(const std::function<MilpSolution()>& solve, double seconds) {
  return solve_each_isolated(
             1, [&](std::size_t) { return solve(); }, seconds)
      .front();
}

std::vector<MilpSolution> solve_each_isolated(std::size_t count,
                                              const std::function<MilpSolution(std::size_t)>& solve,
                                              double seconds) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(seconds + solver_grace_seconds(seconds)));
  auto solve_here = [&] {  // no pipe or no process: solve here rather than not at all
    std::vector<MilpSolution> solutions;
    for (std::size_t i = 0; i < count; ++i) solutions.push_back(solve(i));
    return solutions;
  };
  if (count == 0) return {};
  int fds[2];
  if (::pipe(fds) != 0) return solve_here();
  pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return solve_here();
  }
  if (child == 0) {
    ::close(fds[0]);
    int code = 0;
    try {
      for (std::size_t i = 0; i < count; ++i) send(fds[1], solve(i));
    } catch (...) {
      code = 3;
    }
    ::close(fds[1]);
    ::_exit(code);  // no destructors, no leak report: the parent owns everything
  }
  ::close(fds[1]);
  std::vector<MilpSolution> solutions;
  MilpSolution solution;
  bool killed = false;
  while (solutions.size() < count) {
    // Wait for the next answer until the deadline; then stop the child.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    pollfd ready{fds[0], POLLIN, 0};
    const int polled = left > 0 ? ::poll(&ready, 1, static_cast<int>(left)) : 0;
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) {
      ::kill(child, SIGKILL);
      killed = true;
      break;
    }
    if (!receive(fds[0], solution)) break;
    solutions.push_back(std::move(solution));
    solution = MilpSolution{};
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::string why;
  if (killed) {
    while (solutions.size() < count) {
      solutions.push_back(out_of_time());
      solutions.back().status = "time limit (CBC overran it and was stopped)";
    }
    return solutions;
  }
  if (WIFSIGNALED(status)) {
    why = "CBC crashed (" + std::string(strsignal(WTERMSIG(status))) +
          "); kept the best solution found before it";
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    why = "CBC failed without a solution";
  } else {
    why = "CBC's child process ended without a solution";
  }
  while (solutions.size() < count) solutions.push_back(failed(why));
  return solutions;
}

}  // namespace saturate::extract
