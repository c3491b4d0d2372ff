// Lines are matched one by one (newest last) so that `^` and `$` mean the start and end of a
// line, as a person writing the pattern expects of a log.
#include "recovery/progress_pattern.h"

#include <re2/re2.h>

#include <charconv>

#include "recovery/detail/pattern_set.h"
#include "recovery/markers.h"

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
        return common::fail("--progress-pattern '" + pattern +
                                "' is not a valid regular "
                                "expression: " +
                                regex->error(),
                            "RE2 syntax (like Perl without backreferences), e.g. '^step [0-9]+'");
    }
    return ProgressPattern(std::move(regex));
}

ProgressPattern::ProgressPattern(std::shared_ptr<const re2::RE2> regex)
    : m_regex(std::move(regex)) {}

const std::string& ProgressPattern::pattern() const {
    return m_regex->pattern();
}

namespace {

std::optional<std::int64_t> whole_number(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || value < 0) {
        return std::nullopt;
    }
    return value;
}

const re2::RE2& training_step_regex() {
    static const auto regex = [] {
        for (const auto& marker : marker_patterns()) {
            if (marker.kind == MarkerKind::training_step) {
                return std::make_unique<re2::RE2>(
                    re2::StringPiece(marker.pattern.data(), marker.pattern.size()),
                    detail::PatternSet::options());
            }
        }
        return std::make_unique<re2::RE2>("$^");
    }();
    return *regex;
}

}  // namespace

std::optional<std::int64_t> ProgressPattern::step_number(std::string_view line) const {
    const re2::StringPiece piece(line.data(), line.size());
    std::string group;
    if (m_regex->NumberOfCapturingGroups() >= 1 &&
        re2::RE2::PartialMatch(piece, *m_regex, &group)) {
        if (auto number = whole_number(group)) {
            return number;
        }
    }
    if (re2::RE2::PartialMatch(piece, training_step_regex(), &group)) {
        return whole_number(group);
    }
    return std::nullopt;
}

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
