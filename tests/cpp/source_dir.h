#pragma once

#include <filesystem>

namespace saturate::tests {

// The checkout the tests were built from: committed rules, fuzz seeds, and ../shared beside it.
// Defined in one file so that no other test's object depends on where the checkout is, and a
// compiler cache serves a clone in another folder.
std::filesystem::path source_dir();

}  // namespace saturate::tests
