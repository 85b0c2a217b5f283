#pragma once

#include <string>

#include "pm/core.h"

namespace saturate::pm {

// The .pmb (version 1) bytes of a module, per docs/PYPM.md §3. Strings are interned in order of
// first use, so writing what read_pmb() returns reproduces write_pmb()'s output byte for byte.
// The module is written as it is, unchecked (tests write broken modules on purpose).
std::string write_pmb(const Module& module);

// Writes the bytes atomically; throws saturate::Error naming the path on failure.
void save_pmb(const std::string& path, const Module& module);

}  // namespace saturate::pm
