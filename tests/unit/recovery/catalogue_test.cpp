// Loading catalogues: layering overrides, and every error naming file, rule and problem.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "recovery/catalogue.h"
#include "test_support.h"
#include "tests/support/temp_dir.h"

namespace recovery {
namespace {

constexpr const char* k_base = R"(
version = 1
[[rule]]
id = "oom"
cause = "cuda_oom"
pattern = 'CUDA out of memory'
source = "test"

[[rule]]
id = "eio"
cause = "io_error"
pattern = 'Errno 5'
source = "test"
)";

common::Result<Catalogue> load(std::vector<CatalogueSource> sources) {
    return Catalogue::from_sources(sources);
}

// The error message must name the file and the rule, and say what is wrong.
void expect_error(const common::Result<Catalogue>& result, const std::string& file,
                  const std::string& rule, const std::string& what) {
    ASSERT_FALSE(result) << "expected an error about " << what;
    const auto& message = result.error().message;
    EXPECT_NE(message.find("'" + file + "'"), std::string::npos) << message;
    if (!rule.empty()) {
        EXPECT_NE(message.find("rule '" + rule + "'"), std::string::npos) << message;
    }
    EXPECT_NE(message.find(what), std::string::npos) << message;
}

TEST(Catalogue, DefaultCatalogueLoadsAndEveryRuleHasASource) {
    const auto& catalogue = test::default_catalogue();
    ASSERT_GT(catalogue.rules().size(), 40U);
    for (const auto& rule : catalogue.rules()) {
        EXPECT_FALSE(rule.source.empty()) << rule.id;
        EXPECT_EQ(rule.origin, SUPERVISOR_DEFAULT_RULES) << rule.id;
    }
}

TEST(Catalogue, DefaultCatalogueCoversEveryCauseButUnknown) {
    const auto& catalogue = test::default_catalogue();
    for (const auto cause : all_causes()) {
        // A slow node is read from a running job's step rate and telemetry, never from a log.
        if (cause == Cause::unknown || cause == Cause::slow_node) {
            continue;
        }
        const bool covered = std::any_of(catalogue.rules().begin(), catalogue.rules().end(),
                                         [cause](const Rule& r) { return r.cause == cause; });
        EXPECT_TRUE(covered) << to_string(cause);
    }
}

TEST(Catalogue, OverridesReplaceAddAndDisable) {
    const auto result = load({{"base.toml", k_base},
                              {"site.toml", R"(
[[rule]]
id = "oom"
cause = "cuda_oom"
pattern = 'OOM!'
priority = 99
source = "site"
[[rule]]
id = "site.new"
cause = "hang"
pattern = 'stuck'
source = "site"
)"},
                              {"user.toml", R"(
[[rule]]
id = "eio"
disabled = true
)"}});
    ASSERT_TRUE(result) << result.error().message;
    ASSERT_EQ(result->rules().size(), 2U);
    EXPECT_EQ(result->rules()[0].id, "oom");
    EXPECT_EQ(result->rules()[0].pattern, "OOM!");
    EXPECT_EQ(result->rules()[0].priority, 99);
    EXPECT_EQ(result->rules()[0].origin, "site.toml");
    EXPECT_EQ(result->rules()[1].id, "site.new");
    EXPECT_EQ(result->find("eio"), nullptr);
}

TEST(Catalogue, DefaultsComeFromTheCause) {
    const auto result = load({{"base.toml", k_base}});
    ASSERT_TRUE(result);
    const auto* oom = result->find("oom");
    ASSERT_NE(oom, nullptr);
    EXPECT_EQ(oom->actions, (std::vector<Action>{{ActionKind::reduce_batch_size, ""},
                                                 {ActionKind::requeue, ""}}));
    EXPECT_GT(oom->priority, 0);
}

TEST(CatalogueErrors, BadRegexCarriesRe2sMessage) {
    const auto result = load({{"site.toml", R"(
[[rule]]
id = "broken"
cause = "hang"
pattern = 'stuck (forever'
source = "x"
)"}});
    expect_error(result, "site.toml", "broken", "pattern does not compile: missing )");
}

TEST(CatalogueErrors, UnknownCause) {
    expect_error(load({{"site.toml", R"(
[[rule]]
id = "r1"
cause = "gremlins"
pattern = 'x'
source = "x"
)"}}),
                 "site.toml", "r1", "unknown cause 'gremlins'");
}

TEST(CatalogueErrors, UnknownAction) {
    expect_error(load({{"user.toml", R"(
[[rule]]
id = "r2"
cause = "hang"
pattern = 'x'
source = "x"
actions = ["requeue", "reboot_cluster"]
)"}}),
                 "user.toml", "r2", "unknown action 'reboot_cluster'");
}

TEST(CatalogueErrors, MissingFields) {
    expect_error(load({{"site.toml", R"(
[[rule]]
id = "r3"
cause = "hang"
source = "x"
)"}}),
                 "site.toml", "r3", "missing field 'pattern'");
    expect_error(load({{"site.toml", R"(
[[rule]]
id = "r4"
cause = "hang"
pattern = 'x'
)"}}),
                 "site.toml", "r4", "missing field 'source'");
    expect_error(load({{"site.toml", R"(
[[rule]]
cause = "hang"
pattern = 'x'
source = "x"
)"}}),
                 "site.toml", "", "rule #1: missing field 'id'");
}

TEST(CatalogueErrors, UnknownKeyCatchesTypos) {
    expect_error(load({{"site.toml", R"(
[[rule]]
id = "r5"
cause = "hang"
pattern = 'x'
source = "x"
prority = 3
)"}}),
                 "site.toml", "r5", "unknown key 'prority'");
}

TEST(CatalogueErrors, WrongTypes) {
    expect_error(load({{"site.toml", R"(
[[rule]]
id = "r6"
cause = "hang"
pattern = 'x'
source = "x"
priority = "high"
)"}}),
                 "site.toml", "r6", "'priority' must be an integer");
    expect_error(load({{"site.toml", R"(
[[rule]]
id = "r7"
cause = "hang"
pattern = 'x'
source = "x"
weight = 1.5
)"}}),
                 "site.toml", "r7", "weight must be in (0, 1]");
    expect_error(load({{"site.toml", R"(
[[rule]]
id = "r8"
cause = "cuda_error"
pattern = 'x'
source = "x"
program_can_cause = "yes"
)"}}),
                 "site.toml", "r8", "'program_can_cause' must be true or false");
}

TEST(CatalogueErrors, CaptureGroupMustExist) {
    expect_error(load({{"site.toml", R"(
[[rule]]
id = "r8"
cause = "gpu_xid"
pattern = 'Xid ([0-9]+)'
xid_group = "xid"
source = "x"
)"}}),
                 "site.toml", "r8", "xid_group 'xid' is not a (?P<xid>...) group");
}

TEST(CatalogueErrors, CodeBugMayOnlyEscalate) {
    expect_error(load({{"site.toml", R"(
[[rule]]
id = "r9"
cause = "code_bug"
pattern = 'KeyError'
source = "x"
actions = ["requeue"]
)"}}),
                 "site.toml", "r9", "only action may be 'escalate'");
}

TEST(CatalogueErrors, DuplicateIdInOneFile) {
    expect_error(load({{"site.toml", R"(
[[rule]]
id = "dup"
cause = "hang"
pattern = 'x'
source = "x"
[[rule]]
id = "dup"
cause = "hang"
pattern = 'y'
source = "x"
)"}}),
                 "site.toml", "dup", "duplicate id");
}

TEST(CatalogueErrors, DisablingAnUnknownRule) {
    expect_error(
        load({{"base.toml", k_base}, {"user.toml", "[[rule]]\nid = \"nope\"\ndisabled = true\n"}}),
        "user.toml", "nope", "disables a rule no earlier file defines");
}

TEST(CatalogueErrors, TomlSyntaxNamesFileLineAndColumn) {
    const auto result = load({{"site.toml", "[[rule]]\nid = \"x\"\ncause = \n"}});
    expect_error(result, "site.toml", "", "line 3");
}

TEST(CatalogueErrors, UnknownTopLevelKeyAndVersion) {
    expect_error(load({{"site.toml", "rules = []\n"}}), "site.toml", "",
                 "unknown top-level key 'rules'");
    expect_error(load({{"site.toml", "version = 2\n"}}), "site.toml", "", "unsupported 'version'");
}

TEST(CatalogueErrors, MissingFileNamesThePath) {
    const std::vector<std::filesystem::path> files{"/nonexistent/site-rules.toml"};
    const auto result = Catalogue::load(files);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("/nonexistent/site-rules.toml"), std::string::npos);
}

TEST(CatalogueScan, OnePassFindsHitsCapturesAndMarkers) {
    const auto result = load({{"t.toml", R"(
[[rule]]
id = "xid"
cause = "gpu_xid"
pattern = 'NVRM: Xid \(PCI:[0-9a-f:]+\): (?P<xid>[0-9]+)'
xid_group = "xid"
source = "x"
)"}});
    ASSERT_TRUE(result) << result.error().message;
    const auto log = LogExcerpt::from_text(
        "k.log",
        "step 5 ok\nMar  3 12:00:01 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1\nbye");
    const auto scan = result->scan(log);
    ASSERT_TRUE(scan);
    ASSERT_EQ(scan->hits.size(), 1U);
    EXPECT_EQ(scan->hits[0].line_number, 2);
    EXPECT_EQ(scan->hits[0].xid, 79);
    EXPECT_EQ(scan->hits[0].node, "n2");
    ASSERT_EQ(scan->markers.size(), 1U);
    EXPECT_EQ(scan->markers[0].kind, MarkerKind::training_step);
    EXPECT_EQ(scan->markers[0].value, "5");
}

// Pasted logs come wrapped at a terminal's width: a message cut in two is still found, at its
// first line, and only for rules neither half matches alone.
TEST(CatalogueScan, AMessageWrappedOntoTheNextLineIsFound) {
    const auto& catalogue = test::default_catalogue();
    const auto wrapped =
        LogExcerpt::from_text("w.log",
                              "epoch 3 starting\n"
                              "RuntimeError: DataLoader worker (pid 47) is killed by signal: Bus\n"
                              "error. It is possible that dataloader's workers are out of shared\n"
                              "memory. Please try to raise your shared memory limit.\n");
    const auto scan = catalogue.scan(wrapped);
    ASSERT_TRUE(scan) << scan.error().message;
    std::vector<std::string> ids;
    for (const auto& hit : scan->hits) {
        ids.push_back(catalogue.rules()[hit.rule].id + "@" + std::to_string(hit.line_number));
    }
    EXPECT_NE(std::ranges::find(ids, "torch.dataloader_bus_error@2"), ids.end())
        << testing::PrintToString(ids);
    // In line order, and each rule once per pair of lines.
    for (std::size_t i = 1; i < scan->hits.size(); ++i) {
        EXPECT_LE(scan->hits[i - 1].line_number, scan->hits[i].line_number);
    }
    EXPECT_EQ(std::ranges::count(ids, std::string("shm.messages@3")) +
                  std::ranges::count(ids, std::string("shm.messages@2")),
              1);
    EXPECT_EQ(test::diagnose_text(std::string(wrapped.text())).cause, Cause::shm_exhausted);

    // A line followed by one that starts a new record (capital, space, digit) is not joined.
    const auto separate = LogExcerpt::from_text(
        "s.log", "RuntimeError: DataLoader worker (pid 47) is killed by signal: Bus\nError ok\n");
    const auto apart = catalogue.scan(separate);
    ASSERT_TRUE(apart);
    for (const auto& hit : apart->hits) {
        EXPECT_NE(catalogue.rules()[hit.rule].id, "torch.dataloader_bus_error");
    }
    // Nor is an indented line (a traceback frame): joined, this pair would read as a full
    // /dev/shm.
    const auto framed = LogExcerpt::from_text(
        "f.log",
        "OSError: [Errno 28] No space left on device while writing the cache\n"
        "  File \"/dev/shm/cache/x.py\", line 3, in write\n");
    const auto frame_apart = catalogue.scan(framed);
    ASSERT_TRUE(frame_apart);
    for (const auto& hit : frame_apart->hits) {
        EXPECT_NE(catalogue.rules()[hit.rule].id, "os.enospc_dev_shm") << hit.text;
    }
}

// A log an owner crafted so that every line continues the one before: each pair is matched once
// more and no more, and every rule the joins reveal is reported once per pair, not once per
// rule the pair already had.
TEST(CatalogueScan, ALogOfNothingButWrappedLinesGivesEachRuleOncePerPair) {
    const auto& catalogue = test::default_catalogue();
    std::string text;
    constexpr int k_lines = 20000;
    for (int i = 0; i < k_lines; ++i) {
        text += "error. DataLoader worker (pid 47) is killed by signal: Bus\n";
    }
    const auto scan = catalogue.scan(LogExcerpt::from_text("hostile.log", text));
    ASSERT_TRUE(scan) << scan.error().message;
    std::size_t joined = 0;
    for (const auto& hit : scan->hits) {
        joined += catalogue.rules()[hit.rule].id == "torch.dataloader_bus_error" ? 1U : 0U;
    }
    EXPECT_EQ(joined, static_cast<std::size_t>(k_lines - 1));
}

// Of a log too large to read whole, the head's last line and the tail's first were far apart in
// the file: never joined, however they read.
TEST(CatalogueScan, TheHeadsLastLineIsNotJoinedWithTheTailsFirst) {
    const test_support::TempDir dir("recovery-catalogue-wrap");
    const auto path = dir.path() / "cut.log";
    {
        std::ofstream out(path, std::ios::binary);
        out << "RuntimeError: DataLoader worker (pid 47) is killed by signal: Bus\n";
        for (int i = 0; i < 2000; ++i) {
            out << "INFO step " << i << " loss 2.31\n";
        }
        out << "error. It is possible that the run went on.\n";
    }
    const auto log = LogExcerpt::read(path, ExcerptLimits{80, 60});
    ASSERT_TRUE(log) << log.error().message;
    ASSERT_FALSE(log->complete());
    ASSERT_GE(log->lines().size(), 2U);
    const auto scan = test::default_catalogue().scan(*log);
    ASSERT_TRUE(scan) << scan.error().message;
    for (const auto& hit : scan->hits) {
        EXPECT_NE(test::default_catalogue().rules()[hit.rule].id, "torch.dataloader_bus_error")
            << hit.text;
    }
}

TEST(CatalogueScan, CountsMatchingLinesAcrossBlocks) {
    std::string text;
    for (int i = 0; i < 5000; ++i) {
        text += (i % 1000 == 7) ? "RuntimeError: CUDA out of memory. Tried to allocate 2 GiB\n"
                                : "INFO nothing to see here, throughput 400 tok/s\n";
    }
    const auto count = test::default_catalogue().count_matching_lines(text);
    ASSERT_TRUE(count);
    EXPECT_EQ(*count, 5U);
}

}  // namespace
}  // namespace recovery
