// Shared helpers for recovery tests: the shipped catalogue, and diagnosing inline text.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "recovery/catalogue.h"
#include "recovery/diagnosis.h"

namespace recovery::test {

inline const Catalogue& default_catalogue() {
    static const Catalogue catalogue = [] {
        const std::vector<std::filesystem::path> files{SUPERVISOR_DEFAULT_RULES};
        auto loaded = Catalogue::load(files);
        if (!loaded) {
            ADD_FAILURE() << loaded.error().message;
            return Catalogue{};
        }
        return std::move(*loaded);
    }();
    return catalogue;
}

// Slurm facts with only the fields most tests care about.
inline SlurmFacts facts(std::string state, std::string node_list = {},
                        std::optional<int> exit_code = std::nullopt) {
    SlurmFacts result;
    result.state = std::move(state);
    result.node_list = std::move(node_list);
    result.exit_code = exit_code;
    return result;
}

inline Diagnosis diagnose_text(const std::string& text, SlurmFacts slurm = {}) {
    Evidence evidence;
    evidence.slurm = std::move(slurm);
    evidence.logs.push_back(LogExcerpt::from_text("job.out", text));
    auto result = diagnose(evidence, default_catalogue());
    if (!result) {
        ADD_FAILURE() << result.error().message;
        return {};
    }
    return *result;
}

}  // namespace recovery::test
