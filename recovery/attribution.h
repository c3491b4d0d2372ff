// Attribution from a line's own prefix: which node and which rank printed it.
//
// Recognised prefixes: NCCL's "host:pid:tid [dev]" (with or without srun --label's "N: "),
// syslog/journal "Mon DD HH:MM:SS host kernel:" and ISO-timestamped "...T... host kernel:",
// and PyTorch's "[rankN]:" / "[Rank N]", else srun --label's "N: " (the task id, which is the
// rank when ranks are numbered by SLURM_PROCID, as torch.distributed jobs under srun do).
// nullopt when the line has none.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace recovery {

[[nodiscard]] std::optional<std::string> node_from_prefix(std::string_view line);
[[nodiscard]] std::optional<int> rank_from_prefix(std::string_view line);

}  // namespace recovery
