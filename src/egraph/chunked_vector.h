#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace saturate::egraph {

// A vector that grows by whole chunks and never moves its elements: indexing is one extra
// (cached) indirection, and growing never copies the elements already there or touches fresh
// pages for a doubled buffer. The e-graph keeps every class ever created in one, a million
// classes of ~100 bytes on large runs, where doubling a std::vector meant copying them all.
// References stay valid while it grows.
template <typename T, std::size_t kChunkBits = 12>
class ChunkedVector {
 public:
  static constexpr std::size_t kChunkSize = std::size_t{1} << kChunkBits;

  ChunkedVector() = default;
  ChunkedVector(ChunkedVector&&) noexcept = default;
  ChunkedVector& operator=(ChunkedVector&&) noexcept = default;
  // Copies the elements (an e-graph copied for a search that branches).
  ChunkedVector(const ChunkedVector& other) { *this = other; }
  ChunkedVector& operator=(const ChunkedVector& other) {
    if (this == &other) return *this;
    chunks_.clear();
    size_ = 0;
    for (std::size_t i = 0; i < other.size_; ++i) emplace_back() = other[i];
    return *this;
  }
  ~ChunkedVector() = default;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](std::size_t i) { return chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }
  const T& operator[](std::size_t i) const {
    return chunks_[i >> kChunkBits][i & (kChunkSize - 1)];
  }

  // Appends a default-constructed element and returns it.
  T& emplace_back() {
    if ((size_ >> kChunkBits) == chunks_.size())
      chunks_.push_back(std::make_unique<T[]>(kChunkSize));
    return (*this)[size_++];
  }
  void push_back(T value) { emplace_back() = std::move(value); }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace saturate::egraph
