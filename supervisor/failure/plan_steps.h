// steps_for(): a recovery plan as the executor's steps, in the order they must run, with the
// parameters each needs recorded in the intent log (so a restarted daemon can finish them).
//
// Fixes that only change what the job reads (knobs, env fixes, an older checkpoint) are already
// in the resume environment when the plan is recorded; their steps only mark them done. A fix
// that changes the job in Slurm needs it pending: `requeue` then runs with hold, the changes
// follow, and an internal `release` step lets it start. `resubmit` carries the changes into
// the new job's options instead. The failure decides what a restart step does to a run still
// going (failure.h: Failure::adapt).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recovery/diagnosis.h"
#include "recovery/planner.h"
#include "state/records.h"
#include "supervisor/steps/step_kind.h"
#include "supervisor/steps/step_params.h"

namespace supervisor {

class Failure;

struct Step {
    recovery::ActionKind kind = recovery::ActionKind::requeue;
    StepParams params;
};

[[nodiscard]] std::vector<Step> steps_for(const recovery::Plan& plan,
                                          const recovery::Diagnosis& diagnosis,
                                          const state::Registration& registration,
                                          std::uint32_t expected_restart_count,
                                          const Failure& failure);

}  // namespace supervisor
