// What the supervisor tells the owner of a job that still runs but not as it should: a
// straggler (its step rate fell below a fraction of its own median, or of its baseline, for a
// sustained time, recovery/step_rate.h) or a GPU that stayed idle while the job runs (DCGM's
// graphics-engine activity, through the node evidence). Notification only: nothing is stopped or
// requeued. One "straggler" or "gpu_idle" event, and one message to the owner, per run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "recovery/evidence.h"
#include "recovery/step_rate.h"
#include "state/store.h"
#include "supervisor/journal/owner_notice.h"

namespace supervisor {

// `straggling` unset: the report is of idle GPUs alone. `signals`: what the nodes' telemetry
// showed over the period (idle GPUs, heat, throttling); the nodes they name are the ones the
// message points at. `not_moved_because`: set when the owner allowed exclude_slow_node and the
// job was still left on its node (slow_node.h), why. Journals the event and returns what the
// owner is told (owner_outbox.h). Call inside a transaction.
[[nodiscard]] OwnerNotice report_running_trouble(
    state::Store& store, const state::Registration& registration,
    const std::optional<recovery::Straggling>& straggling,
    const std::vector<recovery::NodeSignal>& signals, common::TimePoint at,
    const std::string& not_moved_because = {});

}  // namespace supervisor
