#include "support/cpu_cores.h"

#include <sched.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>

namespace saturate {
namespace {

// The value after "key<tabs>: " on a /proc/cpuinfo line, or -1.
int field(const std::string& line, const std::string& key) {
  if (line.rfind(key, 0) != 0) return -1;
  auto colon = line.find(':');
  if (colon == std::string::npos) return -1;
  try {
    return std::stoi(line.substr(colon + 1));
  } catch (const std::exception&) {
    return -1;
  }
}

int allowed_cpus(cpu_set_t& mask) {
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) {
    CPU_ZERO(&mask);
    return 0;
  }
  return CPU_COUNT(&mask);
}

}  // namespace

int physical_cores() {
  cpu_set_t mask;
  const int allowed = allowed_cpus(mask);
  std::set<std::pair<int, int>> cores;  // (physical id, core id) of the allowed CPUs
  std::ifstream cpuinfo("/proc/cpuinfo");
  int processor = -1, package = -1;
  for (std::string line; std::getline(cpuinfo, line);) {
    if (int value = field(line, "processor"); value >= 0) {
      processor = value;
      package = -1;
    } else if (int id = field(line, "physical id"); id >= 0) {
      package = id;
    } else if (int core = field(line, "core id"); core >= 0 && processor >= 0) {
      const bool in_mask = allowed == 0 || (processor < CPU_SETSIZE && CPU_ISSET(processor, &mask));
      if (in_mask) cores.emplace(package, core);
    }
  }
  if (!cores.empty()) return static_cast<int>(cores.size());
  if (allowed > 0) return allowed;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace saturate
