// The thread count ONNX Runtime would use by default: physical cores the process may run on.
#include <gtest/gtest.h>
#include <sched.h>

#include <fstream>
#include <set>
#include <string>

#include "support/cpu_cores.h"

namespace {

int allowed_cpus() {
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return 0;
  return CPU_COUNT(&mask);
}

}  // namespace

TEST(PhysicalCores, AtLeastOneAndNoMoreThanTheAllowedCpus) {
  const int cores = saturate::physical_cores();
  EXPECT_GE(cores, 1);
  if (int allowed = allowed_cpus(); allowed > 0) {
    EXPECT_LE(cores, allowed);
  }
}

TEST(PhysicalCores, HyperthreadSiblingsCountOnce) {
  // /proc/cpuinfo names each logical CPU's (physical id, core id): the distinct pairs bound the
  // count from above (the affinity mask may allow fewer).
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::set<std::string> pairs;
  std::string package, line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("physical id", 0) == 0) package = line;
    if (line.rfind("core id", 0) == 0) pairs.insert(package + "/" + line);
  }
  if (pairs.empty()) GTEST_SKIP() << "/proc/cpuinfo names no cores here";
  EXPECT_LE(saturate::physical_cores(), static_cast<int>(pairs.size()));
}
