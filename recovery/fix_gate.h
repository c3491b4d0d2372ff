// The safety gate between the diagnosis and the planner: an automatic fix needs positive
// evidence of a cause a fix can answer, not merely the absence of a code-bug signature.
//
// Some failures look the same whether the program or the infrastructure caused them: an
// illegal memory access, a misaligned access, an application-class Xid (13, 31, 43). A rule
// marks such lines `program_can_cause`; the gate lets them earn a fix only when something
// outside the program's own output corroborates them. Pure; never fails.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "recovery/cause.h"
#include "recovery/correlation.h"
#include "recovery/diagnosis.h"
#include "recovery/finding.h"

namespace recovery {

// Why no automatic fix may answer `cause`, or nullopt when the evidence allows one: some
// winning finding proves the cause by itself (a rule not marked program_can_cause, a Slurm
// fact), or any finding is hardware evidence (a node condemned, an ECC error, a node Slurm
// marked down). Causes that never get a fix (code_bug, unknown...) are not the gate's: nullopt.
[[nodiscard]] std::optional<std::string> fix_withheld_because(
    Cause cause, std::span<const Finding* const> winners, std::span<const Finding> findings);

// The corroboration a log cannot hold and the daemon can: another job failed on a node this
// failure names, within the correlation window (`suspects`, from suspect_nodes(); the daemon
// passes other owners' jobs only, supervisor/failure/failure_analysis.cpp). When the gate
// withheld the fixes of `diagnosis` and a suspect node among its nodes counts a job besides
// `job`, the fixes are given back, `fix_corroborated` and the summary say why (counting the
// other jobs, never naming them), and it returns true; otherwise `diagnosis` is left as it is.
bool corroborate_withheld_fix(Diagnosis& diagnosis, std::span<const SuspectNode> suspects,
                              std::string_view job);

}  // namespace recovery
