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

}  // namespace saturate
