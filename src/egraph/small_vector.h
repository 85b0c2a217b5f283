#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <new>
#include <span>
#include <type_traits>

namespace saturate::egraph {

// A vector that keeps up to N elements inline. E-nodes, substitutions and matches are small and
// copied often (hash-cons keys, class node lists); inline storage saves one allocation per copy.
// Restricted to trivially copyable T so growth and copies are plain memcpy.
template <typename T, std::uint32_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  static_assert(N > 0);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  SmallVector(std::initializer_list<T> items) { assign(items.begin(), items.size()); }
  explicit SmallVector(std::span<const T> items) { assign(items.data(), items.size()); }
  SmallVector(const SmallVector& other) { assign(other.data(), other.size_); }
  SmallVector(SmallVector&& other) noexcept { steal(other); }
  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) {
      size_ = 0;
      assign(other.data(), other.size_);
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept {
    if (this != &other) {
      release();
      steal(other);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return on_heap() ? storage_.heap : inline_items(); }
  const T* data() const {
    return on_heap() ? storage_.heap : std::launder(reinterpret_cast<const T*>(storage_.items));
  }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }
  operator std::span<const T>() const { return {data(), size_}; }
  std::span<T> span() { return {data(), size_}; }

  void push_back(const T& value) {
    if (size_ == capacity_) {
      T copy = value;  // value may live in this vector
      reserve(capacity_ * 2);
      data()[size_++] = copy;
      return;
    }
    data()[size_++] = value;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void resize(std::size_t size, const T& fill = T{}) {
    reserve(size);
    for (std::size_t i = size_; i < size; ++i) data()[i] = fill;
    size_ = static_cast<std::uint32_t>(size);
  }
  void reserve(std::size_t capacity) {
    if (capacity <= capacity_) return;
    T* heap = static_cast<T*>(::operator new(capacity * sizeof(T)));
    if (size_ > 0) std::memcpy(static_cast<void*>(heap), data(), size_ * sizeof(T));
    release();
    storage_.heap = heap;
    capacity_ = static_cast<std::uint32_t>(capacity);
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator<(const SmallVector& a, const SmallVector& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  bool on_heap() const { return capacity_ > N; }
  T* inline_items() { return std::launder(reinterpret_cast<T*>(storage_.items)); }
  void assign(const T* items, std::size_t count) {
    reserve(count);
    if (count > 0) std::memcpy(static_cast<void*>(data()), items, count * sizeof(T));
    size_ = static_cast<std::uint32_t>(count);
  }
  void release() {
    if (on_heap()) ::operator delete(storage_.heap);
    capacity_ = N;
  }
  void steal(SmallVector& other) {
    if (other.on_heap()) {
      storage_.heap = other.storage_.heap;
      capacity_ = other.capacity_;
      other.capacity_ = N;
    } else if (other.size_ > 0) {
      std::memcpy(storage_.items, other.storage_.items, other.size_ * sizeof(T));
    }
    size_ = other.size_;
    other.size_ = 0;
  }

  // Raw bytes rather than T[N]: T may have a non-trivial default constructor (EClassId does),
  // which would delete the union's constructor.
  union Storage {
    alignas(T) std::byte items[sizeof(T) * N];
    T* heap;
  } storage_;
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = N;
};

}  // namespace saturate::egraph
