#include "support/child_process.h"

#include <gtest/gtest.h>

#include "support/error.h"

namespace saturate {
namespace {

// A line-echoing child through /bin/sh: each request line comes back prefixed.
TEST(ChildProcess, AnswersEachRequestLineInOrder) {
  ChildProcess child({"sh", "-c", "while read line; do echo \"got $line\"; done"});
  EXPECT_EQ(child.request("one"), "got one");
  EXPECT_EQ(child.request("two"), "got two");
}

TEST(ChildProcess, PassesExtraEnvironmentEntries) {
  ChildProcess child({"sh", "-c", "read line; echo \"$SATURATE_CHILD_TEST\""},
                     {"SATURATE_CHILD_TEST=hello"});
  EXPECT_EQ(child.request("go"), "hello");
}

TEST(ChildProcess, ReportsTheChildsLastErrorLineWhenItExits) {
  ChildProcess child({"sh", "-c", "read line; echo 'Traceback' >&2; echo 'error: broken' >&2"});
  try {
    child.request("go");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("exited without answering: error: broken"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(child.request("again"), Error);
}

TEST(ChildProcess, AMissingProgramIsAnErrorNotACrash) {
  ChildProcess child({"saturate-no-such-program-here"});
  EXPECT_THROW(child.request("x"), Error);
}

}  // namespace
}  // namespace saturate
