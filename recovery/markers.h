// Markers: structural lines the engine reads besides the catalogue's rules — the elastic
// launcher's failure summary, srun's per-task verdicts and training progress.
//
// They are code, not catalogue data, because the engine interprets them (which host was the
// first failure, which step the job reached); a site cannot give them a new meaning. Their
// patterns join the catalogue's in the same RE2::Set, so they cost no extra pass.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace recovery {

enum class MarkerKind {
    elastic_root_cause,  // "Root Cause (first observed failure):" — the next host/rank is it
    elastic_host,        // "  host      : n3"            value = host
    elastic_rank,        // "  rank      : 2 (local_rank: 2)"  value = rank
    srun_task,           // "srun: error: n2: task 3: Exited with exit code 1"  value = node,
                         //  detail = the task(s) and what happened: "task 3: Exited ..."
    training_step,       // "step 1200", "global_step=1200", "iteration 1200/" value = step
    python_exception,    // a traceback's last line, "1: RuntimeError: ..."  value = the class
    training_progress,   // the run was training or saving: "Epoch 3", a progress bar
                         //  "380/2724 [14:02<86:01", "Saving model checkpoint"  value empty
    checkpoint_resume,   // a run starting from a checkpoint: "Resuming from ...", "=> loading
                         //  checkpoint 'x'"  value empty
};

struct MarkerPattern {
    MarkerKind kind;
    std::string_view pattern;  // RE2; group 1 = value, optional group 2 = detail
};

[[nodiscard]] std::span<const MarkerPattern> marker_patterns();

// The task ids of a srun_task marker's detail ("task 3: ...", "tasks 0-2,5: ..."), in order;
// empty when the list is not understood.
[[nodiscard]] std::vector<int> srun_task_ids(std::string_view detail);

struct Marker {
    MarkerKind kind = MarkerKind::training_step;
    std::int64_t line_number = 0;
    std::string value;
    std::string detail;

    bool operator==(const Marker&) const = default;
};

}  // namespace recovery
