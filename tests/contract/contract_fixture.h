// The fixture every contract test uses: a backend (fake or real), skipped without a dev
// cluster locally and failed under CI=true, a one-job load(), and the ids and the quiet start the
// load_jobs_if_changed tests share.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <vector>

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

    // `job` and 299 ids nobody has, in job id order: many ids (all but one unknown) make the
    // real client ask for the whole table, whose "no change" answer skips all per-id work.
    std::vector<slurm::JobId> with_unknown_ids(const slurm::JobId& job) {
        std::vector<slurm::JobId> ids{job};
        const auto unknown = m_backend->unknown_job();
        for (std::uint32_t k = 1; k < 300; ++k) {
            ids.push_back(slurm::JobId{unknown.job - k, std::nullopt});
        }
        std::ranges::sort(ids);
        return ids;
    }
    // Asks load_jobs_if_changed about `ids` twice in a row until the second answer is "as
    // before" (a real cluster may be busy): false after 100 pairs, or on an error.
    bool quiet_after_asking_twice(std::span<const slurm::JobId> ids) {
        for (int attempt = 0; attempt < 100; ++attempt, m_backend->pause()) {
            const auto first = client().load_jobs_if_changed(ids);
            const auto second = client().load_jobs_if_changed(ids);
            EXPECT_TRUE(first && second) << (!first    ? first.error().message
                                             : !second ? second.error().message
                                                       : "");
            if (!first || !second) {
                return false;
            }
            if (!second->has_value()) {
                return true;
            }
        }
        return false;
    }

    std::unique_ptr<Backend> m_backend;
};

}  // namespace contract
