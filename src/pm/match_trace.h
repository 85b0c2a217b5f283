#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace saturate::pm {

// A tree of text entries that the matcher fills while it works, when asked to: which call and
// alternate it tried at which value, and why each attempt failed. explain() renders it.
// Entries past the size limit are dropped (recursive patterns can try a lot).
class MatchTrace {
 public:
  static constexpr size_t kDropped = static_cast<size_t>(-1);

  explicit MatchTrace(size_t max_entries = 4000);

  // Adds a child of the cursor and moves the cursor to it; returns it (kDropped when full).
  size_t open(std::string text);
  // Adds a leaf child of the cursor.
  void note(std::string text);
  // Adds text to an existing entry, e.g. its outcome.
  void append(size_t entry, std::string_view text);

  size_t cursor() const { return cursor_; }
  void move_to(size_t entry);
  size_t parent(size_t entry) const;
  bool truncated() const { return truncated_; }

  // One line per entry, children indented two spaces under their parent; the root (entry 0)
  // is not printed.
  std::string render(size_t indent = 0) const;

 private:
  struct Entry {
    std::string text;
    size_t parent;
    std::vector<size_t> children;
  };

  size_t add(std::string text);
  void render(size_t entry, size_t depth, std::string& out) const;

  std::vector<Entry> entries_;
  size_t cursor_ = 0;
  size_t max_entries_;
  bool truncated_ = false;
};

}  // namespace saturate::pm
