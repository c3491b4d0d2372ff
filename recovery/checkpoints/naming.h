// What a checkpoint's name says: whether it is a temporary name (never usable), the name
// without its temporary decoration, and the step number it carries.
//
// Temporary: a leading '.', a leading "tmp", a ".tmp." inside, or a trailing ".tmp",
// ".partial", ".incomplete" or ".swp".
// Step: the number after the last "step" (step=900, step_000900, global_step900,
// epoch=3-step=900), else after "checkpoint" (checkpoint-500), "iteration" or "iter"
// (iter_0000300), with an optional '=', '_' or '-' between; else the name's only run of
// digits (ckpt_000500.pt, epoch=3.ckpt); else none (model-00001-of-00002.bin, last.ckpt).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace recovery::checkpoints {

[[nodiscard]] bool is_temporary_name(std::string_view name);
// "step_10.pt.tmp" -> "step_10.pt", ".checkpoint-5" -> "checkpoint-5".
[[nodiscard]] std::string strip_temporary(std::string_view name);
[[nodiscard]] std::optional<std::int64_t> step_in_name(std::string_view raw);
[[nodiscard]] bool ends_with(std::string_view text, std::string_view suffix);
// fnmatch(3) with FNM_PERIOD: "*" does not match a leading '.'.
[[nodiscard]] bool glob_matches(const std::string& pattern, const std::string& name);

}  // namespace recovery::checkpoints
