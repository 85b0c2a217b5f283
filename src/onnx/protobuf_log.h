#pragma once

// libprotobuf writes its own log lines to stderr ("[libprotobuf ERROR ...] exceeded maximum
// protobuf size of 2GB", CHECK failures before it throws FatalException). While a
// ProtobufLogCapture lives, this thread's messages are kept for the caller's one-line error
// instead; outside one they are written as a single "saturate: warning: protobuf: ..." line.
#include <string>

namespace saturate::onnx {

class ProtobufLogCapture {
 public:
  ProtobufLogCapture();
  ~ProtobufLogCapture();
  ProtobufLogCapture(const ProtobufLogCapture&) = delete;
  ProtobufLogCapture& operator=(const ProtobufLogCapture&) = delete;

  // What libprotobuf logged on this thread since this capture began, "; "-separated.
  std::string messages() const;

 private:
  size_t start_;
};

}  // namespace saturate::onnx
