// A claim in doc/ is a promise a test keeps: the `supervisor doctor` example of
// doc/operations.md shows what this binary prints of the two facts that change with the code,
// the number of diagnosis rules it loads and the schema version of the database it opens
// (issue 32 found 63 and 4 there while the code had 158 and 9).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "run_supervisor.h"
#include "state/store.h"

namespace cli::test {
namespace {

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The line of `output` that starts with `prefix`, from `from` on; empty when there is none.
std::string line_part(const std::string& output, const std::string& prefix,
                      const std::string& from) {
    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.starts_with(prefix) && line.find(from) != std::string::npos) {
            return line.substr(line.find(from));
        }
    }
    return {};
}

TEST(DocExamples, TheDoctorExampleShowsThisBinarysRulesAndSchema) {
    const auto doc =
        read_file(std::filesystem::path(SUPERVISOR_SOURCE_DIR) / "doc" / "operations.md");
    ASSERT_FALSE(doc.empty());
    const auto dir = fresh_directory("doctor_example");
    std::filesystem::create_directories(dir / "state");
    ASSERT_TRUE(state::Store::open(dir / "state" / state::k_database_file_name));
    const auto run = run_supervisor({"--state-dir", (dir / "state").string(), "--slurm-conf",
                                     (dir / "no-slurm.conf").string(), "doctor"});
    const auto rules = line_part(run.out, "ok    rules: ", "ok    rules: ");
    ASSERT_FALSE(rules.empty()) << run.out << run.err;
    EXPECT_NE(doc.find(rules + "\n"), std::string::npos)
        << "doc/operations.md's doctor example should show `" << rules << "`";
    const auto schema = line_part(run.out, "ok    database: ", ", schema version ");
    ASSERT_FALSE(schema.empty()) << run.out << run.err;
    EXPECT_NE(doc.find(schema + "\n"), std::string::npos)
        << "doc/operations.md's doctor example should show `" << schema << "`";
}

}  // namespace
}  // namespace cli::test
