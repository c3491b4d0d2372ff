// Compiling and running a catalogue. Validation that needs RE2 (pattern syntax, named groups)
// lives here; TOML parsing and layering live in catalogue_loader.cpp.
#include "recovery/catalogue.h"

#include <charconv>
#include <map>
#include <set>

#include <re2/re2.h>

#include "common/try.h"
#include "recovery/attribution.h"
#include "recovery/detail/pattern_set.h"

namespace recovery {
namespace {

common::Error rule_error(const Rule& rule, const std::string& what) {
    return common::Error{"rules file '" + rule.origin + "', rule '" + rule.id + "': " + what,
                         "fix or disable the rule (an override with `disabled = true`)"};
}

std::optional<int> to_int(std::string_view text) {
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

common::Result<void> validate(const Rule& rule) {
    if (rule.id.empty()) {
        return tl::unexpected(rule_error(rule, "empty id"));
    }
    if (rule.pattern.empty()) {
        return tl::unexpected(rule_error(rule, "empty pattern"));
    }
    if (!(rule.weight > 0.0 && rule.weight <= 1.0)) {
        return tl::unexpected(rule_error(rule, "weight must be in (0, 1]"));
    }
    if (rule.priority < 0 || rule.priority > 1000) {
        return tl::unexpected(rule_error(rule, "priority must be in [0, 1000]"));
    }
    if (!is_auto_fixable(rule.cause)) {
        for (const auto& action : rule.actions) {
            if (action.kind != ActionKind::escalate) {
                return tl::unexpected(rule_error(
                    rule, "cause '" + std::string(to_string(rule.cause)) +
                              "' is never fixed automatically; its only action may be 'escalate', "
                              "not '" +
                              to_string(action) + "'"));
            }
        }
    }
    const re2::RE2 regex(rule.pattern, detail::PatternSet::options());
    if (!regex.ok()) {
        return tl::unexpected(rule_error(rule, "pattern does not compile: " + regex.error()));
    }
    const auto& groups = regex.NamedCapturingGroups();
    for (const auto& [field, group] :
         {std::pair{"node_group", &rule.node_group}, std::pair{"xid_group", &rule.xid_group},
          std::pair{"rank_group", &rule.rank_group}}) {
        if (!group->empty() && groups.find(*group) == groups.end()) {
            return tl::unexpected(rule_error(rule, std::string(field) + " '" + *group +
                                                       "' is not a (?P<" + *group +
                                                       ">...) group of the pattern"));
        }
    }
    return {};
}

// Captures the named group `name` of `regex` on `line`, if the rule has one and it took part.
std::optional<std::string> capture(const re2::RE2& regex, std::string_view line,
                                   const std::string& name) {
    if (name.empty()) {
        return std::nullopt;
    }
    const auto& groups = regex.NamedCapturingGroups();
    const auto found = groups.find(name);
    if (found == groups.end()) {
        return std::nullopt;
    }
    std::vector<re2::StringPiece> submatches(static_cast<std::size_t>(found->second) + 1);
    if (!regex.Match(re2::StringPiece(line.data(), line.size()), 0, line.size(),
                     re2::RE2::UNANCHORED, submatches.data(),
                     static_cast<int>(submatches.size()))) {
        return std::nullopt;
    }
    const auto& piece = submatches[static_cast<std::size_t>(found->second)];
    if (piece.data() == nullptr) {
        return std::nullopt;
    }
    return std::string(piece.data(), piece.size());
}

}  // namespace

common::Result<Catalogue> Catalogue::from_rules(std::vector<Rule> rules) {
    std::set<std::string> ids;
    std::vector<std::string> patterns;
    for (const auto& rule : rules) {
        TRY(validate(rule));
        if (!ids.insert(rule.id).second) {
            return tl::unexpected(rule_error(rule, "duplicate id"));
        }
        patterns.push_back(rule.pattern);
    }
    for (const auto& marker : marker_patterns()) {
        patterns.emplace_back(marker.pattern);
    }
    auto compiled = TRY(detail::PatternSet::compile(patterns));
    Catalogue catalogue;
    catalogue.m_rules = std::move(rules);
    catalogue.m_patterns = std::move(compiled);
    return catalogue;
}

const Rule* Catalogue::find(std::string_view id) const {
    for (const auto& rule : m_rules) {
        if (rule.id == id) {
            return &rule;
        }
    }
    return nullptr;
}

RuleHit Catalogue::hit_on(std::size_t rule_index, std::int64_t number, std::string_view text,
                          const LogExcerpt& log) const {
    const auto& rule = m_rules[rule_index];
    const auto& regex = m_patterns->regex(rule_index);
    RuleHit hit{rule_index, number, std::string(text), std::nullopt, std::nullopt, std::nullopt};
    hit.node = capture(regex, text, rule.node_group);
    if (!hit.node) {
        // A log of one node (an epilog's kernel excerpt) is that node's, whatever host name the
        // kernel's own lines carry.
        hit.node = log.node() ? log.node() : node_from_prefix(text);
    }
    if (const auto xid = capture(regex, text, rule.xid_group)) {
        hit.xid = to_int(*xid);
    }
    if (const auto rank = capture(regex, text, rule.rank_group)) {
        hit.rank = to_int(*rank);
    }
    if (!hit.rank) {
        hit.rank = rank_from_prefix(text);
    }
    return hit;
}

common::Result<ScanResult> Catalogue::scan(const LogExcerpt& log) const {
    ScanResult result;
    if (!m_patterns) {
        return result;
    }
    // Lines are contiguous in log.text(); map a hit's offset back to its Line by a moving
    // cursor, since hits arrive in order.
    const auto& lines = log.lines();
    std::size_t cursor = 0;
    const auto markers = marker_patterns();
    std::vector<std::size_t> hit_line_index;  // parallel to result.hits
    auto on_line = [&](std::size_t offset, std::size_t length, const std::vector<int>& indices) {
        while (cursor < lines.size() && lines[cursor].offset < offset) {
            ++cursor;
        }
        const auto number = cursor < lines.size() ? lines[cursor].number : 0;
        const std::string_view text = log.text().substr(offset, length);
        for (const int index : indices) {
            const auto i = static_cast<std::size_t>(index);
            if (i < m_rules.size()) {
                result.hits.push_back(hit_on(i, number, text, log));
                hit_line_index.push_back(cursor);
                continue;
            }
            const auto& regex = m_patterns->regex(i);
            const auto& marker = markers[i - m_rules.size()];
            std::string value;
            std::string detail;
            if (regex.NumberOfCapturingGroups() >= 2) {
                re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), regex, &value,
                                       &detail);
            } else {
                re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), regex, &value);
            }
            result.markers.push_back(
                Marker{marker.kind, number, std::move(value), std::move(detail)});
        }
    };
    TRY(m_patterns->scan(log.text(), on_line));
    auto wrapped = TRY(scan_wrapped_lines(log, result.hits, hit_line_index));
    if (!wrapped.empty()) {
        // Merge by line index: both lists are in line order.
        std::vector<RuleHit> merged;
        merged.reserve(result.hits.size() + wrapped.size());
        std::size_t next = 0;
        for (auto& [line_index, hit] : wrapped) {
            while (next < result.hits.size() && hit_line_index[next] <= line_index) {
                merged.push_back(std::move(result.hits[next++]));
            }
            merged.push_back(std::move(hit));
        }
        while (next < result.hits.size()) {
            merged.push_back(std::move(result.hits[next++]));
        }
        result.hits = std::move(merged);
    }
    return result;
}

namespace {

// A line a terminal or a web page broke off: long enough to have been cut at a width, and
// followed by a line that carries on with a plain lower-case word ("...killed by signal: Bus" /
// "error. It is"). Tracebacks, log records and kernel lines start with a space, a capital, a
// digit, a bracket or a prefix such as "n12:4242:4250" or "srun:", and are never joined.
bool continues_on_next_line(std::string_view line, std::string_view next) {
    constexpr std::size_t k_min_wrapped_width = 40;
    if (line.size() < k_min_wrapped_width) {
        return false;
    }
    const auto word = next.substr(0, next.find(' '));
    if (word.empty()) {
        return false;  // an empty or indented line (a traceback's frames) starts a record
    }
    const auto letters = word.find_first_not_of("abcdefghijklmnopqrstuvwxyz");
    return letters != 0 && (letters == std::string_view::npos ||
                            word.find_first_not_of(".,;)", letters) == std::string_view::npos);
}

}  // namespace

common::Result<std::vector<std::pair<std::size_t, RuleHit>>> Catalogue::scan_wrapped_lines(
    const LogExcerpt& log, const std::vector<RuleHit>& hits,
    const std::vector<std::size_t>& hit_line_index) const {
    std::vector<std::pair<std::size_t, RuleHit>> found;
    const auto& lines = log.lines();
    std::size_t next_hit = 0;
    std::string joined;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        const auto line = log.line_text(lines[i]);
        const auto next = log.line_text(lines[i + 1]);
        // The head's last line and the tail's first are not neighbours in the file.
        if (lines[i + 1].number != lines[i].number + 1 || !continues_on_next_line(line, next)) {
            continue;
        }
        joined.assign(line);
        if (joined.back() != ' ') {
            joined.push_back(' ');
        }
        joined.append(next);
        std::vector<int> indices;
        auto scanned = m_patterns->scan(
            joined, [&indices](std::size_t, std::size_t, const std::vector<int>& on_line) {
                indices.insert(indices.end(), on_line.begin(), on_line.end());
            });
        if (!scanned) {
            return tl::unexpected(scanned.error());
        }
        // Only what the join reveals: a rule that already took either half keeps that hit.
        while (next_hit < hits.size() && hit_line_index[next_hit] < i) {
            ++next_hit;
        }
        for (const int index : indices) {
            const auto rule = static_cast<std::size_t>(index);
            if (rule >= m_rules.size()) {
                continue;  // markers read one line each
            }
            bool seen = false;
            for (std::size_t h = next_hit; h < hits.size() && hit_line_index[h] <= i + 1; ++h) {
                seen = seen || hits[h].rule == rule;
            }
            if (!seen) {
                found.emplace_back(i, hit_on(rule, lines[i].number, joined, log));
            }
        }
    }
    return found;
}

common::Result<std::size_t> Catalogue::count_matching_lines(std::string_view text) const {
    std::size_t count = 0;
    if (!m_patterns) {
        return count;
    }
    TRY(m_patterns->scan(text,
                         [&count](std::size_t, std::size_t, const std::vector<int>&) { ++count; }));
    return count;
}

}  // namespace recovery
