#pragma once

// How many threads ONNX Runtime uses when a session does not say: one per physical core this
// process may run on (hyperthread siblings count once).
namespace saturate {

// Physical cores among the CPUs in this process's affinity mask, from /proc/cpuinfo's
// (physical id, core id) pairs; the affinity count where cpuinfo says nothing; at least 1.
int physical_cores();

}  // namespace saturate
