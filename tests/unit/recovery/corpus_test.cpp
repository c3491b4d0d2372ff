// Table-driven corpus: tests/data/diagnosis/NAME.log with NAME.expect (TOML) beside it.
//
// .expect keys: cause (required), source (required: where the format comes from), and
// optionally nodes, xid, condemned, actions, step (checked) and slurm_state, exit_code, signal,
// node_list, node_states (fed to the engine as Slurm facts).
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <toml++/toml.h>

#include "test_support.h"

namespace recovery {
namespace {

std::vector<std::string> case_names() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(SUPERVISOR_DIAGNOSIS_CORPUS)) {
        if (entry.path().extension() == ".log") {
            names.push_back(entry.path().stem().string());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::filesystem::path corpus_file(const std::string& name, const char* extension) {
    return std::filesystem::path(SUPERVISOR_DIAGNOSIS_CORPUS) / (name + extension);
}

std::vector<std::string> strings(const toml::table& table, const char* key) {
    std::vector<std::string> out;
    if (const auto* array = table[key].as_array()) {
        for (const auto& item : *array) {
            out.push_back(item.value_or(std::string{}));
        }
    }
    return out;
}

SlurmFacts slurm_facts(const toml::table& expect) {
    SlurmFacts facts;
    facts.state = expect["slurm_state"].value_or(std::string{});
    if (const auto code = expect["exit_code"].value<int>()) {
        facts.exit_code = *code;
    }
    if (const auto signal = expect["signal"].value<int>()) {
        facts.signal = *signal;
    }
    facts.node_list = expect["node_list"].value_or(std::string{});
    if (const auto* states = expect["node_states"].as_array()) {
        for (const auto& item : *states) {
            const auto& node = *item.as_table();
            facts.node_states.push_back(NodeFact{node["name"].value_or(std::string{}),
                                                 node["state"].value_or(std::string{}),
                                                 node["reason"].value_or(std::string{})});
        }
    }
    return facts;
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, DiagnosesAsExpected) {
    const auto& name = GetParam();
    toml::table expect;
    ASSERT_NO_THROW(expect = toml::parse_file(corpus_file(name, ".expect").string()))
        << name << ".expect is missing or not TOML";
    ASSERT_TRUE(expect["cause"].is_string()) << name << ": no expected cause";
    EXPECT_FALSE(expect["source"].value_or(std::string{}).empty())
        << name << ": every case must say where its message format comes from";

    auto log = LogExcerpt::read(corpus_file(name, ".log"));
    ASSERT_TRUE(log) << log.error().message;
    Evidence evidence{slurm_facts(expect), {std::move(*log)}, {}};
    const auto result = diagnose(evidence, test::default_catalogue());
    ASSERT_TRUE(result) << result.error().message;
    const auto& d = *result;

    EXPECT_EQ(to_string(d.cause), expect["cause"].value_or(std::string{})) << d.summary;
    if (expect.contains("nodes")) {
        EXPECT_EQ(d.nodes, strings(expect, "nodes")) << d.summary;
    }
    if (const auto xid = expect["xid"].value<int>()) {
        EXPECT_EQ(d.xid, *xid) << d.summary;
    }
    if (const auto condemned = expect["condemned"].value<bool>()) {
        EXPECT_EQ(d.node_condemned, *condemned) << d.summary;
    }
    if (expect.contains("actions")) {
        std::vector<std::string> actions;
        for (const auto& action : d.suggested_actions) {
            actions.push_back(to_string(action));
        }
        EXPECT_EQ(actions, strings(expect, "actions")) << d.summary;
    }
    if (const auto step = expect["step"].value<std::int64_t>()) {
        EXPECT_EQ(d.step, *step) << d.summary;
    }
    if (d.cause != Cause::unknown) {
        EXPECT_GT(d.confidence, 0.5) << d.summary;
    }
    if (!is_auto_fixable(d.cause)) {
        EXPECT_EQ(d.suggested_actions, (std::vector<Action>{{ActionKind::escalate, ""}}));
    }
    EXPECT_FALSE(d.summary.empty());
}

INSTANTIATE_TEST_SUITE_P(Diagnosis, Corpus, ::testing::ValuesIn(case_names()),
                         [](const auto& instance) { return instance.param; });

TEST(CorpusCoverage, SeveralCasesPerMajorCause) {
    std::map<std::string, int> per_cause;
    for (const auto& name : case_names()) {
        const auto expect = toml::parse_file(corpus_file(name, ".expect").string());
        ++per_cause[expect["cause"].value_or(std::string{})];
    }
    for (const auto* cause :
         {"cuda_oom", "host_oom", "shm_exhausted", "nccl_timeout", "nccl_network", "gpu_xid",
          "ecc_error", "cuda_error", "node_failure", "time_limit", "preemption", "io_error",
          "checkpoint_corrupt", "loss_nan", "credential_error", "hang", "code_bug", "unknown"}) {
        EXPECT_GE(per_cause[cause], 3) << cause;
    }
}

}  // namespace
}  // namespace recovery
