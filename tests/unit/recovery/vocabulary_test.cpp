// Stable ids of causes and actions, the Xid table and host lists.
#include <gtest/gtest.h>

#include "recovery/cause.h"
#include "recovery/hostlist.h"
#include "recovery/xid.h"

namespace recovery {
namespace {

TEST(Vocabulary, CauseIdsRoundTripAndAreTheDesignedOnes) {
    const std::vector<std::string_view> expected{
        "cuda_oom",   "host_oom",  "shm_exhausted",      "nccl_timeout", "nccl_network",
        "gpu_xid",    "ecc_error", "cuda_error",         "node_failure", "time_limit",
        "preemption", "io_error",  "checkpoint_corrupt", "loss_nan",     "credential_error",
        "hang",       "slow_node", "code_bug",           "unknown"};
    ASSERT_EQ(all_causes().size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(to_string(all_causes()[i]), expected[i]);
        EXPECT_EQ(cause_from_string(expected[i]), all_causes()[i]);
    }
    EXPECT_FALSE(cause_from_string("CUDA_OOM"));
    EXPECT_FALSE(cause_from_string(""));
}

TEST(Vocabulary, ActionIdsRoundTrip) {
    const std::vector<std::string_view> expected{"requeue",           "exclude_node",
                                                 "reduce_batch_size", "reduce_workers",
                                                 "set_env",           "restore_older_checkpoint",
                                                 "extend_time_limit", "drain_node",
                                                 "resubmit",          "cancel",
                                                 "exclude_slow_node", "escalate"};
    ASSERT_EQ(all_actions().size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(to_string(all_actions()[i]), expected[i]);
        EXPECT_EQ(action_from_string(expected[i]), all_actions()[i]);
    }
}

TEST(Vocabulary, ParsesActionsWithArguments) {
    EXPECT_EQ(parse_action("requeue"), (Action{ActionKind::requeue, ""}));
    EXPECT_EQ(parse_action("set_env:NCCL_SOCKET_IFNAME"),
              (Action{ActionKind::set_env, "NCCL_SOCKET_IFNAME"}));
    EXPECT_FALSE(parse_action("set_env:"));
    EXPECT_FALSE(parse_action("reboot"));
    EXPECT_EQ(to_string(Action{ActionKind::exclude_node, "n1,n2"}), "exclude_node:n1,n2");
}

TEST(Vocabulary, CodeBugAndUnknownAreNeverAutoFixed) {
    EXPECT_FALSE(is_auto_fixable(Cause::code_bug));
    EXPECT_FALSE(is_auto_fixable(Cause::unknown));
    EXPECT_TRUE(is_auto_fixable(Cause::cuda_oom));
}

TEST(XidTable, CoversTheRequiredCodesWithTheirVerdicts) {
    for (const int code : {13, 31, 43, 45, 48, 61, 62, 63, 64, 74, 79, 92, 94, 95}) {
        EXPECT_TRUE(find_xid(code)) << code;
    }
    for (const int code : {48, 64, 79, 95, 74, 92}) {
        EXPECT_TRUE(xid_condemns_node(code)) << code;
    }
    for (const int code : {13, 31, 43, 45, 63, 94}) {
        EXPECT_FALSE(xid_condemns_node(code)) << code;
    }
    EXPECT_EQ(find_xid(13)->severity, XidSeverity::application);
    EXPECT_EQ(find_xid(63)->severity, XidSeverity::recoverable);
    EXPECT_FALSE(find_xid(12345));
    EXPECT_FALSE(xid_condemns_node(12345));
}

TEST(Hostlist, ExpandsRangesListsAndPadding) {
    EXPECT_EQ(*expand_hostlist("n[1-3,7],gpu05"),
              (std::vector<std::string>{"n1", "n2", "n3", "n7", "gpu05"}));
    EXPECT_EQ(*expand_hostlist("gpu[08-10]"),
              (std::vector<std::string>{"gpu08", "gpu09", "gpu10"}));
    EXPECT_EQ(*expand_hostlist("rack1-n[2-3]-ib"),
              (std::vector<std::string>{"rack1-n2-ib", "rack1-n3-ib"}));
    EXPECT_TRUE(expand_hostlist("")->empty());
}

TEST(Hostlist, RejectsMalformedLists) {
    const auto unbalanced = expand_hostlist("n[1-3");
    ASSERT_FALSE(unbalanced);
    EXPECT_NE(unbalanced.error().message.find("n[1-3"), std::string::npos);
    EXPECT_FALSE(expand_hostlist("n[3-1]"));
    EXPECT_FALSE(expand_hostlist("n[a-b]"));
    EXPECT_FALSE(expand_hostlist("n[0-99999999]"));
}

// Found by fuzz/hostlist_fuzzer.cpp: at the top of unsigned long the range loop never ended
// (n <= 18446744073709551615 always holds) and the size check wrapped around to 0, so these
// lists expanded until memory ran out instead of giving their names or the "too many" error.
TEST(Hostlist, RangesAtTheTopOfTheNumberType) {
    const auto top = expand_hostlist("n[18446744073709551615]");
    ASSERT_TRUE(top);
    EXPECT_EQ(*top, (std::vector<std::string>{"n18446744073709551615"}));
    const auto pair = expand_hostlist("n[18446744073709551614-18446744073709551615]");
    ASSERT_TRUE(pair);
    EXPECT_EQ(*pair, (std::vector<std::string>{"n18446744073709551614", "n18446744073709551615"}));
    EXPECT_FALSE(expand_hostlist("n[0-18446744073709551615]"));
    EXPECT_FALSE(expand_hostlist("a,n[1-18446744073709551615]"));
    EXPECT_FALSE(expand_hostlist("n[0-99998],m[1-2]"));
    EXPECT_EQ(expand_hostlist("n[0-99998],m[1]")->size(), k_max_hosts);
}

TEST(Hostlist, ShortNames) {
    EXPECT_EQ(short_node_name("node02.cluster.internal"), "node02");
    EXPECT_EQ(short_node_name("n2"), "n2");
    EXPECT_EQ(short_node_name("10.0.0.2"), "10.0.0.2");
}

}  // namespace
}  // namespace recovery
