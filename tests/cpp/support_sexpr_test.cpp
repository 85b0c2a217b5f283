// The one S-expression reader (support/sexpr.h) in both of its syntaxes: vectors for the graph
// text form and rule files, brackets inside atoms for the e-graph's patterns and terms.
#include <gtest/gtest.h>

#include <string>

#include "support/sexpr.h"

namespace saturate {
namespace {

TEST(SExpr, ParsesAtomsListsAndVectors) {
  auto forms = parse_sexprs("(a \"b c\" [1 2]) sym ; comment\n()");
  ASSERT_EQ(forms.size(), 3u);
  EXPECT_EQ(forms[0].items.size(), 3u);
  EXPECT_EQ(forms[0].items[1].kind, SExpr::Kind::String);
  EXPECT_EQ(forms[0].items[1].text, "b c");
  EXPECT_EQ(forms[0].items[2].kind, SExpr::Kind::Vector);
  EXPECT_TRUE(forms[1].is_symbol("sym"));
  EXPECT_EQ(forms[2].location.line, 2);
  EXPECT_THROW(parse_sexprs("(a ]"), ParseError);
  EXPECT_THROW(parse_sexprs(")"), ParseError);
  EXPECT_EQ(quote_atom("plain"), "plain");
  EXPECT_EQ(quote_atom("two words"), "\"two words\"");
}

TEST(SExpr, BracketsInAtomsAreOrdinaryCharacters) {
  auto forms = parse_sexprs("(reshape[2,3] x) [1]", "", Brackets::InAtoms);
  ASSERT_EQ(forms.size(), 2u);
  ASSERT_EQ(forms[0].kind, SExpr::Kind::List);
  EXPECT_TRUE(forms[0].items[0].is_symbol("reshape[2,3]"));
  EXPECT_TRUE(forms[1].is_symbol("[1]"));
  // A lone ']' is an atom there, an error where brackets are vectors.
  EXPECT_TRUE(parse_sexpr("]", "", Brackets::InAtoms).is_symbol("]"));
  EXPECT_THROW(parse_sexpr("]"), ParseError);
  EXPECT_EQ(quote_atom("[2,3]", Brackets::InAtoms), "[2,3]");
  EXPECT_EQ(quote_atom("[2,3]"), "\"[2,3]\"");
}

TEST(SExpr, QuotedAtomsRoundTrip) {
  for (std::string text : {"two words", "a;b", "q\"uote", "back\\slash", "line\nbreak", "(x)"}) {
    for (Brackets brackets : {Brackets::Vectors, Brackets::InAtoms}) {
      const SExpr read = parse_sexpr(quote_atom(text, brackets), "", brackets);
      EXPECT_EQ(read.kind, SExpr::Kind::String) << text;
      EXPECT_EQ(read.text, text);
    }
  }
  EXPECT_THROW(parse_sexpr("\"bad \\q escape\""), ParseError);
  EXPECT_THROW(parse_sexpr("\"runs past\nthe line\""), ParseError);
  EXPECT_THROW(parse_sexpr("\"unterminated"), ParseError);
}

TEST(SExpr, ParseSexprWantsExactlyOneExpression) {
  EXPECT_TRUE(parse_sexpr("  x ; comment").is_symbol("x"));
  EXPECT_THROW(parse_sexpr("x y"), ParseError);
  EXPECT_THROW(parse_sexpr(""), ParseError);
  EXPECT_THROW(parse_sexpr("; only a comment"), ParseError);
}

// 100,000 open parentheses overflowed the stack of the recursive readers (issue 15).
TEST(SExpr, RejectsNestingDeeperThanTheLimit) {
  for (char open : {'(', '['}) {
    const std::string text(100000, open);
    try {
      parse_sexprs(text, "deep.sxp");
      ADD_FAILURE() << "expected a parse error for 100,000 '" << open << "'";
    } catch (const ParseError& error) {
      EXPECT_NE(std::string(error.what()).find("nesting deeper than 1000 levels"),
                std::string::npos)
          << error.what();
      EXPECT_EQ(error.location().line, 1);
      EXPECT_EQ(error.location().column, 1001);  // the list that crosses the limit
    }
  }
  // The limit itself is accepted.
  const std::string deepest = std::string(1000, '[') + std::string(1000, ']');
  EXPECT_EQ(parse_sexprs(deepest).size(), 1u);
}

}  // namespace
}  // namespace saturate
