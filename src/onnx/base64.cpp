#include "onnx/base64.h"

#include <array>
#include <cstdint>

namespace saturate::onnx {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int decode_char(char c) {
  size_t index = kAlphabet.find(c);
  return index == std::string_view::npos ? -1 : static_cast<int>(index);
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size())
      chunk |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size())
      chunk |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
    text += kAlphabet[(chunk >> 18) & 63];
    text += kAlphabet[(chunk >> 12) & 63];
    text += i + 1 < bytes.size() ? kAlphabet[(chunk >> 6) & 63] : '=';
    text += i + 2 < bytes.size() ? kAlphabet[chunk & 63] : '=';
  }
  return text;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string bytes;
  bytes.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    std::array<int, 4> values{};
    int padding = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = text[i + k];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        values[k] = 0;
        ++padding;
        continue;
      }
      if (padding > 0) return std::nullopt;  // data after '='
      values[k] = decode_char(c);
      if (values[k] < 0) return std::nullopt;
    }
    uint32_t chunk = (static_cast<uint32_t>(values[0]) << 18) |
                     (static_cast<uint32_t>(values[1]) << 12) |
                     (static_cast<uint32_t>(values[2]) << 6) | static_cast<uint32_t>(values[3]);
    bytes += static_cast<char>((chunk >> 16) & 255);
    if (padding < 2) bytes += static_cast<char>((chunk >> 8) & 255);
    if (padding < 1) bytes += static_cast<char>(chunk & 255);
  }
  return bytes;
}

}  // namespace saturate::onnx
