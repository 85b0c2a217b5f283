#include "support/sexpr.h"

namespace saturate {
namespace {

// The deepest nesting of lists the reader accepts; deeper text is a ParseError at the list that
// crosses it. Graphs are flat (a node is three levels deep) and rule patterns a few dozen levels
// at most, so no real file comes near it; without it, hostile input (100,000 open parentheses)
// overflows the stack in this recursive reader and in every recursive consumer of its trees.
constexpr int kMaxSExprNesting = 1000;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_bracket(char c) {
  return c == '[' || c == ']';
}

bool is_delimiter(char c, Brackets brackets) {
  return c == '(' || c == ')' || c == '"' || c == ';' || is_space(c) ||
         (brackets == Brackets::Vectors && is_bracket(c));
}

class Reader {
 public:
  Reader(std::string_view text, const std::string& file, Brackets brackets)
      : text_(text), file_(file), brackets_(brackets) {}

  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }

  SExpr read(int depth = 1) {
    skip_space();
    SourceLocation start = here();
    if (pos_ >= text_.size()) fail(start, "expected an expression, found the end of the text");
    char c = text_[pos_];
    bool vector = c == '[' && brackets_ == Brackets::Vectors;
    if (c == '(' || vector) {
      if (depth > kMaxSExprNesting) {
        fail(start, "nesting deeper than " + std::to_string(kMaxSExprNesting) + " levels");
      }
      char close = vector ? ']' : ')';
      advance();
      SExpr list{vector ? SExpr::Kind::Vector : SExpr::Kind::List, "", {}, start};
      while (true) {
        skip_space();
        if (pos_ >= text_.size()) {
          fail(start,
               std::string("unclosed '") + c + "' (expected '" + close + "' before the end)");
        }
        char next = text_[pos_];
        if (next == close) {
          advance();
          return list;
        }
        if (is_closing(next)) fail(here(), std::string("unexpected '") + next + "'");
        list.items.push_back(read(depth + 1));
      }
    }
    if (is_closing(c)) fail(start, std::string("unexpected '") + c + "'");
    if (c == '"') return read_string(start);
    std::string symbol;
    while (pos_ < text_.size() && !is_delimiter(text_[pos_], brackets_)) symbol += advance();
    return SExpr{SExpr::Kind::Symbol, symbol, {}, start};
  }

 private:
  SourceLocation here() const { return {file_, line_, column_}; }

  [[noreturn]] void fail(const SourceLocation& where, const std::string& message) const {
    throw ParseError(where, message);
  }

  bool is_closing(char c) const { return c == ')' || (c == ']' && brackets_ == Brackets::Vectors); }

  char advance() {
    char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    return c;
  }

  void skip_space() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ';') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else if (is_space(c)) {
        advance();
      } else {
        return;
      }
    }
  }

  SExpr read_string(const SourceLocation& start) {
    advance();  // opening quote
    std::string value;
    while (true) {
      if (pos_ >= text_.size()) fail(start, "unterminated string");
      char c = advance();
      if (c == '"') break;
      if (c == '\\') {
        if (pos_ >= text_.size()) fail(start, "unterminated string");
        char escaped = advance();
        if (escaped == 'n') {
          value += '\n';
        } else if (escaped == '"' || escaped == '\\') {
          value += escaped;
        } else {
          fail(here(), std::string("unknown escape '\\") + escaped + "'");
        }
      } else if (c == '\n') {
        fail(start, "string runs past the end of the line");
      } else {
        value += c;
      }
    }
    return SExpr{SExpr::Kind::String, value, {}, start};
  }

  std::string_view text_;
  const std::string& file_;
  Brackets brackets_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace

std::string SExpr::describe() const {
  switch (kind) {
    case Kind::Symbol:
      return "symbol '" + text + "'";
    case Kind::String:
      return "string \"" + text + "\"";
    case Kind::List:
      return "a list";
    case Kind::Vector:
      return "a [...] vector";
  }
  return "?";
}

std::vector<SExpr> parse_sexprs(std::string_view text, const std::string& file, Brackets brackets) {
  Reader reader(text, file, brackets);
  std::vector<SExpr> result;
  while (!reader.at_end()) result.push_back(reader.read());
  return result;
}

SExpr parse_sexpr(std::string_view text, const std::string& file, Brackets brackets) {
  Reader reader(text, file, brackets);
  SExpr expression = reader.read();
  if (!reader.at_end()) {
    throw ParseError(
        SourceLocation{file, 0, 0},
        "expected one expression but found more after it in '" + std::string(text) + "'");
  }
  return expression;
}

bool is_plain_symbol(std::string_view text, Brackets brackets) {
  if (text.empty()) return false;
  for (char c : text) {
    if (is_delimiter(c, brackets) || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      return false;
    }
  }
  return true;
}

std::string quote_atom(std::string_view text, Brackets brackets) {
  if (is_plain_symbol(text, brackets)) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (c == '\n') {
      quoted += "\\n";
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

}  // namespace saturate
