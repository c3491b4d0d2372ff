// Names of the checkpoint vocabulary, as the CLI and the journal print them. Stable: scripts
// read them from `supervisor checkpoints --json`.
#include "recovery/checkpoints/types.h"

namespace recovery::checkpoints {

std::string_view to_string(Layout layout) {
    switch (layout) {
        case Layout::lightning:
            return "lightning";
        case Layout::huggingface:
            return "huggingface";
        case Layout::deepspeed:
            return "deepspeed";
        case Layout::megatron:
            return "megatron";
        case Layout::torch_dcp:
            return "torch_dcp";
        case Layout::torch_save:
            return "torch_save";
        case Layout::safetensors:
            return "safetensors";
        case Layout::declared:
            return "declared";
        case Layout::by_name:
            return "by_name";
    }
    return "unknown";
}

std::string_view to_string(Verdict verdict) {
    switch (verdict) {
        case Verdict::usable:
            return "usable";
        case Verdict::rejected:
            return "rejected";
        case Verdict::not_checked:
            return "not_checked";
    }
    return "unknown";
}

}  // namespace recovery::checkpoints
