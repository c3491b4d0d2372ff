// The one JSON form of a recovery::Diagnosis: `supervisor diagnose --json` prints it, and the
// journal's "diagnosis" event stores it (supervisor/journal/journal_events.h adds the attempt, the
// checkpoint and the notes). Field names are stable: scripts depend on them.
//
//   cause           cause id ("gpu_xid"), from recovery/cause.h
//   confidence      number in [0, 1]
//   nodes           implicated nodes, most guilty first
//   node_condemned  true: the hardware of `nodes` is not to be trusted (exclude and drain)
//   node_attribution how `nodes` were found when no evidence line names them, or ""
//   xid             deciding NVIDIA Xid code, or null
//   step            last training step seen in the logs, or null
//   evidence        [{file, line, text, rule, cause, supports_cause}]; line < 0 counts from the
//                   end of the file (only the tail was read)
//   actions         [{action, argument}] in the order an operator would take them; argument is
//                   "" when the action needs none
//   slurm_facts     the Slurm facts the diagnosis used ("state TIMEOUT")
//   summary         one operator-style sentence
//
// Log text is bytes, not necessarily UTF-8: write it with common::json_text (nlohmann's dump()
// throws on invalid UTF-8). Neither function fails: diagnosis_from_json() reads what it can of
// damaged or older data (a field missing or of the wrong type keeps its default; an unknown
// cause reads as unknown) and also reads the journal's earlier form, which listed
// the actions as "suggested_actions": ["set_env:NAME", ...].
#pragma once

#include <nlohmann/json.hpp>

#include "recovery/diagnosis.h"

namespace recovery {

[[nodiscard]] nlohmann::json to_json(const Diagnosis& diagnosis);
[[nodiscard]] Diagnosis diagnosis_from_json(const nlohmann::json& data);

}  // namespace recovery
