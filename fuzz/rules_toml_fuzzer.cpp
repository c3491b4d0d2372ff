// Feeds: a diagnosis rules catalogue as TOML (recovery/catalogue.h, catalogue_loader.cpp):
// the input, cut at the first line "#---" into a base file and an override file (layering,
// replacement and `disabled = true`), to Catalogue::from_sources; a catalogue that loads is
// then run over a fixed sample log (scan(), so the rules' own RE2 patterns and their
// node/xid/rank capture groups meet real lines) and used for one diagnose().
// Checks: no crash, leak or UB; a bad catalogue is an Error with a message; a loaded one has
// unique ids, weights in (0, 1], priorities in [0, 1000], and code_bug / unknown rules that
// only escalate; every hit points at a rule and at the line of the log it quotes.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "recovery/catalogue.h"
#include "recovery/diagnosis.h"

namespace {

constexpr const char* k_sample_log =
    "[2025-03-02 10:14:07,611][train][INFO] - step 18400 | loss 2.1934\n"
    "[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB.\n"
    "gpu-a07:88120:88131 [5] NCCL INFO Call to connect returned Connection refused\n"
    "[12345.678] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n"
    "n3 kernel: Out of memory: Killed process 4242 (python)\n"
    "Root Cause (first observed failure):\n"
    "  host      : gpu-a07\n"
    "  rank      : 5 (local_rank: 5)\n"
    "srun: error: gpu-a07: task 0: Exited with exit code 1\n"
    "slurmstepd: error: *** JOB 1234 ON n1 CANCELLED AT 2025-03-02T10:14:41 DUE TO TIME LIMIT ***\n"
    "\r\n"
    "\xff\xfe binary \x01 garbage\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = fuzz::as_text(data, size);
    std::vector<recovery::CatalogueSource> sources;
    const auto cut = text.find("\n#---\n");
    if (cut == std::string_view::npos) {
        sources.push_back({"base.toml", std::string(text)});
    } else {
        sources.push_back({"base.toml", std::string(text.substr(0, cut + 1))});
        sources.push_back({"site.toml", std::string(text.substr(cut + 6))});
    }
    const auto catalogue = recovery::Catalogue::from_sources(sources);
    if (!catalogue) {
        FUZZ_CHECK(!catalogue.error().message.empty());
        return 0;
    }
    std::set<std::string> ids;
    for (const auto& rule : catalogue->rules()) {
        FUZZ_CHECK(ids.insert(rule.id).second);
        FUZZ_CHECK(rule.weight > 0.0 && rule.weight <= 1.0);
        FUZZ_CHECK(rule.priority >= 0 && rule.priority <= 1000);
        if (!recovery::is_auto_fixable(rule.cause)) {
            for (const auto& action : rule.actions) {
                FUZZ_CHECK(action.kind == recovery::ActionKind::escalate);
            }
        }
        FUZZ_CHECK(catalogue->find(rule.id) != nullptr);
    }

    const auto log = recovery::LogExcerpt::from_text("sample.log", k_sample_log);
    const auto scanned = catalogue->scan(log);
    if (scanned) {
        for (const auto& hit : scanned->hits) {
            FUZZ_CHECK(hit.rule < catalogue->rules().size());
            FUZZ_CHECK(hit.line_number >= 1 &&
                       hit.line_number <= static_cast<std::int64_t>(log.lines().size()));
            FUZZ_CHECK(log.line_text(log.lines()[static_cast<std::size_t>(hit.line_number - 1)]) ==
                       hit.text);
        }
    }
    recovery::Evidence evidence;
    evidence.slurm.state = "FAILED";
    evidence.slurm.node_list = "gpu-a[01-08],n[1-3]";
    evidence.logs.push_back(log);
    const auto diagnosis = recovery::diagnose(evidence, *catalogue);
    if (diagnosis) {
        FUZZ_CHECK(diagnosis->confidence >= 0.0 && diagnosis->confidence <= 1.0);
        FUZZ_CHECK(!diagnosis->suggested_actions.empty());
    }
    return 0;
}
