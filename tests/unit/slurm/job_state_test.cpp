#include "slurm/job_state.h"

#include <gtest/gtest.h>

namespace {

using slurm::JobState;

TEST(JobState, NamesRoundTripAndFinishedIsRight) {
    const JobState all[] = {JobState::pending,   JobState::running,   JobState::suspended,
                            JobState::completed, JobState::cancelled, JobState::failed,
                            JobState::timeout,   JobState::node_fail, JobState::preempted,
                            JobState::boot_fail, JobState::deadline,  JobState::out_of_memory};
    for (const auto state : all) {
        const auto name = slurm::to_string(state);
        EXPECT_EQ(slurm::job_state_from_string(name), state) << name;
        const bool live = state == JobState::pending || state == JobState::running ||
                          state == JobState::suspended;
        EXPECT_EQ(slurm::is_finished(state), !live) << name;
    }
    EXPECT_EQ(slurm::job_state_from_string("node_fail"), JobState::node_fail);
    EXPECT_FALSE(slurm::job_state_from_string("F"));
}

}  // namespace
