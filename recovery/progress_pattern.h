// ProgressPattern: what one training step's log line looks like (`--progress-pattern`), for
// stall detection: a job whose log grows with noise but never prints a new step line has
// stalled all the same.
//
// compile() fails (Result error naming the pattern and RE2's complaint) for a pattern RE2
// cannot compile. RE2 stays private to recovery/: matching is linear in the text, whatever the
// pattern, so a pattern from a registration cannot make the daemon slow.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"

namespace re2 {
class RE2;
}

namespace recovery {

class ProgressPattern {
  public:
    [[nodiscard]] static common::Result<ProgressPattern> compile(const std::string& pattern);

    // The last "\n"-separated line of `text` the pattern matches (unanchored, per line), or
    // nullopt when none does.
    [[nodiscard]] std::optional<std::string> last_match(std::string_view text) const;

    // The training step a matched line reports: the pattern's first capture group when it has
    // one and it is a whole number, else the usual spellings ("step 1200", "global_step=1200",
    // "iteration 1200/..."); nullopt when the line says no number.
    [[nodiscard]] std::optional<std::int64_t> step_number(std::string_view line) const;

    [[nodiscard]] const std::string& pattern() const;

  private:
    explicit ProgressPattern(std::shared_ptr<const re2::RE2> regex);
    std::shared_ptr<const re2::RE2> m_regex;
};

}  // namespace recovery
