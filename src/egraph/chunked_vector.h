#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace saturate::egraph {

// A vector that grows by whole chunks and never moves its elements. Chunk 0 holds the first 64
// elements and every later chunk as many as all before it, so a small vector stays small (the
// TASO baseline copies thousands of small e-graphs) while a large one needs about log2(n)
// chunks; indexing is a bit count and one extra (cached) indirection. The e-graph keeps every
// class ever created in one, a million classes of ~100 bytes on large runs, where doubling a
// std::vector meant copying them all. References stay valid while it grows.
template <typename T>
class ChunkedVector {
 public:
  ChunkedVector() = default;
  ChunkedVector(ChunkedVector&&) noexcept = default;
  ChunkedVector& operator=(ChunkedVector&&) noexcept = default;
  // Copies the elements (an e-graph copied for a search that branches). Assigning over a vector
  // assigns element by element into the chunks it has, so their own buffers are reused (the TASO
  // baseline resets a working e-graph to its base thousands of times).
  ChunkedVector(const ChunkedVector& other) { *this = other; }
  ChunkedVector& operator=(const ChunkedVector& other) {
    if (this == &other) return *this;
    std::size_t common = std::min(size_, other.size_);
    for (std::size_t i = 0; i < common; ++i) (*this)[i] = other[i];
    for (std::size_t i = common; i < size_; ++i) (*this)[i] = T();  // slots past the end are fresh
    size_ = common;
    for (std::size_t i = common; i < other.size_; ++i) emplace_back() = other[i];
    return *this;
  }
  ~ChunkedVector() = default;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](std::size_t i) {
    std::size_t chunk = chunk_of(i);
    return chunks_[chunk][i - chunk_start(chunk)];
  }
  const T& operator[](std::size_t i) const {
    std::size_t chunk = chunk_of(i);
    return chunks_[chunk][i - chunk_start(chunk)];
  }

  // Appends a default-constructed element and returns it. (Slots past the end always hold
  // default-constructed elements.)
  T& emplace_back() {
    if (size_ == chunk_start(chunks_.size())) {
      std::size_t capacity = chunks_.empty() ? kFirstChunk : chunk_start(chunks_.size());
      chunks_.push_back(std::make_unique<T[]>(capacity));
    }
    return (*this)[size_++];
  }
  void push_back(T value) { emplace_back() = std::move(value); }

 private:
  static constexpr std::size_t kFirstChunkBits = 6;
  static constexpr std::size_t kFirstChunk = std::size_t{1} << kFirstChunkBits;

  // Chunk c >= 1 holds [64 * 2^(c-1), 64 * 2^c).
  static std::size_t chunk_of(std::size_t i) {
    return static_cast<std::size_t>(std::bit_width(i >> kFirstChunkBits));
  }
  static std::size_t chunk_start(std::size_t chunk) {
    return chunk == 0 ? 0 : kFirstChunk << (chunk - 1);
  }

  std::vector<std::unique_ptr<T[]>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace saturate::egraph
