#pragma once

#include <string>
#include <vector>

namespace saturate::cli {

// A plain-text table for people: columns padded to their widest cell, numbers right-aligned.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace saturate::cli
