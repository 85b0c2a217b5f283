#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace saturate {

// Mixes a value's hash into a running seed (the boost::hash_combine recipe, 64-bit constant).
template <typename T>
void hash_combine(std::size_t& seed, const T& value) {
  seed ^= std::hash<T>{}(value) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

// splitmix64's finalizer: every input bit affects every output bit. For hash tables that pick
// slots by the low bits of hashes that may be plain integers (std::hash of an integer is the
// integer).
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace saturate
