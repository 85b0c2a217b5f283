#include "pm/match_trace.h"

namespace saturate::pm {

MatchTrace::MatchTrace(size_t max_entries) : max_entries_(max_entries) {
  entries_.push_back({"", 0, {}});
}

size_t MatchTrace::add(std::string text) {
  if (cursor_ == kDropped) return kDropped;
  if (entries_.size() >= max_entries_) {
    truncated_ = true;
    return kDropped;
  }
  size_t id = entries_.size();
  entries_.push_back({std::move(text), cursor_, {}});
  entries_[cursor_].children.push_back(id);
  return id;
}

size_t MatchTrace::open(std::string text) {
  size_t id = add(std::move(text));
  if (id != kDropped) cursor_ = id;
  return id;
}

void MatchTrace::note(std::string text) {
  add(std::move(text));
}

void MatchTrace::append(size_t entry, std::string_view text) {
  if (entry != kDropped && entry < entries_.size()) entries_[entry].text += text;
}

void MatchTrace::move_to(size_t entry) {
  if (entry != kDropped && entry < entries_.size()) cursor_ = entry;
}

size_t MatchTrace::parent(size_t entry) const {
  if (entry == kDropped || entry >= entries_.size()) return kDropped;
  return entries_[entry].parent;
}

std::string MatchTrace::render(size_t indent) const {
  std::string out;
  for (size_t child : entries_[0].children) render(child, indent, out);
  if (truncated_) out += std::string(indent * 2, ' ') + "... (trace truncated)\n";
  return out;
}

void MatchTrace::render(size_t entry, size_t depth, std::string& out) const {
  out += std::string(depth * 2, ' ') + entries_[entry].text + "\n";
  for (size_t child : entries_[entry].children) render(child, depth + 1, out);
}

}  // namespace saturate::pm
