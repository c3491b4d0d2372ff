// Options before and after the positionals, per command that takes both (issue 32): as with
// every Slurm command, `supervisor register --allow requeue 101 102` means what
// `supervisor register 101 102 --allow requeue` means. An option takes one value per
// occurrence (a comma list, or the option repeated), never the words after it. Each case runs
// the built binary both ways, without a cluster, and expects the same exit status and words
// that show the positionals were read as positionals.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "run_supervisor.h"

namespace cli::test {
namespace {

namespace fs = std::filesystem;

struct Case {
    const char* name;
    std::vector<std::string> command;      // the subcommand
    std::vector<std::string> positionals;  // what must stay positional
    std::vector<std::string> options;      // list-valued options with their values
    std::string words;                     // what the answer says when it read the positionals
};

void PrintTo(const Case& c, std::ostream* out) {
    *out << c.name;
}

// The global options that keep a run off any cluster and state of this machine's.
std::vector<std::string> isolated(const fs::path& dir) {
    return {"--state-dir", (dir / "state").string(), "--slurm-conf",
            (dir / "no-slurm.conf").string()};
}

std::vector<std::string> joined(std::vector<std::string> first,
                                const std::vector<std::string>& second) {
    first.insert(first.end(), second.begin(), second.end());
    return first;
}

class OptionOrder : public ::testing::TestWithParam<Case> {};

TEST_P(OptionOrder, OptionsBeforeThePositionalsLeaveThemPositional) {
    const auto& c = GetParam();
    const auto dir = fresh_directory(c.name);
    write_file(dir / "rules.toml", "");
    std::vector<std::string> options;
    for (const auto& option : c.options) {
        options.push_back(option == "RULES" ? (dir / "rules.toml").string() : option);
    }
    const auto before =
        run_supervisor(joined(joined(isolated(dir), c.command), joined(options, c.positionals)));
    const auto after =
        run_supervisor(joined(joined(isolated(dir), c.command), joined(c.positionals, options)));
    EXPECT_NE((before.out + before.err).find(c.words), std::string::npos)
        << "options first: " << before.out << before.err;
    EXPECT_NE((after.out + after.err).find(c.words), std::string::npos)
        << "options last: " << after.out << after.err;
    EXPECT_EQ(before.status, after.status) << before.err << "\n---\n" << after.err;
    EXPECT_EQ(before.err, after.err);
}

const std::string k_not_a_job = "'notajob' is not a Slurm job id";

INSTANTIATE_TEST_SUITE_P(
    EveryListOption, OptionOrder,
    ::testing::Values(Case{"register_allow",
                           {"register"},
                           {"101", "notajob"},
                           {"--allow", "requeue"},
                           k_not_a_job},
                      Case{"register_allow_equals",
                           {"register"},
                           {"101", "notajob"},
                           {"--allow=requeue"},
                           k_not_a_job},
                      Case{"register_allow_repeated",
                           {"register"},
                           {"101", "notajob"},
                           {"--allow", "requeue,exclude_node", "--allow", "drain_node"},
                           k_not_a_job},
                      Case{"register_knob",
                           {"register"},
                           {"101", "notajob"},
                           {"--knob", "batch_size=64:env=BATCH_SIZE:min=8"},
                           k_not_a_job},
                      Case{"register_notify",
                           {"register"},
                           {"101", "notajob"},
                           {"--notify", "mailto:owner@example.org"},
                           k_not_a_job},
                      // diagnose's one JOBID: CLI11 already left it alone before the fix (it fills
                      // a single positional first); kept so that the order stays free.
                      Case{"diagnose_rules",
                           {"diagnose"},
                           {"1234"},
                           {"--rules", "RULES"},
                           "job 1234 is not registered"}),
    [](const ::testing::TestParamInfo<Case>& param) { return std::string(param.param.name); });

// An option whose value may be left out takes at most one: a second word is an error, not a
// second target; the option is repeated for more.
TEST(OptionValues, AnOptionalValueTakesOneWordAtMost) {
    const auto dir = fresh_directory("send_test");
    const auto run = run_supervisor(joined(
        isolated(dir), {"doctor", "--send-test", "mailto:a@example.org", "mailto:b@example.org"}));
    EXPECT_NE(run.status, 0) << run.out;
    EXPECT_NE(run.err.find("mailto:b@example.org"), std::string::npos) << run.err;
    EXPECT_EQ(run.out.find("notify_test"), std::string::npos) << "nothing was sent: " << run.out;
}

}  // namespace
}  // namespace cli::test
