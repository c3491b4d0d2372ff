// Wording follows how an operator writes a ticket note: what broke, where, what proves it, what
// they would do. Kept to one sentence so notifications and `supervisor diagnose` can show it.
#include "recovery/summary.h"

#include <cctype>

#include "common/join.h"
#include "recovery/xid.h"

namespace recovery {
namespace {

std::string_view describe(Cause cause) {
    switch (cause) {
        case Cause::cuda_oom:
            return "GPU ran out of memory";
        case Cause::host_oom:
            return "host memory ran out (OOM killer)";
        case Cause::shm_exhausted:
            return "shared memory (/dev/shm) ran out, not a hardware fault";
        case Cause::nccl_timeout:
            return "an NCCL collective timed out";
        case Cause::nccl_network:
            return "the NCCL network transport failed";
        case Cause::gpu_xid:
            return "the GPU driver reported an Xid error";
        case Cause::ecc_error:
            return "the GPU hit an uncorrectable ECC error";
        case Cause::cuda_error:
            return "a CUDA error aborted the job";
        case Cause::node_failure:
            return "a node failed";
        case Cause::time_limit:
            return "the job hit its time limit";
        case Cause::preemption:
            return "the job was preempted";
        case Cause::io_error:
            return "storage I/O failed";
        case Cause::checkpoint_corrupt:
            return "a checkpoint is corrupt or incomplete";
        case Cause::loss_nan:
            return "training diverged (NaN/inf loss or gradients)";
        case Cause::credential_error:
            return "a credential expired or was refused";
        case Cause::hang:
            return "the job hung without progress";
        case Cause::slow_node:
            return "one node held the running job back";
        case Cause::code_bug:
            return "the training code raised an error (a code bug, not infrastructure)";
        case Cause::unknown:
            return "no known failure signature was found";
    }
    return "unknown";
}

}  // namespace

std::string summarise(const Diagnosis& d) {
    std::string text(describe(d.cause));
    if (d.xid) {
        const auto info = find_xid(*d.xid);
        text = "GPU Xid " + std::to_string(*d.xid) + " (" +
               std::string(info ? info->meaning : "unlisted code") + ")";
    }
    if (!d.nodes.empty()) {
        text += " on " + common::join(d.nodes);
    }
    if (!d.evidence.empty() && d.evidence.front().supports_cause) {
        const auto& first = d.evidence.front();
        // Line 0 is no line of a log: a node's telemetry, cited by its source (node_signals.cpp).
        text += " (" + first.file +
                (first.line != 0 ? " line " + describe_line_number(first.line) : "") + ")";
    } else if (!d.slurm_facts_used.empty()) {
        text += " (Slurm: " + d.slurm_facts_used.front() + ")";
    }
    if (d.cause == Cause::unknown && !d.evidence.empty()) {
        // The excerpt a person needs (unknown_excerpt.h): where to start reading.
        const auto& first = d.evidence.front();
        text += "; read first: " + first.file + " line " + describe_line_number(first.line);
    }
    if (d.step) {
        text += " at step " + std::to_string(*d.step);
    }
    if (d.symptom_lines > 0) {
        text += "; " + std::to_string(d.symptom_lines) + " other error line" +
                (d.symptom_lines == 1 ? "" : "s") + " look like consequences";
    }
    if (d.node_condemned) {
        text += "; the node is not to be trusted";
    }
    if (!d.fix_withheld.empty()) {
        text += "; " + d.fix_withheld;
    }
    if (!d.fix_corroborated.empty()) {
        text += "; " + d.fix_corroborated;
    }
    std::vector<std::string> actions;
    for (const auto& action : d.suggested_actions) {
        actions.push_back(to_string(action));
    }
    text += " — suggest: " + common::join(actions) + ".";
    text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    return text;
}

}  // namespace recovery
