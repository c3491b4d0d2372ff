// The epilog spool's file names, line times and run window (node_evidence/epilog_file.h) and
// the rule of who may have written a spool file (spool_trust.h): pure functions.
#include "node_evidence/epilog_file.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <chrono>

#include "node_evidence/spool_trust.h"

namespace {

using namespace std::chrono;
using node_evidence::epilog_file_name;
using node_evidence::epilog_line_time;
using node_evidence::keep_window;

// 2026-11-26T01:02:03Z
common::TimePoint at(int hour, int minute, int second) {
    return common::TimePoint{sys_days{year{2026} / November / 26} + hours{hour} + minutes{minute} +
                             seconds{second}};
}

TEST(EpilogFileName, IsTheJobIdAndTheNodesName) {
    EXPECT_EQ(epilog_file_name(4711, "gpu-a17"), "4711.gpu-a17");
    EXPECT_EQ(epilog_file_name(1, "n1.cluster_x"), "1.n1.cluster_x");
}

TEST(EpilogFileName, RefusesWhatCouldNotHaveBeenWritten) {
    for (const auto* node :
         {"", "..", ".hidden", "../n1", "n1/x", "n1\n", "n 1", "-n1", "n1\xc3\xa9"}) {
        EXPECT_FALSE(epilog_file_name(4711, node)) << node;
    }
    EXPECT_FALSE(epilog_file_name(4711, std::string(65, 'n')));
    EXPECT_TRUE(epilog_file_name(4711, std::string(64, 'n')));
    EXPECT_FALSE(epilog_file_name(0, "n1"));
}

TEST(EpilogLineTime, ReadsTheFormsTheEpilogReads) {
    EXPECT_EQ(epilog_line_time("2026-11-26T01:02:03+00:00 n1 kernel: x"), at(1, 2, 3));
    EXPECT_EQ(epilog_line_time("2026-11-26T01:02:03Z n1 kernel: x"), at(1, 2, 3));
    EXPECT_EQ(epilog_line_time("2026-11-26T01:02:03 x"), at(1, 2, 3));
    EXPECT_EQ(epilog_line_time("2026-11-26T01:02:03.123456+00:00 x"), at(1, 2, 3));
    EXPECT_EQ(epilog_line_time("2026-11-26T01:02:03,5+0000 x"), at(1, 2, 3));
    EXPECT_EQ(epilog_line_time("2026-11-26T02:02:03+01:00 x"), at(1, 2, 3));
    EXPECT_EQ(epilog_line_time("2026-11-25T22:32:03-0230 x"), at(1, 2, 3));
}

TEST(EpilogLineTime, RefusesWhatIsNotATimeFollowedByABlank) {
    for (const auto* line :
         {"", "# slurm-supervisor epilog 1: job 1", "Nov 26 01:02:03 n1 kernel: x",
          "1764118923.5 kernel: x", "2026-11-26T01:02:03", "2026-11-26T01:02:03+00:00",
          "2026-11-26T01:02:03+00:00x", "2026-02-30T01:02:03Z x", "2026-13-01T01:02:03Z x",
          "2026-11-26T24:00:00Z x", "2026-11-26T01:60:00Z x", "2026-11-26T01:02:03. x",
          "2026-11-26T01:02:03+24:00 x", "2026-11-26T01:02:03+0 x", "2026-11-26 01:02:03 x",
          "2026-1a-26T01:02:03Z x",
          // Past 2262 a time would wrap into the past (nanoseconds in 64 bits): none past 2200.
          "9999-12-31T23:59:59Z x", "2201-01-01T00:00:00Z x"}) {
        EXPECT_FALSE(epilog_line_time(line)) << line;
    }
}

TEST(KeepWindow, EmptiesWhatIsOutsideAndKeepsTheLineNumbers) {
    const std::string text =
        "# slurm-supervisor epilog 1: job 7 node n1\n"
        "2026-11-26T00:00:00+00:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 31, before\n"
        "2026-11-26T01:00:00+00:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, within\n"
        "no time at all\n"
        "2026-11-26T01:10:00+00:00 n1 nvidia-smi: GPU 00000000:3B:00.0: row remapping failed\n"
        "2026-11-26T03:00:00+00:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 48, after\n";
    const auto kept = keep_window(text, at(0, 30, 0), at(1, 10, 0));
    EXPECT_EQ(kept.text,
              "\n\n2026-11-26T01:00:00+00:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, within\n\n"
              "2026-11-26T01:10:00+00:00 n1 nvidia-smi: GPU 00000000:3B:00.0: row remapping "
              "failed\n\n");
    EXPECT_EQ(kept.kept, 2U);
    EXPECT_EQ(kept.outside, 2U);
    EXPECT_EQ(kept.untimed, 1U);
}

TEST(KeepWindow, TakesTheBoundsAndALastLineWithoutNewline) {
    const auto kept =
        keep_window("2026-11-26T01:02:03Z a\n2026-11-26T01:02:04Z b", at(1, 2, 3), at(1, 2, 4));
    EXPECT_EQ(kept.text, "2026-11-26T01:02:03Z a\n2026-11-26T01:02:04Z b");
    EXPECT_EQ(kept.kept, 2U);
    EXPECT_EQ(keep_window("", at(1, 2, 3), at(1, 2, 4)).text, "");
}

TEST(SpoolTrust, OnlyRootOrTheDaemonAndNobodyElseWriting) {
    using node_evidence::untrusted_because;
    EXPECT_FALSE(untrusted_because(0, S_IFDIR | 0755, 0));
    EXPECT_FALSE(untrusted_because(0, S_IFREG | 0644, 1000));
    EXPECT_FALSE(untrusted_because(1000, S_IFREG | 0600, 1000));
    EXPECT_EQ(untrusted_because(1001, S_IFREG | 0644, 1000),
              "belongs to uid 1001, not to root or uid 1000");
    EXPECT_EQ(untrusted_because(1001, S_IFREG | 0644, 1000, [](uid_t) { return false; }),
              "belongs to uid 1001, not to root, uid 1000 or SlurmUser");
    EXPECT_EQ(untrusted_because(0, S_IFDIR | 01777, 0),
              "can be written by group or others (mode 1777)");
    EXPECT_EQ(untrusted_because(0, S_IFREG | 0664, 0),
              "can be written by group or others (mode 0664)");
}

TEST(SpoolTrust, SlurmUserIsAskedOnlyAboutAnOwnerThatIsNeitherRootNorTheDaemon) {
    using node_evidence::untrusted_because;
    int asked = 0;
    const auto slurm_user = [&asked](uid_t uid) {
        ++asked;
        return uid == 64030;
    };
    EXPECT_FALSE(untrusted_because(64030, S_IFREG | 0644, 0, slurm_user));
    EXPECT_TRUE(untrusted_because(1001, S_IFREG | 0644, 0, slurm_user));
    EXPECT_EQ(asked, 2);
    EXPECT_FALSE(untrusted_because(0, S_IFREG | 0644, 0, slurm_user));
    EXPECT_FALSE(untrusted_because(1000, S_IFREG | 0644, 1000, slurm_user));
    EXPECT_TRUE(untrusted_because(64030, S_IFREG | 0664, 0, slurm_user));  // mode first
    EXPECT_EQ(asked, 2);
}

// Kernel lines quote what users chose: a process's name (15 bytes at most, set with prctl), a
// program's or library's path. None of it may read as a node's hardware fault (issue 32).
TEST(KernelWords, WhatAUserNamedIsNeverTheKernelsWord) {
    using node_evidence::kernel_words;
    const std::string head = "2026-11-26T01:30:00+00:00 n2 kernel: ";
    // Lines that begin with a process's name, or carry paths: emptied.
    for (const char* message :
         {"python3[4242]: segfault at 0 ip 0 sp 0 error 4 in NVRM: Xid (PCI:0): 79.so[7f00+1000]",
          "traps: EDAC MC0: 1 UE [4242] general protection fault ip:0 sp:0 error:0",
          "audit: type=1701 audit(0:1): pid=4242 comm=\"x\" exe=\"/home/u/NVRM: Xid (PCI:0): 79\"",
          "EDAC MC0: 1 UE [4242]: segfault at 0 ip 0 sp 0 error 4"}) {
        EXPECT_EQ(kernel_words(head + message), "") << message;
    }
    // Names inside the kernel's own lines: made '?', the kernel's words kept.
    EXPECT_EQ(kernel_words(head + "NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, name=EDAC MC0: 1 UE , "
                                  "Graphics Exception"),
              head + "NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, name=?, Graphics Exception");
    EXPECT_EQ(kernel_words(head + "NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=,PCIe link down, x"),
              head + "NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=?, x");
    EXPECT_EQ(
        kernel_words(head + "Out of memory: Killed process 4242 (EDAC MC0: 1 UE ) total-vm:1kB"),
        head + "Out of memory: Killed process 4242 (?) total-vm:1kB");
    EXPECT_EQ(kernel_words(head + "PCIe link down invoked oom-killer: gfp_mask=0x0"),
              head + "? invoked oom-killer: gfp_mask=0x0");
    // The kernel's own hardware lines are as they were.
    for (const char* message :
         {"NVRM: GPU 0000:b3:00.0: GPU has fallen off the bus.", "EDAC MC0: 1 UE memory read error",
          "pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received"}) {
        EXPECT_EQ(kernel_words(head + message), head + message) << message;
    }
    // The epilog's own nvidia-smi lines name no process: left as they are.
    const std::string smi =
        "2026-11-26T01:30:00+00:00 n2 nvidia-smi: GPU 00000000:3B:00.0: row "
        "remapping failed";
    EXPECT_EQ(kernel_words(smi), smi);
}

}  // namespace
