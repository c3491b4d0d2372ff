// owner_message(): what the owner is told when a registration changes status — a
// notify::Message built from the registration (after the transition), the transition's reason
// and the failure details the poll cycle wrote (details_of() in poll_cycle.cpp: "Diagnosis:",
// evidence lines, "Nodes:", "Resume from:", "Action:", "Would have done:", "Note:", "Next
// step:"). Each status gets a next step for the human. Pure.
#pragma once

#include <string>

#include "notify/message.h"
#include "state/records.h"

namespace supervisor {

[[nodiscard]] notify::Message owner_message(const state::Registration& registration,
                                            const std::string& reason,
                                            const std::string& details);

}  // namespace supervisor
