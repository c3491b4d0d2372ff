#include "recovery/markers.h"

#include <array>

namespace recovery {
namespace {

// Formats: torch.distributed.elastic's ChildFailedError summary (torch/distributed/elastic/
// multiprocessing/errors), srun's task exit report (src/srun/srun_job.c style "srun: error:
// NODE: task N: ..."), and the progress lines of common trainers (Megatron "iteration N/",
// Lightning/DeepSpeed "global_step=N", plain "step N"). Case-sensitive on purpose: slurmstepd
// prints "*** STEP 12.0 ON n1 ..." and that step id is not a training step.
constexpr std::array k_markers{
    MarkerPattern{MarkerKind::elastic_root_cause, R"(Root Cause \(first observed failure\)())"},
    MarkerPattern{MarkerKind::elastic_host, R"(^\s*host\s+:\s*([A-Za-z0-9][A-Za-z0-9_.-]*)\s*$)"},
    MarkerPattern{MarkerKind::elastic_rank, R"(^\s*rank\s+:\s*([0-9]+))"},
    MarkerPattern{MarkerKind::srun_task,
                  R"(srun: error: ([A-Za-z0-9][A-Za-z0-9_.-]*): tasks? [0-9,-]+: (.+)$)"},
    MarkerPattern{MarkerKind::training_step,
                  R"(\b(?:global_step|step|iteration|iter)\b[ =:]+([0-9]+))"},
};

}  // namespace

std::span<const MarkerPattern> marker_patterns() {
    return k_markers;
}

}  // namespace recovery
