#pragma once

#include <string_view>

namespace saturate {

// Whether the bytes are well-formed UTF-8: no overlong forms, surrogates or code points past
// U+10FFFF. Names and strings from user files end up in JSON, which must be UTF-8.
bool is_valid_utf8(std::string_view text);

}  // namespace saturate
