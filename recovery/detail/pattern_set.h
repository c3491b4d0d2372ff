// PatternSet: all patterns of a catalogue compiled once into one RE2::Set, plus each pattern's
// own RE2 for captures. Private to recovery/ (it exposes RE2, which is linked PRIVATE).
//
// scan() is the one pass over a log: the set runs over blocks of whole lines first, so blocks
// without any hit (almost all of a training log) cost one DFA walk; only lines inside a hit
// block are matched one by one, and only lines that hit are handed to the individual RE2s.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <re2/re2.h>
#include <re2/set.h>

#include "common/error.h"

namespace recovery::detail {

class PatternSet {
  public:
    // Compiles `patterns` (each already known to compile alone). Fails only when RE2 cannot
    // build the combined program within its memory budget.
    [[nodiscard]] static common::Result<std::shared_ptr<const PatternSet>> compile(
        const std::vector<std::string>& patterns);

    // Calls on_line(offset, length, indices) for every line of `text` ("\n"-separated) that
    // matches at least one pattern, in order; indices are sorted. Fails when RE2's DFA runs
    // out of memory mid-scan.
    template <typename OnLine>
    [[nodiscard]] common::Result<void> scan(std::string_view text, OnLine&& on_line) const;

    [[nodiscard]] const re2::RE2& regex(std::size_t index) const { return *m_regexes[index]; }
    [[nodiscard]] std::size_t size() const { return m_regexes.size(); }

    static re2::RE2::Options options();

  private:
    PatternSet() : m_set(options(), re2::RE2::UNANCHORED) {}

    [[nodiscard]] common::Result<bool> match(std::string_view text, std::vector<int>& hits) const;

    re2::RE2::Set m_set;
    std::vector<std::unique_ptr<re2::RE2>> m_regexes;
};

// Block size for the first pass: large enough that the per-call overhead of RE2::Set vanishes,
// small enough that a hit block re-scans little text line by line.
inline constexpr std::size_t k_scan_block_bytes = 16 * 1024;

template <typename OnLine>
common::Result<void> PatternSet::scan(std::string_view text, OnLine&& on_line) const {
    std::vector<int> hits;
    std::size_t block_start = 0;
    while (block_start < text.size()) {
        // Extend the block to the end of the line that crosses k_scan_block_bytes.
        std::size_t block_end = std::min(text.size(), block_start + k_scan_block_bytes);
        if (block_end < text.size()) {
            const auto newline = text.find('\n', block_end);
            block_end = newline == std::string_view::npos ? text.size() : newline;
        }
        const auto block = text.substr(block_start, block_end - block_start);
        auto any = match(block, hits);
        if (!any) {
            return tl::unexpected(any.error());
        }
        if (*any) {
            std::size_t line_start = 0;
            while (line_start <= block.size()) {
                auto newline = block.find('\n', line_start);
                if (newline == std::string_view::npos) {
                    newline = block.size();
                }
                const auto line = block.substr(line_start, newline - line_start);
                auto line_hit = match(line, hits);
                if (!line_hit) {
                    return tl::unexpected(line_hit.error());
                }
                if (*line_hit) {
                    on_line(block_start + line_start, line.size(), hits);
                }
                line_start = newline + 1;
            }
        }
        block_start = block_end + 1;
    }
    return {};
}

}  // namespace recovery::detail
