// The bounded reader: never more than head + tail bytes, honest line numbers.
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "recovery/log_excerpt.h"
#include "tests/support/temp_dir.h"

namespace recovery {
namespace {

class LogExcerptTest : public ::testing::Test {
  protected:
    std::filesystem::path write(const std::string& name, const std::string& content) {
        const auto path = m_dir.path() / name;
        std::ofstream(path, std::ios::binary) << content;
        return path;
    }

    static std::vector<std::pair<std::int64_t, std::string>> numbered(const LogExcerpt& log) {
        std::vector<std::pair<std::int64_t, std::string>> out;
        for (const auto& line : log.lines()) {
            out.emplace_back(line.number, std::string(log.line_text(line)));
        }
        return out;
    }

    test_support::TempDir m_dir{"recovery-log-excerpt"};
};

TEST_F(LogExcerptTest, SmallFileIsReadWholeWithRealLineNumbers) {
    const auto path = write("small.log", "one\ntwo\r\nthree");
    const auto log = LogExcerpt::read(path);
    ASSERT_TRUE(log) << log.error().message;
    EXPECT_TRUE(log->complete());
    EXPECT_EQ(log->skipped_bytes(), 0U);
    EXPECT_EQ(numbered(*log), (std::vector<std::pair<std::int64_t, std::string>>{
                                  {1, "one"}, {2, "two"}, {3, "three"}}));
}

TEST_F(LogExcerptTest, LargeFileKeepsHeadAndTailOnly) {
    std::string content;
    for (int i = 1; i <= 1000; ++i) {
        content += "line " + std::to_string(i) + "\n";
    }
    const auto path = write("large.log", content);
    const auto log = LogExcerpt::read(path, ExcerptLimits{40, 40});
    ASSERT_TRUE(log) << log.error().message;
    EXPECT_FALSE(log->complete());
    EXPECT_EQ(log->file_size(), content.size());
    EXPECT_GT(log->skipped_bytes(), content.size() - 100);
    const auto lines = numbered(*log);
    // Head: whole lines only, real numbers. "line 1\n".."line 5\n" = 35 bytes; line 6 is cut.
    ASSERT_GE(lines.size(), 6U);
    EXPECT_EQ(lines[0], (std::pair<std::int64_t, std::string>{1, "line 1"}));
    EXPECT_EQ(lines[4], (std::pair<std::int64_t, std::string>{5, "line 5"}));
    // Tail: numbered from the end, the last line is -1.
    EXPECT_EQ(lines.back(), (std::pair<std::int64_t, std::string>{-1, "line 1000"}));
    EXPECT_EQ(lines[lines.size() - 2], (std::pair<std::int64_t, std::string>{-2, "line 999"}));
    for (const auto& [number, text] : lines) {
        EXPECT_TRUE(text.rfind("line ", 0) == 0) << "partial line kept: " << text;
    }
    EXPECT_LE(log->text().size(), 80U);
}

TEST_F(LogExcerptTest, TailStartingOnALineBoundaryKeepsItsFirstLine) {
    // 10 lines of 10 bytes; the last 20 bytes are exactly lines 9 and 10.
    std::string content;
    for (int i = 0; i < 10; ++i) {
        content += "abcdefgh" + std::to_string(i) + "\n";
    }
    const auto log = LogExcerpt::read(write("aligned.log", content), ExcerptLimits{10, 20});
    ASSERT_TRUE(log);
    const auto lines = numbered(*log);
    ASSERT_EQ(lines.size(), 3U);
    EXPECT_EQ(lines[0], (std::pair<std::int64_t, std::string>{1, "abcdefgh0"}));
    EXPECT_EQ(lines[1], (std::pair<std::int64_t, std::string>{-2, "abcdefgh8"}));
    EXPECT_EQ(lines[2], (std::pair<std::int64_t, std::string>{-1, "abcdefgh9"}));
}

TEST_F(LogExcerptTest, MissingFileIsAnErrorNamingThePath) {
    const auto log = LogExcerpt::read("/nonexistent/dir/job-12.out");
    ASSERT_FALSE(log);
    EXPECT_NE(log.error().message.find("/nonexistent/dir/job-12.out"), std::string::npos);
    EXPECT_FALSE(log.error().hint.empty());
}

// A job's output path may name a FIFO (a plain open() would wait for a writer forever) or a
// device that never ends: both are refused at once, naming what they are.
TEST_F(LogExcerptTest, FifoAndDevicesAreRefusedWithoutBlocking) {
    const auto fifo = write("placeholder", "").parent_path() / "output.fifo";
    std::filesystem::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto from_fifo = LogExcerpt::read(fifo, {});
    ASSERT_FALSE(from_fifo);
    EXPECT_NE(from_fifo.error().message.find("is a FIFO"), std::string::npos)
        << from_fifo.error().message;
    ExcerptLimits streams;
    streams.streams_allowed = true;  // `diagnose --log`: still never a device
    for (const auto& limits : {ExcerptLimits{}, streams}) {
        const auto from_zero = LogExcerpt::read("/dev/zero", limits);
        ASSERT_FALSE(from_zero);
        EXPECT_NE(from_zero.error().message.find("/dev/zero is a character device"),
                  std::string::npos)
            << from_zero.error().message;
    }
    std::filesystem::remove(fifo);
}

TEST_F(LogExcerptTest, LimitsNearTheLargestNumberDoNotWrapAround) {
    const auto path = write("small-huge-limits.log", "one\ntwo\n");
    const auto log = LogExcerpt::read(path, ExcerptLimits{~std::uint64_t{0}, 1});
    ASSERT_TRUE(log) << log.error().message;
    EXPECT_TRUE(log->complete());
    EXPECT_EQ(numbered(*log),
              (std::vector<std::pair<std::int64_t, std::string>>{{1, "one"}, {2, "two"}}));
}

TEST_F(LogExcerptTest, FromTextNumbersEveryLine) {
    const auto log = LogExcerpt::from_text("pasted", "a\n\nb\n");
    EXPECT_EQ(numbered(log),
              (std::vector<std::pair<std::int64_t, std::string>>{{1, "a"}, {2, ""}, {3, "b"}}));
    EXPECT_EQ(describe_line_number(-3), "3 from the end");
    EXPECT_EQ(describe_line_number(12), "12");
}

}  // namespace
}  // namespace recovery
