#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "support/child_process.h"
#include "support/error.h"

namespace saturate {
namespace {

// A line-echoing child through /bin/sh: each request line comes back prefixed.
TEST(ChildProcess, AnswersEachRequestLineInOrder) {
  ChildProcess child({"sh", "-c", "while read line; do echo \"got $line\"; done"});
  EXPECT_EQ(child.request("one"), "got one");
  EXPECT_EQ(child.request("two"), "got two");
}

// Attachments follow the line as raw bytes (model bytes for the ONNX Runtime helper): this
// child reads the line, then the size it names, and echoes those bytes back.
TEST(ChildProcess, SendsAttachmentsAfterTheLine) {
  ChildProcess child({"sh", "-c", "while read size; do head -c \"$size\"; echo; done"});
  EXPECT_EQ(child.request("9", {"abc", "de f", "gh"}), "abcde fgh");
  EXPECT_EQ(child.request("3", {"xyz"}), "xyz");
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

// A child busy past the deadline (it never reads its input again) is killed, and the request
// says the deadline stopped it; the wait is bounded by the deadline, not by the child.
TEST(ChildProcess, AChildThatDoesNotAnswerByTheDeadlineIsKilled) {
  ChildProcess child({"sh", "-c", "read line; exec sleep 600"});
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(child.request("go", {}, Deadline::after(0.3)), DeadlinePassed);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  EXPECT_FALSE(child.running());
  EXPECT_THROW(child.request("again"), Error);
}

// A child that stops reading mid-request (its input pipe full) is bounded too: the write waits
// in poll(), where the deadline ends it.
TEST(ChildProcess, AChildThatStopsReadingIsKilledAtTheDeadline) {
  ChildProcess child({"sh", "-c", "exec sleep 600"});
  const std::string large(8 << 20, 'x');  // far more than a pipe holds
  EXPECT_THROW(child.request("go", {large}, Deadline::after(0.3)), DeadlinePassed);
  EXPECT_FALSE(child.running());
}

// A deadline that is not reached changes nothing.
TEST(ChildProcess, AnAnswerBeforeTheDeadlineIsReturned) {
  ChildProcess child({"sh", "-c", "while read line; do echo \"got $line\"; done"});
  EXPECT_EQ(child.request("one", {}, Deadline::after(60)), "got one");
  EXPECT_TRUE(child.running());
}

TEST(ChildProcess, AMissingProgramIsAnErrorNotACrash) {
  try {
    ChildProcess child({"saturate-no-such-program-here"});
    FAIL() << "started a program that does not exist";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("cannot start saturate-no-such-program-here"),
              std::string::npos)
        << error.what();
  }
}

TEST(ChildProcess, KeepsNoneOfOurPipesButItsOwnStreams) {
  // Two helpers at once: the second must not inherit the first's pipes (it would keep the first
  // alive after we close them). ls lists its own descriptors; a child started while no helper
  // runs shows which ones it gets regardless (its streams, its folder, what our parent left us).
  const std::string list = "ls /proc/self/fd | sort -n | tr '\\n' ' '";
  const std::string alone = run_to_completion({"sh", "-c", list}).output;
  ChildProcess first({"sh", "-c", "while read line; do echo ok; done"});
  ChildProcess second({"sh", "-c", "read line; " + list + "; echo"});
  EXPECT_EQ(second.request("go"), alone);
  EXPECT_EQ(first.request("still there"), "ok");
}

TEST(RunToCompletion, ReturnsTheOutputAndExitCode) {
  CompletedProcess done =
      run_to_completion({"sh", "-c", "echo \"$GREETING\"; exit 3"}, {"GREETING=hello"});
  EXPECT_EQ(done.output, "hello\n");
  EXPECT_EQ(done.exit_code, 3);
}

TEST(RunToCompletion, PassesArgumentsWithoutAShell) {
  CompletedProcess done = run_to_completion({"printf", "%s|", "a b", "'c'", "$HOME"});
  EXPECT_EQ(done.output, "a b|'c'|$HOME|");
  EXPECT_EQ(done.exit_code, 0);
}

TEST(RunToCompletion, ASignalIsNotAnExitCode) {
  EXPECT_EQ(run_to_completion({"sh", "-c", "kill -9 $$"}).exit_code, -1);
}

TEST(RunToCompletion, AMissingProgramIsAnError) {
  EXPECT_THROW(run_to_completion({"saturate-no-such-program-here"}), Error);
}

}  // namespace
}  // namespace saturate
