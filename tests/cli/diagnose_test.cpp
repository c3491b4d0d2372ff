// `supervisor diagnose --log ...` as a person runs it: the real binary, the shipped catalogue,
// logs from the diagnosis corpus (tests/data/diagnosis). No cluster, no database, no network.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_supervisor.h"

namespace cli::test {
namespace {

namespace fs = std::filesystem;

std::string corpus_log(const std::string& name) {
    return (fs::path(SUPERVISOR_DIAGNOSIS_CORPUS) / (name + ".log")).string();
}

// Runs diagnose with --json and parses stdout; fails the test on a non-zero exit.
nlohmann::json diagnose_json(std::vector<std::string> args, const fs::path& config_home = {}) {
    args.insert(args.begin(), "diagnose");
    args.push_back("--json");
    const auto run = run_supervisor(args, config_home);
    EXPECT_EQ(run.status, 0) << run.err;
    const auto parsed = nlohmann::json::parse(run.out, nullptr, false);
    EXPECT_FALSE(parsed.is_discarded()) << "not JSON: " << run.out;
    return parsed.is_discarded() ? nlohmann::json::object() : parsed;
}

std::vector<std::string> action_names(const nlohmann::json& diagnosis) {
    std::vector<std::string> names;
    for (const auto& action : diagnosis.at("actions")) {
        names.push_back(action.at("action").get<std::string>());
    }
    return names;
}

std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

// A catalogue file holding one rule.
std::string one_rule(const std::string& id, const std::string& cause, const std::string& pattern) {
    return "version = 1\n[[rule]]\nid = \"" + id + "\"\ncause = \"" + cause + "\"\npattern = '" +
           pattern + "'\nsource = \"cli test\"\n";
}

TEST(DiagnoseJson, XidOutranksTheNcclTimeoutsItCaused) {
    const auto d = diagnose_json({"--log", corpus_log("xid79_among_nccl_timeouts"), "--slurm-state",
                                  "FAILED", "--nodes", "n[1-2]"});
    EXPECT_EQ(d.value("cause", ""), "gpu_xid");
    EXPECT_EQ(d.at("nodes"), nlohmann::json::array({"n2"}));
    EXPECT_EQ(d.at("xid"), 79);
    EXPECT_EQ(d.at("node_condemned"), true);
    EXPECT_EQ(d.at("step"), 90210);
    EXPECT_GT(d.at("confidence").get<double>(), 0.5);
    EXPECT_EQ(action_names(d), (std::vector<std::string>{"exclude_node", "drain_node", "requeue"}));
    EXPECT_EQ(d.at("actions").at(0).at("argument"), "n2");
    ASSERT_FALSE(d.at("evidence").empty());
    const auto& first = d.at("evidence").at(0);
    EXPECT_EQ(first.at("file"), corpus_log("xid79_among_nccl_timeouts"));
    EXPECT_GT(first.at("line").get<int>(), 0);
    EXPECT_NE(first.at("text").get<std::string>().find("Xid"), std::string::npos);
    EXPECT_FALSE(first.at("rule").get<std::string>().empty());
    EXPECT_EQ(first.at("supports_cause"), true);
    bool symptom_shown = false;
    for (const auto& line : d.at("evidence")) {
        symptom_shown |= line.at("supports_cause") == false && line.at("cause") == "nccl_timeout";
    }
    EXPECT_TRUE(symptom_shown) << d.dump(2);
    EXPECT_FALSE(d.value("summary", "").empty());
    EXPECT_TRUE(d.at("slurm_facts").is_array());
}

TEST(DiagnoseJson, CudaOutOfMemoryOnTheElasticRootCauseHost) {
    const auto d = diagnose_json({"--log", corpus_log("cuda_oom_torch2_elastic"), "--slurm-state",
                                  "FAILED", "--exit-code", "1"});
    EXPECT_EQ(d.value("cause", ""), "cuda_oom");
    EXPECT_EQ(d.at("nodes"), nlohmann::json::array({"gpu-a07"}));
    EXPECT_EQ(d.at("xid"), nullptr);
    EXPECT_EQ(d.at("node_condemned"), false);
}

TEST(DiagnoseJson, CodeBugOnlyEscalates) {
    const auto d =
        diagnose_json({"--log", corpus_log("code_shape_mismatch"), "--slurm-state", "failed"});
    EXPECT_EQ(d.value("cause", ""), "code_bug");
    EXPECT_EQ(action_names(d), std::vector<std::string>{"escalate"});
}

TEST(DiagnoseJson, TimeLimitFromSlurmStateAlone) {
    const auto dir = fresh_directory("timeout");
    write_file(dir / "job.out", "epoch 3\nstep 100 loss 2.13\n");
    const auto d = diagnose_json(
        {"--log", (dir / "job.out").string(), "--slurm-state", "TIMEOUT", "--signal", "15"});
    EXPECT_EQ(d.value("cause", ""), "time_limit");
    EXPECT_EQ(d.at("nodes"), nlohmann::json::array());
    EXPECT_EQ(d.at("slurm_facts").at(0), "state TIMEOUT");
    EXPECT_EQ(action_names(d), (std::vector<std::string>{"extend_time_limit", "requeue"}));
}

TEST(DiagnoseJson, NodeDownFromNodeState) {
    const auto dir = fresh_directory("node_down");
    write_file(dir / "job.out", "step 7 loss 1.0\n");
    const auto d =
        diagnose_json({"--log", (dir / "job.out").string(), "--nodes", "n[1-3]", "--node-state",
                       "n2=DOWN*:Not responding", "--node-state", "n1=IDLE"});
    EXPECT_EQ(d.value("cause", ""), "node_failure");
    EXPECT_EQ(d.at("nodes"), nlohmann::json::array({"n2"}));
}

TEST(DiagnoseJson, SeveralLogsAreDiagnosedTogether) {
    const auto d = diagnose_json({"--log", corpus_log("code_shape_mismatch"), "--log",
                                  corpus_log("xid79_among_nccl_timeouts")});
    EXPECT_EQ(d.value("cause", ""), "gpu_xid");
}

TEST(DiagnoseText, ReadsLikeAnOperatorsNote) {
    const std::vector<std::string> args{
        "diagnose", "--log", corpus_log("xid79_among_nccl_timeouts"), "--nodes", "n[1-2]"};
    const auto text = run_supervisor(args);
    ASSERT_EQ(text.status, 0) << text.err;
    auto json_args = args;
    json_args.push_back("--json");
    const auto json = nlohmann::json::parse(run_supervisor(json_args).out);
    EXPECT_EQ(first_line(text.out), json.at("summary").get<std::string>());
    EXPECT_NE(first_line(text.out).find("Xid 79"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("\nEvidence:\n  " + corpus_log("xid79_among_nccl_timeouts") + ":"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("\nNodes: n2"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("\nSuggested actions:\n  1. exclude_node n2\n"), std::string::npos)
        << text.out;
    EXPECT_TRUE(text.err.empty()) << text.err;
}

TEST(DiagnoseText, ControlCharactersInTheLogAreShownNotActedOn) {
    // A log line that clears the terminal and writes a field of its own; a name with a newline.
    const auto dir = fresh_directory("diagnose-escapes");
    const auto log = dir / "job\nNodes: n9.out";
    write_file(log,
               "step 10\n"
               "\x1b[2J\x1b[H[rank0]: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off "
               "the bus.\r\x1b]0;owned\x07\n");
    const auto run = run_supervisor({"diagnose", "--log", log.string()});
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.out.find('\x1b'), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find('\r'), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("\nNodes: n9"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("job\\nNodes: n9.out:2: \\e[2J\\e[H[rank0]: NVRM: Xid"),
              std::string::npos)
        << run.out;
}

TEST(DiagnoseErrors, UnknownSlurmStateListsTheValidOnes) {
    const auto run = run_supervisor(
        {"diagnose", "--log", corpus_log("code_shape_mismatch"), "--slurm-state", "EXPLODED"});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find("'EXPLODED'"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("TIMEOUT"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("OUT_OF_MEMORY"), std::string::npos) << run.err;
    EXPECT_TRUE(run.out.empty());
}

TEST(DiagnoseErrors, UnreadableLogNamesPathAndReason) {
    const auto missing = (fresh_directory("missing") / "no-such.log").string();
    const auto run = run_supervisor({"diagnose", "--log", missing});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find(missing), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("No such file or directory"), std::string::npos) << run.err;
}

TEST(DiagnoseErrors, ADeviceIsRefusedAtOnceNotReadForever) {
    const auto run = run_supervisor({"diagnose", "--log", "/dev/zero"});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find("/dev/zero is a character device"), std::string::npos) << run.err;
}

TEST(DiagnoseErrors, ExcerptSizesPastTheirBoundAreAClearErrorNotAnInternalOne) {
    const auto run = run_supervisor({"diagnose", "--log", corpus_log("code_shape_mismatch"),
                                     "--head-bytes", "18446744073709551615", "--tail-bytes", "1"});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find("at most 1073741824 (1 GiB)"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("internal error"), std::string::npos) << run.err;
}

TEST(DiagnoseErrors, BadNodeStateShowsTheExpectedForm) {
    for (const std::string bad : {"n2DOWN", "=DOWN", "n2=", "n2=DOWN NOW", "n1,n2=DOWN"}) {
        const auto run = run_supervisor(
            {"diagnose", "--log", corpus_log("code_shape_mismatch"), "--node-state", bad});
        EXPECT_EQ(run.status, 1) << bad;
        EXPECT_NE(run.err.find("'" + bad + "'"), std::string::npos) << run.err;
        EXPECT_NE(run.err.find("NODE=STATE[:REASON]"), std::string::npos) << run.err;
    }
}

TEST(DiagnoseErrors, NodeStateOutsideTheJobsNodes) {
    const auto run = run_supervisor({"diagnose", "--log", corpus_log("code_shape_mismatch"),
                                     "--nodes", "n[1-2]", "--node-state", "n9=DOWN"});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find("'n9'"), std::string::npos) << run.err;
}

TEST(DiagnoseErrors, BadHostList) {
    const auto run =
        run_supervisor({"diagnose", "--log", corpus_log("code_shape_mismatch"), "--nodes", "n[1-"});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find("'n[1-'"), std::string::npos) << run.err;
}

TEST(DiagnoseErrors, ExitCodeOutOfRange) {
    const auto run = run_supervisor(
        {"diagnose", "--log", corpus_log("code_shape_mismatch"), "--exit-code", "300"});
    EXPECT_NE(run.status, 0);
    EXPECT_NE(run.err.find("300"), std::string::npos) << run.err;
}

TEST(DiagnoseErrors, NothingToRead) {
    const auto run = run_supervisor({"diagnose", "--log", corpus_log("code_shape_mismatch"),
                                     "--head-bytes", "0", "--tail-bytes", "0"});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find("--head-bytes"), std::string::npos) << run.err;
}

TEST(DiagnoseErrors, NoLogGiven) {
    const auto run = run_supervisor({"diagnose"});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find("--log"), std::string::npos) << run.err;
}

TEST(DiagnoseErrors, UnregisteredJobSaysHowToRegisterOrUseLogs) {
    // An empty state directory of its own: the developer's database must not matter.
    const auto state = fresh_directory("unregistered_state");
    const auto run = run_supervisor({"--state-dir", state.string(), "diagnose", "1234"});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find("job 1234 is not registered"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("supervisor register 1234"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("--log"), std::string::npos) << run.err;
    EXPECT_FALSE(std::filesystem::exists(state / "supervisor.db")) << "nothing may be created";
}

TEST(DiagnoseRules, BrokenCatalogueNamesFileRuleAndProblem) {
    const auto dir = fresh_directory("broken_rules");
    const auto rules = dir / "site-rules.toml";
    write_file(rules, one_rule("site.gremlins", "gremlins", "gremlin"));
    const auto run = run_supervisor(
        {"diagnose", "--log", corpus_log("code_shape_mismatch"), "--rules", rules.string()});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find(rules.string()), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("site.gremlins"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("unknown cause 'gremlins'"), std::string::npos) << run.err;

    write_file(rules, one_rule("site.unbalanced", "io_error", "disk (gone"));
    const auto regex = run_supervisor(
        {"diagnose", "--log", corpus_log("code_shape_mismatch"), "--rules", rules.string()});
    EXPECT_EQ(regex.status, 1);
    EXPECT_NE(regex.err.find(rules.string()), std::string::npos) << regex.err;
    EXPECT_NE(regex.err.find("site.unbalanced"), std::string::npos) << regex.err;
    EXPECT_NE(regex.err.find("pattern"), std::string::npos) << regex.err;
}

TEST(DiagnoseRules, MissingRulesFileNamesPathAndReason) {
    const auto missing = (fresh_directory("missing_rules") / "nope.toml").string();
    const auto run = run_supervisor(
        {"diagnose", "--log", corpus_log("code_shape_mismatch"), "--rules", missing});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find(missing), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("No such file or directory"), std::string::npos) << run.err;
}

TEST(DiagnoseRules, ExtraRulesAddAndLaterFilesOverride) {
    const auto dir = fresh_directory("extra_rules");
    write_file(dir / "job.out", "step 5\nFATAL: quuxfs OST0007 evicted us\n");
    write_file(dir / "a.toml", one_rule("site.lustre_evicted", "hang", "OST[0-9]+ evicted"));
    write_file(dir / "b.toml", one_rule("site.lustre_evicted", "io_error", "OST[0-9]+ evicted"));
    const auto first =
        diagnose_json({"--log", (dir / "job.out").string(), "--rules", (dir / "a.toml").string()});
    EXPECT_EQ(first.value("cause", ""), "hang");
    const auto both =
        diagnose_json({"--log", (dir / "job.out").string(), "--rules", (dir / "a.toml").string(),
                       "--rules", (dir / "b.toml").string()});
    EXPECT_EQ(both.value("cause", ""), "io_error");
    EXPECT_EQ(both.at("evidence").at(0).at("rule"), "site.lustre_evicted");
}

TEST(DiagnoseRules, UserFileUnderXdgConfigHome) {
    const auto dir = fresh_directory("user_rules");
    write_file(dir / "job.out", "step 5\nFATAL: quuxfs OST0007 evicted us\n");
    const auto config = dir / "config";
    write_file(config / "slurm-supervisor" / "rules.toml",
               one_rule("user.lustre_evicted", "io_error", "OST[0-9]+ evicted"));
    const auto d = diagnose_json({"--log", (dir / "job.out").string()}, config);
    EXPECT_EQ(d.value("cause", ""), "io_error");
}

TEST(DiagnoseRules, InstalledBinaryUsesTheCatalogueBesideIt) {
    // <prefix>/bin/supervisor finds <prefix>/share/slurm-supervisor/rules/default.toml before
    // the source-tree fallback compiled into it.
    const auto prefix = fresh_directory("prefix");
    fs::create_directories(prefix / "bin");
    fs::copy_file(SUPERVISOR_BINARY, prefix / "bin" / "supervisor");
    write_file(prefix / "share" / "slurm-supervisor" / "rules" / "default.toml",
               one_rule("installed.marker", "preemption", "Shape mismatch|size mismatch"));
    const auto run =
        run_supervisor({"diagnose", "--log", corpus_log("code_shape_mismatch"), "--json"}, {},
                       prefix / "bin" / "supervisor");
    ASSERT_EQ(run.status, 0) << run.err;
    const auto d = nlohmann::json::parse(run.out);
    EXPECT_EQ(d.value("cause", ""), "preemption") << run.out;
}

}  // namespace
}  // namespace cli::test
