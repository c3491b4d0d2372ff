// trimmed(): a text without the white space (space, tab, CR, LF, VT, FF) at either end, as read
// from a one-line file or a `key = value` line. Never fails; all white space gives "".
#pragma once

#include <string>
#include <string_view>

namespace common {

[[nodiscard]] inline std::string trimmed(std::string_view text) {
    constexpr std::string_view white_space = " \t\r\n\v\f";
    const auto first = text.find_first_not_of(white_space);
    if (first == std::string_view::npos) {
        return {};
    }
    const auto last = text.find_last_not_of(white_space);
    return std::string(text.substr(first, last - first + 1));
}

}  // namespace common
