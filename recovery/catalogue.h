// Catalogue: the diagnosis rules, loaded from data and compiled once for one-pass matching.
//
// Rules are TOML (rules/default.toml ships with the product; see its header for the format).
// load() reads the shipped file first, then each override file in order: a rule whose id is
// already known replaces the earlier one, a new id adds a rule, `disabled = true` removes one.
//
// Every way a catalogue can be bad is an Error whose message names the file, the rule id (when
// there is one) and what is wrong: TOML syntax (with line and column), a missing or mistyped
// field, an unknown key, cause or action, a pattern RE2 rejects (with RE2's message), a
// capture group the pattern does not define, a code_bug/unknown rule suggesting a fix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"
#include "recovery/log_excerpt.h"
#include "recovery/markers.h"
#include "recovery/rule.h"

namespace recovery {

namespace detail {
class PatternSet;
}

// Catalogue text that is already in memory; `name` stands for the file in error messages.
struct CatalogueSource {
    std::string name;
    std::string text;
};

// One line that matched one rule, with what its captures (or its prefix) say.
struct RuleHit {
    std::size_t rule = 0;          // index into Catalogue::rules()
    std::int64_t line_number = 0;  // as LogExcerpt numbers lines
    std::string text;
    std::optional<std::string> node;  // rule's node group, else the line's NCCL/syslog prefix
    std::optional<int> xid;           // rule's xid group
    std::optional<int> rank;          // rule's rank group, else a "[rankN]:" prefix

    bool operator==(const RuleHit&) const = default;
};

struct ScanResult {
    std::vector<RuleHit> hits;    // in line order
    std::vector<Marker> markers;  // in line order
};

class Catalogue {
  public:
    // Catalogue files are small; anything larger than this is refused rather than truncated.
    static constexpr std::uint64_t k_max_file_bytes = 4 * 1024 * 1024;

    // files[0] is the base (normally the shipped default.toml), later files override it.
    [[nodiscard]] static common::Result<Catalogue> load(
        std::span<const std::filesystem::path> files);
    [[nodiscard]] static common::Result<Catalogue> from_sources(
        std::span<const CatalogueSource> sources);
    // Validates and compiles rules built in code; errors name each rule's `origin`.
    [[nodiscard]] static common::Result<Catalogue> from_rules(std::vector<Rule> rules);

    [[nodiscard]] const std::vector<Rule>& rules() const { return m_rules; }
    [[nodiscard]] const Rule* find(std::string_view id) const;

    // The one pass over a log: every line matched against all rules and markers at once; then
    // each line a terminal wrapped (followed by a line that carries on in lower case) is matched
    // once more joined with its continuation, for the rules neither half took alone.
    // Fails only if RE2 runs out of memory mid-scan.
    [[nodiscard]] common::Result<ScanResult> scan(const LogExcerpt& log) const;

    // For the benchmark: how many "\n"-separated lines of `text` hit any pattern (rules and
    // markers), without extracting captures.
    [[nodiscard]] common::Result<std::size_t> count_matching_lines(std::string_view text) const;

  private:
    // The hit of rule `rule_index` on `text`, with what its captures or prefix say.
    [[nodiscard]] RuleHit hit_on(std::size_t rule_index, std::int64_t number, std::string_view text,
                                 const LogExcerpt& log) const;
    // Hits that only a line joined with its wrapped continuation shows, each with the index of
    // its first line; a second pass over at most every line, so scan() costs at most twice.
    [[nodiscard]] common::Result<std::vector<std::pair<std::size_t, RuleHit>>> scan_wrapped_lines(
        const LogExcerpt& log, const std::vector<RuleHit>& hits,
        const std::vector<std::size_t>& hit_line_index) const;

    std::vector<Rule> m_rules;
    std::shared_ptr<const detail::PatternSet> m_patterns;  // rules first, then markers
};

}  // namespace recovery
