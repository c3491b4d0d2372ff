#include "recovery/markers.h"

#include <array>
#include <charconv>

namespace recovery {
namespace {

// Formats: torch.distributed.elastic's ChildFailedError summary (torch/distributed/elastic/
// multiprocessing/errors), srun's task exit report (src/srun/srun_job.c style "srun: error:
// NODE: task N: ..."), and the progress lines of common trainers (Megatron "iteration N/",
// Lightning/DeepSpeed "global_step=N", plain "step N"), and the last line of a Python traceback.
// Case-sensitive on purpose: slurmstepd prints "*** STEP 12.0 ON n1 ..." and that step id is not a
// training step.
constexpr std::array k_markers{
    MarkerPattern{MarkerKind::elastic_root_cause, R"(Root Cause \(first observed failure\)())"},
    MarkerPattern{MarkerKind::elastic_host, R"(^\s*host\s+:\s*([A-Za-z0-9][A-Za-z0-9_.-]*)\s*$)"},
    MarkerPattern{MarkerKind::elastic_rank, R"(^\s*rank\s+:\s*([0-9]+))"},
    MarkerPattern{MarkerKind::srun_task,
                  R"(srun: error: ([A-Za-z0-9][A-Za-z0-9_.-]*): (tasks? [0-9,-]+: .+)$)"},
    MarkerPattern{MarkerKind::training_step,
                  R"(\b(?:global_step|step|iteration|iter)\b[ =:]+([0-9]+))"},
    // CPython's last traceback line, under srun --label, PyTorch's rank prefix, Open MPI's
    // --tag-output "[1,3]<stderr>:", Ray's "(RayTrainWorker pid=123, ip=10.0.0.2) ", or a
    // logger's or container's prefix that ends in "] " or "| " ("ERROR 11-18 18:07:28
    // engine.py:366] ValueError: ...", "vllm-1  | ...").
    MarkerPattern{
        MarkerKind::python_exception,
        R"(^(?:[^\]|]*[\]|] +)?(?: *[0-9]+: |\[[0-9]+,[0-9]+\]<std(?:err|out)>: ?|\([A-Za-z_]*:?[A-Za-z_]* ?pid=[0-9]+(?:, ip=[0-9.]+)?\) )?(?:\[[Rr](?:ank|ANK) ?[0-9]+\]:? ?)?([A-Za-z_][A-Za-z0-9_.]*(?:Error|Exception))(?:: |$))"},
    // Evidence that the run got as far as training: epochs, tqdm's "done/total [elapsed<left",
    // and the trainers' "saving checkpoint" lines. A checkpoint that fails to load after these
    // is one this run wrote, not one it resumed from (diagnosis.cpp).
    MarkerPattern{
        MarkerKind::training_progress,
        R"(()(?:(?i:\bepoch\b)[ :=\[]*[0-9]+|[0-9]+/[0-9]+ \[[0-9:]+<[0-9:?]+|(?i:\bsav(?:ed|ing) (?:the )?(?:best )?(?:model|checkpoint|weights|state))))"},
    // A run (re)starting from a checkpoint: a requeued job appends its new run to the same file,
    // so a failing load after this line is a resume even with the old run's progress above.
    MarkerPattern{
        MarkerKind::checkpoint_resume,
        R"(()(?i:resum(?:e|ed|ing) (?:training )?from|loading (?:the )?(?:latest )?checkpoint|load(?:ing)?_checkpoint|restor(?:e|ing) (?:states |training )?from (?:the )?checkpoint|resume_from_checkpoint))"},
};

}  // namespace

std::span<const MarkerPattern> marker_patterns() {
    return k_markers;
}

std::vector<int> srun_task_ids(std::string_view detail) {
    constexpr std::size_t k_max_tasks = 65536;
    std::vector<int> ids;
    const auto space = detail.find(' ');
    const auto colon = detail.find(':');
    if (space == std::string_view::npos || colon == std::string_view::npos || colon < space) {
        return ids;
    }
    auto list = detail.substr(space + 1, colon - space - 1);
    while (!list.empty()) {
        const auto comma = list.find(',');
        const auto item = list.substr(0, comma);
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        int first = 0;
        int last = 0;
        const auto* end = item.data() + item.size();
        const auto [rest, ec] = std::from_chars(item.data(), end, first);
        if (ec != std::errc{}) {
            return {};
        }
        last = first;
        if (rest != end &&
            (*rest != '-' || std::from_chars(rest + 1, end, last).ec != std::errc{})) {
            return {};
        }
        for (int task = first; task <= last && ids.size() < k_max_tasks; ++task) {
            ids.push_back(task);
        }
    }
    return ids;
}

}  // namespace recovery
