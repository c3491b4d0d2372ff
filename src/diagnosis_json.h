// JSON form of a recovery::Diagnosis, as `supervisor diagnose --json` prints it (and, later, the
// daemon's journal and `supervisor status`). Field names are stable: scripts depend on them.
//
//   cause           cause id ("gpu_xid"), from recovery/cause.h
//   confidence      number in [0, 1]
//   nodes           implicated nodes, most guilty first
//   node_condemned  true: the hardware of `nodes` is not to be trusted (exclude and drain)
//   xid             deciding NVIDIA Xid code, or null
//   step            last training step seen in the logs, or null
//   evidence        [{file, line, text, rule, cause, supports_cause}]; line < 0 counts from the
//                   end of the file (only the tail was read)
//   actions         [{action, argument}] in the order an operator would take them; argument is
//                   "" when the action needs none
//   slurm_facts     the Slurm facts the diagnosis used ("state TIMEOUT")
//   summary         one operator-style sentence
// Log text is bytes, not necessarily UTF-8: dump with nlohmann::json::error_handler_t::replace
// (dump() throws on invalid UTF-8 otherwise). Cannot fail.
#pragma once

#include <nlohmann/json.hpp>

#include "recovery/diagnosis.h"

namespace cli {

[[nodiscard]] nlohmann::json to_json(const recovery::Diagnosis& diagnosis);

}  // namespace cli
