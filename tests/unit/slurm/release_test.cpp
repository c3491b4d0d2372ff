// Release parsing and the protocol window between a client and slurmctld.
#include "slurm/release.h"

#include <gtest/gtest.h>

namespace {

using slurm::Compatibility;
using slurm::Release;

TEST(Release, ParsesWhatSlurmPrints) {
    EXPECT_EQ(slurm::parse_release("24.11.5"), (Release{24, 11, 5}));
    EXPECT_EQ(slurm::parse_release("22.05.8"), (Release{22, 5, 8}));
    EXPECT_EQ(slurm::parse_release("25.05.0-0rc1"), (Release{25, 5, 0}));
    EXPECT_EQ(slurm::parse_release("23.02"), (Release{23, 2, 0}));
    EXPECT_FALSE(slurm::parse_release(""));
    EXPECT_FALSE(slurm::parse_release("slurm 24.11.5"));
    EXPECT_FALSE(slurm::parse_release("24"));
    EXPECT_FALSE(slurm::parse_release("24."));
    EXPECT_EQ((Release{22, 5, 8}).to_string(), "22.05.8");
    EXPECT_EQ((Release{24, 11, 5}).family_string(), "24.11");
}

TEST(Release, CompiledReleaseIsTheHeadersOne) {
    const auto compiled = slurm::compiled_release();
    // Every release this project supports: 22.05 and later (slurm/detail/libslurm.h refuses
    // older headers at compile time).
    EXPECT_GE(compiled, (Release{22, 5, 0}));
    EXPECT_TRUE(slurm::families_between(compiled, compiled).has_value());
}

TEST(Release, FamiliesAreCountedInSlurmsReleaseOrder) {
    EXPECT_EQ(slurm::families_between({22, 5, 0}, {23, 2, 0}), 1);
    EXPECT_EQ(slurm::families_between({22, 5, 0}, {24, 11, 5}), 4);  // 23.02 23.11 24.05 24.11
    EXPECT_EQ(slurm::families_between({24, 11, 0}, {22, 5, 0}), -4);
    EXPECT_EQ(slurm::families_between({21, 8, 0}, {22, 5, 0}), 1);
    EXPECT_EQ(slurm::families_between({25, 5, 0}, {26, 5, 0}), 2);  // 25.11 26.05
    EXPECT_EQ(slurm::families_between({25, 11, 0}, {27, 11, 0}), 4);
    EXPECT_FALSE(slurm::families_between({22, 11, 0}, {23, 2, 0}));  // never released
}

// Found by fuzz/registration_values_fuzzer.cpp: a release slurmctld reports with a huge major
// (a corrupt or hostile version string) made the family index overflow int (undefined
// behaviour; in practice a negative index, so a distance to compare as if it were real).
TEST(Release, HugeMajorsAreNoFamily) {
    const auto huge = slurm::parse_release("2119223385.05.0");
    ASSERT_TRUE(huge);
    EXPECT_FALSE(slurm::families_between({25, 11, 0}, *huge));
    EXPECT_FALSE(slurm::families_between(*huge, {25, 11, 0}));
    EXPECT_FALSE(slurm::families_between({24, 11, 0}, {2147483647, 11, 0}));
    EXPECT_EQ(slurm::check_compatibility({24, 11, 5}, *huge).compatibility,
              Compatibility::unsupported);
    EXPECT_EQ(slurm::check_compatibility(*huge, {24, 11, 5}).compatibility,
              Compatibility::unsupported);
    // Far-future families that fit are still counted.
    EXPECT_EQ(slurm::families_between({25, 11, 0}, {1000, 5, 0}), 1949);
}

TEST(Release, SlurmctldAcceptsTwoFamiliesBackBefore2411AndThreeFrom2411) {
    EXPECT_EQ(slurm::families_accepted_back({23, 11, 10}), 2);
    EXPECT_EQ(slurm::families_accepted_back({24, 5, 6}), 2);
    EXPECT_EQ(slurm::families_accepted_back({24, 11, 0}), 3);
    EXPECT_EQ(slurm::families_accepted_back({25, 5, 2}), 3);
}

TEST(Release, CompatibilityOfEachPair) {
    auto verdict = [](Release client, Release controller) {
        return slurm::check_compatibility(client, controller).compatibility;
    };
    EXPECT_EQ(verdict({22, 5, 8}, {22, 5, 11}), Compatibility::same);
    EXPECT_EQ(verdict({24, 11, 5}, {24, 11, 0}), Compatibility::same);  // micro does not count
    EXPECT_EQ(verdict({22, 5, 8}, {23, 11, 1}), Compatibility::older_client);  // 2 back of 23.11
    EXPECT_EQ(verdict({22, 5, 8}, {24, 5, 0}), Compatibility::unsupported);    // 3 back of 24.05
    EXPECT_EQ(verdict({23, 2, 0}, {24, 11, 5}), Compatibility::older_client);  // 3 back of 24.11
    EXPECT_EQ(verdict({22, 5, 8}, {24, 11, 5}), Compatibility::unsupported);   // 4 back
    EXPECT_EQ(verdict({24, 11, 5}, {22, 5, 8}), Compatibility::unsupported);   // newer client
    EXPECT_EQ(verdict({24, 11, 5}, {22, 11, 0}), Compatibility::unsupported);  // unknown family

    const auto refused = slurm::check_compatibility({22, 5, 8}, {24, 11, 5});
    EXPECT_NE(refused.explanation.find("22.05.8"), std::string::npos) << refused.explanation;
    EXPECT_NE(refused.explanation.find("24.11.5"), std::string::npos) << refused.explanation;
    EXPECT_NE(refused.fix.find("Slurm 24.11"), std::string::npos) << refused.fix;
    const auto newer = slurm::check_compatibility({24, 11, 5}, {22, 5, 8});
    EXPECT_NE(newer.fix.find("Slurm 22.05"), std::string::npos) << newer.fix;
    EXPECT_TRUE(slurm::check_compatibility({22, 5, 8}, {22, 5, 8}).fix.empty());
}

}  // namespace
