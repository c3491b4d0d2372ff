// EpilogSpool over real files in a temp dir: the node's file becomes a kernel log of that node
// with the run's window only; missing files, links, FIFOs, files others could have written and
// oversized files are notes, never reads. Times are fixed (no wall clock).
#include "node_evidence/epilog_spool.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/temp_dir.h"
#include "tests/support/text.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono;
using node_evidence::EpilogSpool;
using node_evidence::EpilogSpoolOptions;
using node_evidence::Found;
using node_evidence::Request;
using test_support::contains;

common::TimePoint at(int hour, int minute) {
    return common::TimePoint{sys_days{year{2026} / November / 26} + hours{hour} + minutes{minute}};
}

constexpr const char* k_xid =
    "2026-11-26T01:30:00+00:00 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, "
    "name=python3, GPU has fallen off the bus.";
// k_xid as the rules read it: the process's own name is not the kernel's word (kernel_words()).
constexpr const char* k_xid_as_read =
    "2026-11-26T01:30:00+00:00 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=?, GPU "
    "has fallen off the bus.";

std::string all_notes(const Found& found) {
    std::string text;
    for (const auto& note : found.notes) {
        text += note + "\n";
    }
    return text;
}

class EpilogSpoolTest : public ::testing::Test {
  protected:
    void SetUp() override {
        fs::create_directory(spool());
        fs::permissions(spool(), fs::perms(0755));
        m_options.directory = spool();
        m_options.margin = seconds{60};
        m_options.self = ::geteuid();
        m_request.job = "4711";
        m_request.slurm_job_id = 4711;
        m_request.nodes = {"n1", "n2", "n3"};
        m_request.start = at(1, 0);
        m_request.end = at(2, 0);
    }
    fs::path spool() const { return m_top.path() / "spool"; }
    void write(const std::string& name, const std::string& text, unsigned mode = 0644) {
        std::ofstream(spool() / name, std::ios::binary) << text;
        fs::permissions(spool() / name, fs::perms(mode));
    }
    Found gather() { return EpilogSpool(m_options).gather(m_request); }

    test_support::TempDir m_top{"epilog-spool-test"};
    EpilogSpoolOptions m_options;
    Request m_request;
};

TEST_F(EpilogSpoolTest, TheNodesFileIsAKernelLogOfThatNodeWithTheRunsWindowOnly) {
    write("4711.n2", std::string("# slurm-supervisor epilog 1: job 4711 node n2\n") +
                         "2026-11-26T00:59:30+00:00 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 13, "
                         "within the margin\n"
                         "2026-11-26T00:30:00+00:00 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 31, "
                         "an earlier job's\n" +
                         k_xid + "\n");
    const auto found = gather();
    ASSERT_EQ(found.kernel_logs.size(), 1U) << all_notes(found);
    const auto& log = found.kernel_logs[0];
    EXPECT_EQ(log.node(), "n2");
    EXPECT_EQ(log.name(), (spool() / "4711.n2").string());
    ASSERT_EQ(log.lines().size(), 4U);
    EXPECT_EQ(log.line_text(log.lines()[0]), "");
    EXPECT_TRUE(contains(std::string(log.line_text(log.lines()[1])), "within the margin"));
    EXPECT_EQ(log.line_text(log.lines()[2]), "");  // before the window: emptied, numbered
    EXPECT_EQ(log.line_text(log.lines()[3]), k_xid_as_read);
    EXPECT_EQ(log.lines()[3].number, 4);
    // n1 and n3 have no file: one note names both.
    ASSERT_EQ(found.notes.size(), 1U) << all_notes(found);
    EXPECT_TRUE(contains(found.notes[0], "no file for n1, n3")) << found.notes[0];
}

TEST_F(EpilogSpoolTest, AFileWithNothingInTheWindowAddsNothing) {
    write("4711.n1", "# header only\n");
    write("4711.n2", "2026-11-25T01:30:00+00:00 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 79, x\n");
    write("4711.n3", "");
    const auto found = gather();
    EXPECT_TRUE(found.kernel_logs.empty());
    EXPECT_TRUE(found.notes.empty()) << all_notes(found);
}

TEST_F(EpilogSpoolTest, AnArrayTaskIsFoundByItsOwnJobId) {
    m_request.job = "4700_3";
    write("4700.n2", std::string(k_xid) + "\n");  // the array's id: not this run's file
    write("4711.n2", std::string(k_xid) + "\n");
    const auto found = gather();
    ASSERT_EQ(found.kernel_logs.size(), 1U) << all_notes(found);
    EXPECT_EQ(found.kernel_logs[0].name(), (spool() / "4711.n2").string());

    m_request.slurm_job_id = 0;
    const auto unknown = gather();
    EXPECT_TRUE(unknown.kernel_logs.empty());
    ASSERT_EQ(unknown.notes.size(), 1U);
    EXPECT_TRUE(contains(unknown.notes[0], "job id is not known")) << unknown.notes[0];
}

TEST_F(EpilogSpoolTest, ARunThatHasNotEndedHasNoFilesYet) {
    // A stall is diagnosed while the job runs: a file of this job id is an earlier run's.
    write("4711.n2", std::string(k_xid) + "\n");
    m_request.run_ended = false;
    const auto found = gather();
    EXPECT_TRUE(found.kernel_logs.empty());
    ASSERT_EQ(found.notes.size(), 1U);
    EXPECT_TRUE(contains(found.notes[0], "the run has not ended")) << found.notes[0];
}

TEST_F(EpilogSpoolTest, LinksAndFifosAreRefusedWithoutBeingFollowedOrOpened) {
    write("elsewhere", std::string(k_xid) + "\n");
    fs::create_symlink(spool() / "elsewhere", spool() / "4711.n1");
    ASSERT_EQ(::mkfifo((spool() / "4711.n2").c_str(), 0644), 0);  // would block a plain open
    fs::create_directory(spool() / "4711.n3");
    const auto found = gather();
    EXPECT_TRUE(found.kernel_logs.empty());
    const auto notes = all_notes(found);
    EXPECT_TRUE(contains(notes, "4711.n1 not read: it is a symbolic link")) << notes;
    EXPECT_TRUE(contains(notes, "4711.n2 not read: it is a FIFO")) << notes;
    EXPECT_TRUE(contains(notes, "4711.n3 not read: it is a directory")) << notes;
}

TEST_F(EpilogSpoolTest, ASpoolThatIsALinkIsNotRead) {
    write("4711.n2", std::string(k_xid) + "\n");
    fs::create_directory_symlink(spool(), m_top.path() / "link");
    m_options.directory = m_top.path() / "link";
    const auto found = gather();
    EXPECT_TRUE(found.kernel_logs.empty());
    ASSERT_EQ(found.notes.size(), 1U);
    EXPECT_TRUE(contains(found.notes[0], "not read: it is a symbolic link")) << found.notes[0];
}

TEST_F(EpilogSpoolTest, WhatOthersCouldHaveWrittenIsNotBelieved) {
    write("4711.n2", std::string(k_xid) + "\n", 0664);
    auto found = gather();
    EXPECT_TRUE(found.kernel_logs.empty());
    EXPECT_TRUE(contains(all_notes(found),
                         "4711.n2 not read: it can be written by group or others (mode 0664)"))
        << all_notes(found);

    fs::permissions(spool() / "4711.n2", fs::perms(0644));
    fs::permissions(spool(), fs::perms(01777));
    found = gather();
    EXPECT_TRUE(found.kernel_logs.empty());
    ASSERT_EQ(found.notes.size(), 1U) << all_notes(found);
    EXPECT_TRUE(contains(found.notes[0], "it can be written by group or others (mode 1777)"))
        << found.notes[0];

    fs::permissions(spool(), fs::perms(0755));
    m_options.self = ::geteuid() + 1;  // as if another user's daemon read the files
    found = gather();
    if (::geteuid() == 0) {
        EXPECT_EQ(found.kernel_logs.size(), 1U) << "root's files are trusted by everyone";
    } else {
        EXPECT_TRUE(found.kernel_logs.empty());
        EXPECT_TRUE(contains(all_notes(found), "belongs to uid " + std::to_string(::geteuid())))
            << all_notes(found);
    }
}

TEST_F(EpilogSpoolTest, SlurmUsersFilesAreTrustedWhenSlurmctldSaysSo) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root to give a file to another uid";
    }
    // Where root cannot write the shared file system, the epilog writes as SlurmUser.
    write("4711.n2", std::string(k_xid) + "\n");
    ASSERT_EQ(::chown((spool() / "4711.n2").c_str(), 64030, 64030), 0);
    ASSERT_EQ(::chown(spool().c_str(), 64030, 64030), 0);
    auto found = gather();
    EXPECT_TRUE(found.kernel_logs.empty());
    EXPECT_TRUE(contains(all_notes(found), "belongs to uid 64030, not to root or uid 0"))
        << all_notes(found);

    m_options.also_trusted = [](uid_t uid) { return uid == 64030; };
    found = gather();
    EXPECT_EQ(found.kernel_logs.size(), 1U) << all_notes(found);
    m_options.also_trusted = [](uid_t) { return false; };
    found = gather();
    EXPECT_TRUE(contains(all_notes(found), "not to root, uid 0 or SlurmUser")) << all_notes(found);
}

TEST_F(EpilogSpoolTest, ABigFileIsReadFromItsEndOnly) {
    std::string text;
    for (int i = 0; i < 20000; ++i) {
        text += "2026-11-26T01:00:00+00:00 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 31, old " +
                std::to_string(i) + "\n";
    }
    text += std::string(k_xid) + "\n";
    write("4711.n2", text);
    m_options.max_file_bytes = 4096;
    const auto found = gather();
    ASSERT_EQ(found.kernel_logs.size(), 1U) << all_notes(found);
    const auto& log = found.kernel_logs[0];
    EXPECT_LE(log.text().size(), 4096U);
    EXPECT_EQ(log.line_text(log.lines().back()), k_xid_as_read);
    EXPECT_FALSE(contains(std::string(log.line_text(log.lines().front())), "old 19900"))
        << "the cut first line is dropped, not kept in part";
    EXPECT_TRUE(contains(all_notes(found), "only its last 4 KiB were read")) << all_notes(found);
}

TEST_F(EpilogSpoolTest, TheTotalReadIsBounded) {
    for (const auto* node : {"n1", "n2", "n3"}) {
        write(std::string("4711.") + node, std::string(k_xid) + "\n" + std::string(k_xid) + "\n");
    }
    // n1's two lines (242 bytes), then the last 58 bytes of n2's (a cut line: dropped), then
    // nothing of n3's.
    m_options.max_total_bytes = 300;
    const auto found = gather();
    EXPECT_EQ(found.kernel_logs.size(), 1U) << all_notes(found);
    EXPECT_TRUE(contains(all_notes(found), "4711.n2 is 242 bytes; only its last 58 bytes"))
        << all_notes(found);
    EXPECT_TRUE(contains(all_notes(found), "4711.n3 not read: 300 bytes were read from the spool"))
        << all_notes(found);

    m_options.max_total_bytes = 1 << 20;
    m_options.max_nodes = 1;
    const auto first = gather();
    EXPECT_EQ(first.kernel_logs.size(), 1U);
    EXPECT_TRUE(contains(all_notes(first), "only the files of the first 1 of the run's 3 nodes"))
        << all_notes(first);
}

TEST_F(EpilogSpoolTest, AMissingSpoolOrAnOddNodeNameIsANote) {
    m_request.nodes = {"../n2"};
    auto found = gather();
    ASSERT_EQ(found.notes.size(), 1U);
    EXPECT_TRUE(contains(found.notes[0], "node name '../n2' cannot name an epilog file"));

    m_options.directory = m_top.path() / "missing";
    found = gather();
    ASSERT_EQ(found.notes.size(), 1U);
    EXPECT_TRUE(contains(found.notes[0], "not read: No such file or directory")) << found.notes[0];
}

}  // namespace
