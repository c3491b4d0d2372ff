#include "slurm/output_path.h"

#include <gtest/gtest.h>

namespace {

using slurm::expand_output_path;
using slurm::OutputPathContext;

OutputPathContext plain_job() {
    OutputPathContext context;
    context.job_id = 42;
    context.job_name = "train";
    context.user_name = "alice";
    context.first_node = "n2";
    context.work_dir = "/home/alice/run";
    return context;
}

TEST(OutputPath, DefaultsToSlurmJobIdOutInWorkDir) {
    EXPECT_EQ(expand_output_path("", plain_job()), "/home/alice/run/slurm-42.out");
}

TEST(OutputPath, DefaultForArrayTaskUsesMasterAndTask) {
    auto context = plain_job();
    context.array_job_id = 40;
    context.array_task_id = 7;
    EXPECT_EQ(expand_output_path("", context), "/home/alice/run/slurm-40_7.out");
}

TEST(OutputPath, ExpandsEverySpecifier) {
    auto context = plain_job();
    context.array_job_id = 40;
    context.array_task_id = 3;
    EXPECT_EQ(expand_output_path("/logs/%x-%j-%A_%a-%u-%N-%%.log", context),
              "/logs/train-42-40_3-alice-n2-%.log");
}

TEST(OutputPath, ZeroPadsWithWidth) {
    auto context = plain_job();
    context.array_job_id = 40;
    context.array_task_id = 3;
    EXPECT_EQ(expand_output_path("/l/%4a.%6j", context), "/l/0003.000042");
}

TEST(OutputPath, AHugeWidthIsCappedAtTenAsSlurmstepdDoes) {
    // A job owner's pattern: it must neither allocate without bound nor wrap around.
    EXPECT_EQ(expand_output_path("/l/%99999999999j.out", plain_job()), "/l/0000000042.out");
    EXPECT_EQ(expand_output_path("/l/%184467440737095516160j", plain_job()), "/l/0000000042");
    EXPECT_EQ(expand_output_path("/l/%11x", plain_job()), "/l/train");
}

TEST(OutputPath, RelativePatternIsAnchoredAtWorkDir) {
    EXPECT_EQ(expand_output_path("logs/%j.out", plain_job()), "/home/alice/run/logs/42.out");
    auto context = plain_job();
    context.work_dir = "/w/";
    EXPECT_EQ(expand_output_path("o.txt", context), "/w/o.txt");
}

TEST(OutputPath, LeavesStepSpecifiersAndTrailingPercentAlone) {
    EXPECT_EQ(expand_output_path("/l/%t-%s-%", plain_job()), "/l/%t-%s-%");
}

}  // namespace
