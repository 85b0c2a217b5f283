#include "egraph/sexpr.h"

#include <cctype>

namespace saturate::egraph {
namespace {

// The deepest nesting of lists the reader accepts; deeper text is a ParseError at the list that
// crosses it. Graphs are flat (a node is three levels deep) and rule patterns a few dozen levels
// at most, so no real file comes near it; without it, hostile input (100,000 open parentheses)
// overflows the stack in this recursive reader and in every recursive consumer of its trees.
constexpr int kMaxSExprNesting = 1000;

bool is_delimiter(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')' || c == '"' ||
         c == ';';
}

class Reader {
 public:
  Reader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }

  SExpr read(int depth = 1) {
    skip_space();
    SourceLocation location = here();
    if (pos_ >= text_.size()) fail(location, "expected an expression, found the end of the text");
    char c = text_[pos_];
    if (c == ')') fail(location, "unexpected ')'");
    if (c != '(') {
      SExpr atom;
      atom.atom = read_atom();
      atom.location = location;
      return atom;
    }
    if (depth > kMaxSExprNesting) {
      fail(location, "nesting deeper than " + std::to_string(kMaxSExprNesting) + " levels");
    }
    advance();
    skip_space();
    if (pos_ >= text_.size()) fail(location, "unclosed '('");
    if (text_[pos_] == '(' || text_[pos_] == ')') {
      fail(here(), "a list must start with an operator name, as in (f ?x)");
    }
    SExpr list;
    list.is_list = true;
    list.location = location;
    list.atom = read_atom();
    for (;;) {
      skip_space();
      if (pos_ >= text_.size()) fail(location, "unclosed '('");
      if (text_[pos_] == ')') {
        advance();
        return list;
      }
      list.items.push_back(read(depth + 1));
    }
  }

 private:
  [[noreturn]] void fail(SourceLocation location, const std::string& message) {
    throw ParseError(std::move(location), message);
  }
  SourceLocation here() const { return SourceLocation{file_, line_, column_}; }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }
  void skip_space() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ';') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        advance();
      } else {
        return;
      }
    }
  }
  std::string read_atom() {
    SourceLocation location = here();
    std::string atom;
    if (text_[pos_] == '"') {
      advance();
      for (;;) {
        if (pos_ >= text_.size()) fail(location, "unterminated string");
        char c = text_[pos_];
        advance();
        if (c == '"') return atom;
        if (c == '\\') {
          if (pos_ >= text_.size()) fail(location, "unterminated string");
          c = text_[pos_];
          advance();
        }
        atom += c;
      }
    }
    while (pos_ < text_.size() && !is_delimiter(text_[pos_])) {
      atom += text_[pos_];
      advance();
    }
    return atom;
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace

std::vector<SExpr> parse_sexprs(std::string_view text, const std::string& file) {
  Reader reader(text, file);
  std::vector<SExpr> expressions;
  while (!reader.at_end()) expressions.push_back(reader.read());
  return expressions;
}

SExpr parse_sexpr(std::string_view text, const std::string& file) {
  Reader reader(text, file);
  SExpr expression = reader.read();
  if (!reader.at_end()) {
    throw ParseError(
        SourceLocation{file, 0, 0},
        "expected one expression but found more after it in '" + std::string(text) + "'");
  }
  return expression;
}

std::string quote_atom(std::string_view text) {
  bool plain = !text.empty();
  for (char c : text) plain = plain && !is_delimiter(c) && c != '\\';
  if (plain) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace saturate::egraph
