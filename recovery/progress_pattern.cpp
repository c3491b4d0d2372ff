// Lines are matched one by one (newest last) so that `^` and `$` mean the start and end of a
// line, as a person writing the pattern expects of a log.
#include "recovery/progress_pattern.h"

#include <re2/re2.h>

namespace recovery {

common::Result<ProgressPattern> ProgressPattern::compile(const std::string& pattern) {
    if (pattern.empty()) {
        return common::fail("--progress-pattern is empty",
                            "give a regular expression of a step line, e.g. '^step [0-9]+'");
    }
    re2::RE2::Options options;
    options.set_log_errors(false);
    auto regex = std::make_shared<const re2::RE2>(pattern, options);
    if (!regex->ok()) {
        return common::fail("--progress-pattern '" + pattern + "' is not a valid regular "
                                "expression: " + regex->error(),
                            "RE2 syntax (like Perl without backreferences), e.g. '^step [0-9]+'");
    }
    return ProgressPattern(std::move(regex));
}

ProgressPattern::ProgressPattern(std::shared_ptr<const re2::RE2> regex)
    : m_regex(std::move(regex)) {}

const std::string& ProgressPattern::pattern() const { return m_regex->pattern(); }

std::optional<std::string> ProgressPattern::last_match(std::string_view text) const {
    std::size_t end = text.size();
    while (end > 0) {
        const std::size_t newline = text.rfind('\n', end - 1);
        const std::size_t begin = newline == std::string_view::npos ? 0 : newline + 1;
        std::string_view line = text.substr(begin, end - begin);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (!line.empty() &&
            re2::RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), *m_regex)) {
            return std::string(line);
        }
        if (newline == std::string_view::npos) {
            break;
        }
        end = newline;
    }
    return std::nullopt;
}

}  // namespace recovery
