// join(): items as one text with a separator between them ("n1, n2"), for messages and notes.
// Never fails; an empty list gives an empty text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace common {

[[nodiscard]] inline std::string join(const std::vector<std::string>& items,
                                      std::string_view separator = ", ") {
    std::string text;
    for (const auto& item : items) {
        if (!text.empty()) {
            text += separator;
        }
        text += item;
    }
    return text;
}

}  // namespace common
