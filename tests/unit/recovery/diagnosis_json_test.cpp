// The one JSON form of a diagnosis: what to_json() writes, diagnosis_from_json() reads back
// whole; the journal's earlier form (actions as "suggested_actions" strings) still reads; and
// damaged data reads what it can instead of throwing.
#include "recovery/diagnosis_json.h"

#include <gtest/gtest.h>

namespace {

using recovery::Action;
using recovery::ActionKind;
using recovery::Cause;
using recovery::Diagnosis;

Diagnosis full_diagnosis() {
    Diagnosis d;
    d.cause = Cause::gpu_xid;
    d.confidence = 0.9;
    d.evidence = {{"slurm-7.out", -3, "NVRM: Xid 79", "xid_fallen_off_bus", Cause::gpu_xid, true},
                  {"slurm-7.out", 12, "NCCL WARN", "nccl_warn", Cause::nccl_timeout, false}};
    d.nodes = {"n2", "n1"};
    d.node_attribution = "the job's only node";
    d.suggested_actions = {{ActionKind::exclude_node, "n2"}, {ActionKind::requeue, ""}};
    d.slurm_facts_used = {"state FAILED"};
    d.xid = 79;
    d.node_condemned = true;
    d.condemned_on_node_evidence = true;
    d.step = 1500;
    d.withheld_actions = {{ActionKind::requeue, ""}};
    d.fix_withheld = "no automatic fix: Xid 13";
    d.fix_corroborated = "the fix stands: job 8 also failed on n2";
    d.symptom_lines = 3;
    d.summary = "GPU of n2 fell off the bus";
    return d;
}

TEST(DiagnosisJson, WhatIsWrittenReadsBackWhole) {
    const auto d = full_diagnosis();
    EXPECT_EQ(recovery::diagnosis_from_json(recovery::to_json(d)), d);
    EXPECT_EQ(recovery::diagnosis_from_json(recovery::to_json(Diagnosis{})), Diagnosis{});
}

TEST(DiagnosisJson, FieldNamesAreTheDocumentedOnes) {
    const auto data = recovery::to_json(full_diagnosis());
    for (const char* key :
         {"cause", "confidence", "nodes", "node_condemned", "condemned_on_node_evidence",
          "node_attribution", "xid", "xid_on_node_evidence", "step", "evidence", "actions",
          "fix_withheld", "withheld_actions", "fix_corroborated", "symptom_lines", "slurm_facts",
          "summary"}) {
        EXPECT_TRUE(data.contains(key)) << key;
    }
    EXPECT_EQ(data["actions"][0], nlohmann::json::parse(R"({"action":"exclude_node",
                                                            "argument":"n2"})"));
    EXPECT_EQ(data["evidence"][1]["cause"], "nccl_timeout");
    EXPECT_TRUE(recovery::to_json(Diagnosis{})["xid"].is_null());
}

TEST(DiagnosisJson, ReadsTheJournalsEarlierForm) {
    const auto earlier = nlohmann::json::parse(R"({
        "cause": "nccl_timeout", "confidence": 0.8, "nodes": ["n3"], "step": 40,
        "suggested_actions": ["set_env:NCCL_SOCKET_IFNAME", "requeue", "not_an_action"],
        "evidence": [{"file": "log", "line": 4, "text": "watchdog", "rule": "r",
                      "supports_cause": true}]})");
    const auto d = recovery::diagnosis_from_json(earlier);
    EXPECT_EQ(d.cause, Cause::nccl_timeout);
    EXPECT_EQ(d.suggested_actions, (std::vector<Action>{{ActionKind::set_env, "NCCL_SOCKET_IFNAME"},
                                                        {ActionKind::requeue, ""}}));
    ASSERT_EQ(d.evidence.size(), 1U);
    EXPECT_EQ(d.evidence[0].text, "watchdog");
    EXPECT_EQ(d.evidence[0].cause, Cause::unknown);  // not recorded then
    EXPECT_EQ(d.step, 40);
}

TEST(DiagnosisJson, DamagedDataReadsWhatItCan) {
    const auto damaged = nlohmann::json::parse(R"({
        "cause": "no_such_cause", "confidence": "high", "nodes": ["n1", 2], "xid": "79",
        "step": null, "evidence": [7, {"text": "kept", "line": "x"}],
        "actions": [{"action": "requeue"}, {"action": 3}, "drain_node"], "summary": "s"})");
    const auto d = recovery::diagnosis_from_json(damaged);
    EXPECT_EQ(d.cause, Cause::unknown);
    EXPECT_EQ(d.confidence, 0.0);
    EXPECT_TRUE(d.nodes.empty());  // a list with a stranger in it is not half-read
    EXPECT_FALSE(d.xid);
    EXPECT_FALSE(d.step);
    ASSERT_EQ(d.evidence.size(), 1U);
    EXPECT_EQ(d.evidence[0].text, "kept");
    EXPECT_EQ(d.evidence[0].line, 0);
    EXPECT_EQ(d.suggested_actions, (std::vector<Action>{{ActionKind::requeue, ""}}));
    EXPECT_EQ(d.summary, "s");
    EXPECT_EQ(recovery::diagnosis_from_json(nlohmann::json::array()), Diagnosis{});
    EXPECT_EQ(recovery::diagnosis_from_json(nlohmann::json("text")), Diagnosis{});
}

}  // namespace
