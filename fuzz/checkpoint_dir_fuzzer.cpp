// Feeds: the small side files a checkpoint directory holds, cut from the input at each line
// "====" (absent sections: file absent):
//   0 trainer_state.json          2 latest (DeepSpeed tag)       4 .metadata (DCP pickle)
//   1 model.safetensors.index.json 3 latest_checkpointed_iteration.txt   5 model.safetensors
// written into a scratch directory that also holds a fixed DeepSpeed engine state
// (global_step10/mp_rank_00_model_states.pt) and two DCP shards, then
//   validate_directory(huggingface | torch_dcp | megatron) (recovery/checkpoints/directories.h),
//   apply_trackers (trackers.h) over fixed deepspeed/megatron candidates, and the name rules of
//   naming.h (step_in_name, strip_temporary, glob_matches) on the first line of each section.
// Checks: no crash, leak or UB; the reads stay inside the scratch directory (the tag cannot
// climb out: '/', '.', '..' are refused); bytes read equal bytes charged to the ReadBudget; a
// tracker only ever rejects, and only candidates newer than the step it names.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "recovery/checkpoints/directories.h"
#include "recovery/checkpoints/naming.h"
#include "recovery/checkpoints/trackers.h"

namespace rc = recovery::checkpoints;
namespace fs = std::filesystem;

namespace {

constexpr const char* k_sections[] = {"trainer_state.json",
                                      "model.safetensors.index.json",
                                      "latest",
                                      "latest_checkpointed_iteration.txt",
                                      ".metadata",
                                      "model.safetensors"};
constexpr std::size_t k_section_count = sizeof k_sections / sizeof k_sections[0];

struct Layout {
    fs::path root;  // huggingface layout, trackers
    fs::path dcp;   // torch_dcp layout (and Megatron torch_dist)
};

const Layout& layout() {
    static const Layout made = [] {
        Layout l{fuzz::scratch_directory() / "checkpoint-10", fuzz::scratch_directory() / "dcp"};
        fs::create_directories(l.root / "global_step10");
        fs::create_directories(l.root / "global_step20");
        fs::create_directories(l.dcp);
        // torch.save's legacy magic: a valid (legacy) torch file, so a tag naming
        // global_step10 leads to a usable engine state.
        const std::string legacy(
            "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19"
            "\x2e",
            15);
        fuzz::put_file(l.root / "global_step10" / "mp_rank_00_model_states.pt", &legacy);
        const std::string shard = "shard bytes";
        fuzz::put_file(l.dcp / "__0_0.distcp", &shard);
        fuzz::put_file(l.dcp / "__1_0.distcp", &shard);
        return l;
    }();
    return made;
}

rc::Candidate candidate(const fs::path& path, rc::Layout kind, std::int64_t step) {
    rc::Candidate c;
    c.path = path;
    c.layout = kind;
    c.step = step;
    return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto& dirs = layout();
    const auto parts = fuzz::split(fuzz::as_text(data, size), "\n====\n");

    std::vector<std::optional<std::string>> sections(k_section_count);
    for (std::size_t i = 0; i < k_section_count && i < parts.size(); ++i) {
        sections[i] = std::string(parts[i]);
    }
    for (std::size_t i = 0; i < k_section_count; ++i) {
        const auto& dir = std::string_view(k_sections[i]) == ".metadata" ? dirs.dcp : dirs.root;
        fuzz::put_file(dir / k_sections[i], sections[i] ? &*sections[i] : nullptr);
    }

    for (const auto kind : {rc::Layout::huggingface, rc::Layout::torch_dcp, rc::Layout::megatron}) {
        rc::ReadBudget budget;
        const auto& dir = kind == rc::Layout::huggingface ? dirs.root : dirs.dcp;
        const auto validation = rc::validate_directory(dir, kind, budget);
        FUZZ_CHECK(validation.bytes_read == budget.bytes_charged());
        FUZZ_CHECK(!validation.reason.empty() || !validation.ok);
    }

    std::vector<rc::Candidate> candidates{
        candidate(dirs.root / "global_step20", rc::Layout::deepspeed, 20),
        candidate(dirs.root / "global_step10", rc::Layout::deepspeed, 10),
        candidate(dirs.root / "iter_0000300", rc::Layout::megatron, 300),
        candidate(dirs.root / "iter_0000100", rc::Layout::megatron, 100),
        candidate(dirs.root / "last.ckpt", rc::Layout::lightning, 999),
    };
    std::vector<std::string> notes;
    std::uint64_t bytes_read = 0;
    rc::ReadBudget budget;
    rc::apply_trackers(dirs.root, candidates, notes, bytes_read, budget);
    FUZZ_CHECK(bytes_read == budget.bytes_charged());
    // Trackers reject only the newer of their own layout; the lightning file is never touched,
    // and the oldest of each layout can never be newer than a step a tracker names and another
    // candidate is not.
    FUZZ_CHECK(candidates[4].verdict == rc::Verdict::not_checked);
    for (std::size_t i = 0; i + 1 < 4; i += 2) {
        if (candidates[i + 1].verdict == rc::Verdict::rejected) {
            FUZZ_CHECK(candidates[i].verdict == rc::Verdict::rejected);
        }
    }

    // The name rules on the first line of each section (directory entries are names without
    // '/' or NUL, at most 255 bytes).
    for (std::size_t i = 0; i < parts.size() && i < k_section_count; ++i) {
        auto name =
            std::string(parts[i].substr(0, std::min<std::size_t>(parts[i].find('\n'), 255)));
        (void)rc::step_in_name(name);
        const auto stripped = rc::strip_temporary(name);
        FUZZ_CHECK(stripped.size() <= name.size());
        (void)rc::is_temporary_name(stripped);
        if (i + 1 < parts.size()) {
            auto pattern = std::string(parts[i + 1].substr(0, 255));
            if (pattern.find('\0') == std::string::npos && name.find('\0') == std::string::npos) {
                (void)rc::glob_matches(pattern, name);
            }
        }
    }
    return 0;
}
