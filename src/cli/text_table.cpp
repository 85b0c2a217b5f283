#include "cli/text_table.h"

#include <algorithm>

namespace saturate::cli {
namespace {

bool looks_numeric(const std::string& cell) {
  return !cell.empty() && cell.find_first_not_of("0123456789.-+e%") == std::string::npos;
}

}  // namespace

std::string TextTable::render() const {
  std::vector<size_t> widths(header_.size(), 0);
  auto measure = [&widths](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);

  auto render_row = [&widths](const std::vector<std::string>& row, bool align_numbers) {
    std::string line;
    for (size_t i = 0; i < widths.size(); ++i) {
      std::string cell = i < row.size() ? row[i] : "";
      std::string padding(widths[i] - std::min(widths[i], cell.size()), ' ');
      line += (i == 0 ? "" : "  ");
      line += align_numbers && looks_numeric(cell) ? padding + cell : cell + padding;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };

  std::string text = render_row(header_, false);
  size_t total = 0;
  for (size_t w : widths) total += w;
  text += std::string(total + 2 * (widths.empty() ? 0 : widths.size() - 1), '-') + "\n";
  for (const auto& row : rows_) text += render_row(row, true);
  return text;
}

}  // namespace saturate::cli
