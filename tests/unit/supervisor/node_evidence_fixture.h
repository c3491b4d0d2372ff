// The poll cycle with a fake node_evidence::Source: the signals a test gives it are what the
// nodes' telemetry and kernel logs show. For the tests of decisions taken on node evidence.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace supervisor::test {

// Answers with the signals it was given; remembers what it was asked.
class FakeNodeEvidence final : public node_evidence::Source {
  public:
    node_evidence::Found gather(const node_evidence::Request& request) override {
        m_requests.push_back(request);
        node_evidence::Found found;
        found.signals = m_signals;
        found.notes = m_notes;
        return found;
    }

    std::vector<recovery::NodeSignal> m_signals;
    std::vector<std::string> m_notes;
    std::vector<node_evidence::Request> m_requests;
};

inline recovery::NodeSignal signal(std::string node, recovery::NodeSignalKind kind, double value) {
    recovery::NodeSignal s;
    s.node = std::move(node);
    s.gpu = "3";
    s.kind = kind;
    s.value = value;
    s.source = "prometheus test";
    return s;
}

class NodeEvidenceCycleTest : public PollCycleTest {
  protected:
    void SetUp() override {
        PollCycleTest::SetUp();
        m_cycle->set_node_evidence(&m_evidence);
    }

    nlohmann::json diagnosis_of(const common::JobId& id) const {
        const auto events = events_of_kind(id, "diagnosis");
        EXPECT_FALSE(events.empty());
        return events.empty() ? nlohmann::json{} : nlohmann::json::parse(events.back().data_json);
    }

    // A job with a progress pattern (no stall timeout), allowed `allowed`, on `nodes`, whose
    // telemetry shows `signals`: an hour at 100 steps a minute, then 40 minutes at 20 (10 s
    // cycles, the tracker looking every 60 s), or less once the job is no longer enabled.
    common::JobId slowed_job(const std::string& nodes, std::vector<std::string> allowed,
                             std::vector<recovery::NodeSignal> signals) {
        const auto id = submit();
        auto r = request(id);
        r.allowed_actions = std::move(allowed);
        register_job(r);
        return slowed_job_registered(id, nodes, std::move(signals));
    }

    common::JobId slowed_job_registered(const common::JobId& id, const std::string& nodes,
                                        std::vector<recovery::NodeSignal> signals) {
        auto registered = registration(id);
        registered.progress_pattern = "^step [0-9]+";
        m_store->update_registration(registered);
        run_on(id, nodes);
        m_evidence.m_signals = std::move(signals);
        std::int64_t step = 0;
        for (int i = 0; i < 6 * 100 && registration(id).status == Status::enabled; ++i) {
            if (i % 6 == 0) {
                step += i < 6 * 60 ? 100 : 20;
                write_log(id, "step " + std::to_string(step) + " loss 0.3\n");
            }
            cycle();
        }
        return id;
    }

    FakeNodeEvidence m_evidence;
};

}  // namespace supervisor::test
