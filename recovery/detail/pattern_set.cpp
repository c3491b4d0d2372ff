#include "recovery/detail/pattern_set.h"

#include <algorithm>

namespace recovery::detail {
namespace {

// Generous DFA budget: ~100 patterns fit easily; the set is built once per catalogue.
constexpr int64_t k_max_regex_memory = 64 << 20;

}  // namespace

re2::RE2::Options PatternSet::options() {
    re2::RE2::Options options;
    // Logs are bytes, not guaranteed UTF-8 (progress bars, binary garbage); Latin-1 makes every
    // byte a character so `.` never stalls on an invalid sequence. Patterns are ASCII.
    options.set_encoding(re2::RE2::Options::EncodingLatin1);
    options.set_log_errors(false);
    options.set_max_mem(k_max_regex_memory);
    return options;
}

common::Result<std::shared_ptr<const PatternSet>> PatternSet::compile(
    const std::vector<std::string>& patterns) {
    std::shared_ptr<PatternSet> set(new PatternSet());
    for (std::size_t i = 0; i < patterns.size(); ++i) {
        std::string error;
        // (?m) so ^ and $ also hold at line boundaries inside a multi-line block; on a single
        // line it changes nothing, so block hits are a superset of line hits.
        if (set->m_set.Add("(?m)" + patterns[i], &error) < 0) {
            return common::fail("pattern " + std::to_string(i) + " rejected by RE2::Set: " + error);
        }
        set->m_regexes.push_back(std::make_unique<re2::RE2>(patterns[i], options()));
    }
    if (!set->m_set.Compile()) {
        return common::fail("the rules' patterns do not fit in RE2's memory budget together",
                            "disable or simplify some site rules");
    }
    return std::shared_ptr<const PatternSet>(std::move(set));
}

common::Result<bool> PatternSet::match(std::string_view text, std::vector<int>& hits) const {
    hits.clear();
    re2::RE2::Set::ErrorInfo info{};
    if (m_set.Match(re2::StringPiece(text.data(), text.size()), &hits, &info)) {
        std::sort(hits.begin(), hits.end());
        return true;
    }
    if (info.kind != re2::RE2::Set::kNoError) {
        return common::fail("RE2 could not scan the log (DFA out of memory)",
                            "disable or simplify some site rules");
    }
    return false;
}

}  // namespace recovery::detail
