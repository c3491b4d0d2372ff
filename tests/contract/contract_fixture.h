// The fixture every contract test uses: a backend (fake or real), skipped without a dev
// cluster locally and failed under CI=true, and a one-job load().
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "tests/contract/backend.h"

namespace contract {

class SlurmClientContract : public ::testing::Test {
protected:
    void SetUp() override {
        const auto reason = backend_unavailable_reason();
        if (!reason.empty()) {
            const char* ci = std::getenv("CI");
            if (ci && std::string(ci) == "true") {
                FAIL() << "CI=true and the dev cluster is unusable: " << reason;
            }
            GTEST_SKIP() << reason << " (start one with contrib/dev-cluster/up.sh)";
        }
        m_backend = make_backend();
    }

    slurm::JobSnapshot load(const slurm::JobId& id) {
        const slurm::JobId ids[] = {id};
        auto query = client().load_jobs(ids);
        EXPECT_TRUE(query) << (query ? "" : query.error().message);
        EXPECT_EQ(query->jobs.size(), 1U) << "job " << id.to_string() << " not found";
        return query->jobs.empty() ? slurm::JobSnapshot{} : query->jobs.front();
    }
    slurm::Client& client() { return m_backend->client(); }

    std::unique_ptr<Backend> m_backend;
};

}  // namespace contract
