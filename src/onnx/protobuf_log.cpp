#include "onnx/protobuf_log.h"

#include <google/protobuf/stubs/logging.h>

#include <cstdio>
#include <mutex>

namespace saturate::onnx {
namespace {

thread_local int capture_depth = 0;
thread_local std::string captured;

void handle_log(google::protobuf::LogLevel level, const char* /*filename*/, int /*line*/,
                const std::string& message) {
  if (capture_depth > 0) {
    captured += (captured.empty() ? "" : "; ") + message;
    return;
  }
  if (level == google::protobuf::LOGLEVEL_INFO) return;
  std::fprintf(stderr, "saturate: warning: protobuf: %s\n", message.c_str());
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] { google::protobuf::SetLogHandler(&handle_log); });
}

}  // namespace

ProtobufLogCapture::ProtobufLogCapture() {
  install_handler();
  if (capture_depth++ == 0) captured.clear();
  start_ = captured.size();
}

ProtobufLogCapture::~ProtobufLogCapture() {
  --capture_depth;
}

std::string ProtobufLogCapture::messages() const {
  std::string text = captured.substr(std::min(start_, captured.size()));
  if (text.rfind("; ", 0) == 0) text.erase(0, 2);
  return text;
}

}  // namespace saturate::onnx
