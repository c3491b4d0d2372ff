// join(): items as one text with a separator between them ("n1, n2"), for messages and notes.
// Items are texts, characters or numbers (written in decimal), from any range: a vector, a set,
// a view.
// Never fails; an empty range gives an empty text, and an empty item still gets its separator.
#pragma once

#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>

namespace common {

template <std::ranges::input_range Items>
[[nodiscard]] std::string join(Items&& items, std::string_view separator = ", ") {
    std::string text;
    bool first = true;
    for (auto&& item : items) {
        if (!first) {
            text += separator;
        }
        first = false;
        using Item = std::remove_cvref_t<decltype(item)>;
        if constexpr (std::is_arithmetic_v<Item> && !std::is_same_v<Item, char>) {
            text += std::to_string(item);
        } else {
            text += item;
        }
    }
    return text;
}

}  // namespace common
