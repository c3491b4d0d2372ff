// Feeds: a registration's --progress-pattern (recovery/progress_pattern.h): the input's first
// line is the pattern (RE2 syntax, from the job's owner), compiled with
// ProgressPattern::compile; the rest is log text given to last_match().
// Checks: no crash, hang, leak or UB; a compile failure is an Error naming the pattern; a
// match is one whole line of the text (no '\n', without its trailing '\r'), and no later line
// matches.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "recovery/progress_pattern.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Reader input(fuzz::as_text(data, size));
    const std::string pattern(input.line());
    const auto text = input.rest();
    const auto compiled = recovery::ProgressPattern::compile(pattern);
    if (!compiled) {
        FUZZ_CHECK(!compiled.error().message.empty());
        return 0;
    }
    FUZZ_CHECK(compiled->pattern() == pattern);
    const auto match = compiled->last_match(text);
    if (!match) {
        return 0;
    }
    FUZZ_CHECK(match->find('\n') == std::string::npos);
    FUZZ_CHECK(!match->empty());
    // The matched line is a line of the text, and what follows it holds no further match.
    std::size_t at = std::string_view::npos;
    for (std::size_t from = text.size();;) {
        const auto found = text.rfind(*match, from);
        if (found == std::string_view::npos) {
            break;
        }
        const bool starts = found == 0 || text[found - 1] == '\n';
        const auto end = found + match->size();
        const bool ends = end == text.size() || text[end] == '\n' ||
                          (text[end] == '\r' && (end + 1 == text.size() || text[end + 1] == '\n'));
        if (starts && ends) {
            at = found;
            break;
        }
        if (found == 0) {
            break;
        }
        from = found - 1;
    }
    FUZZ_CHECK(at != std::string_view::npos);
    const auto next_line = text.find('\n', at);
    if (next_line != std::string_view::npos) {
        FUZZ_CHECK(!compiled->last_match(text.substr(next_line + 1)).has_value());
    }
    return 0;
}
