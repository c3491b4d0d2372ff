// Job specs: what resubmitting a job needs is stored per registration, replaced as a whole,
// refused for a job that is not registered, and deleted with its registration.
#include <gtest/gtest.h>

#include "test_support.h"

namespace state {
namespace {

using testing::at;
using testing::job;
using testing::StoreTest;

using StoreJobSpecs = StoreTest;

JobSpec sample_spec(const JobId& id) {
    return JobSpec{id, "#!/bin/bash\n#SBATCH --nodes=2\nsrun python train.py\n",
                   R"({"nodes":2,"partition":"gpu","requeue":true})", at(5)};
}

TEST_F(StoreJobSpecs, NoneUntilSet) {
    register_job(job(1));
    EXPECT_EQ(store->job_spec(job(1)), std::nullopt);
    EXPECT_EQ(store->job_spec(job(2)), std::nullopt);
}

TEST_F(StoreJobSpecs, EveryFieldRoundTrips) {
    register_job(job(1, 4));
    register_job(job(1));
    const JobSpec spec = sample_spec(job(1, 4));
    store->set_job_spec(spec);
    EXPECT_EQ(store->job_spec(job(1, 4)), spec);
    EXPECT_EQ(store->job_spec(job(1)), std::nullopt);  // an array task is its own job
}

TEST_F(StoreJobSpecs, SettingAgainReplacesEveryField) {
    register_job(job(2));
    store->set_job_spec(sample_spec(job(2)));
    const JobSpec replaced{job(2), "#!/bin/sh\necho resumed\n", "{}", at(9)};
    store->set_job_spec(replaced);
    EXPECT_EQ(store->job_spec(job(2)), replaced);
}

TEST_F(StoreJobSpecs, UnregisteredJobThrowsAndKeepsNothing) {
    EXPECT_THROW(store->set_job_spec(sample_spec(job(3))), DatabaseError);
    EXPECT_EQ(store->job_spec(job(3)), std::nullopt);
}

TEST_F(StoreJobSpecs, DeletingTheRegistrationDeletesItsSpec) {
    register_job(job(4));
    register_job(job(5));
    store->set_job_spec(sample_spec(job(4)));
    store->set_job_spec(sample_spec(job(5)));
    ASSERT_TRUE(store->delete_registration(job(4)));
    EXPECT_EQ(store->job_spec(job(4)), std::nullopt);
    EXPECT_EQ(store->job_spec(job(5)), sample_spec(job(5)));
    // Registering the job again does not bring an old spec back.
    register_job(job(4));
    EXPECT_EQ(store->job_spec(job(4)), std::nullopt);
}

}  // namespace
}  // namespace state
