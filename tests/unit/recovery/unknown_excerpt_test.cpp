// An `unknown` diagnosis escalates with the lines a person reads first (unknown_excerpt.h):
// the first and last exception, each node's last kernel line, else the end of the output.
#include <gtest/gtest.h>

#include "recovery/unknown_excerpt.h"
#include "test_support.h"

namespace recovery {
namespace {

std::vector<std::string> excerpt_texts(const std::vector<EvidenceLine>& lines) {
    std::vector<std::string> out;
    for (const auto& line : lines) {
        EXPECT_FALSE(line.supports_cause) << line.text;
        out.push_back(line.text);
    }
    return out;
}

TEST(UnknownExcerpt, AnUnrecognisedEndShowsTheLastLinesOfTheOutput) {
    const auto diagnosis = test::diagnose_text(
        "epoch 1 step 10 loss 2.3\nstep 11 loss 2.2\nworker exited\n\nbye now\n\n");
    ASSERT_EQ(diagnosis.cause, Cause::unknown);
    EXPECT_EQ(excerpt_texts(diagnosis.evidence),
              (std::vector<std::string>{"step 11 loss 2.2", "worker exited", "bye now"}));
    EXPECT_NE(diagnosis.summary.find("read first: job.out line 2"), std::string::npos)
        << diagnosis.summary;
    EXPECT_EQ(diagnosis.suggested_actions, (std::vector{Action{ActionKind::escalate, {}}}));
}

TEST(UnknownExcerpt, TheFirstAndLastExceptionsAndEachNodesKernelLine) {
    Evidence evidence;
    evidence.logs.push_back(LogExcerpt::from_text("job.out", "a\nb\nc\n"));
    auto kernel = LogExcerpt::from_text("n2.kern", "boot\nsomething odd on the bus\n");
    kernel.set_node("n2");
    evidence.logs.push_back(std::move(kernel));
    const std::vector<EvidenceLine> exceptions{
        {"job.out", 4, "1: OddError: first", "excerpt.exception", Cause::unknown, false},
        {"job.out", 9, "0: OtherError: second", "excerpt.exception", Cause::unknown, false},
        {"job.out", 12, "2: LastError: third", "excerpt.exception", Cause::unknown, false}};
    EXPECT_EQ(excerpt_texts(unknown_excerpt(evidence, exceptions)),
              (std::vector<std::string>{"1: OddError: first", "2: LastError: third",
                                        "something odd on the bus"}));
}

TEST(UnknownExcerpt, NeverMoreThanItsCap) {
    Evidence evidence;
    for (int i = 0; i < 5; ++i) {
        evidence.logs.push_back(LogExcerpt::from_text("log" + std::to_string(i), "x\ny\nz\nw\n"));
    }
    EXPECT_EQ(unknown_excerpt(evidence, {}).size(), k_max_unknown_excerpt_lines);
    EXPECT_TRUE(unknown_excerpt(Evidence{}, {}).empty());
}

// A log line is its owner's and may be megabytes: the journal and the owner's message get a cut
// of it, whether no rule knew the line or one did.
TEST(DiagnosisEvidence, AMegabyteLogLineIsCutNotRepeated) {
    const std::string huge(2 * 1024 * 1024, 'x');
    for (const auto& log :
         {"step 1 loss 2.3\n" + huge + "\n",
          "RuntimeError: CUDA error: unspecified launch failure " + huge + "\n"}) {
        const auto diagnosis = test::diagnose_text(log);
        ASSERT_FALSE(diagnosis.evidence.empty()) << diagnosis.summary;
        for (const auto& line : diagnosis.evidence) {
            EXPECT_LE(line.text.size(), k_max_evidence_text_bytes + 40) << line.rule_id;
        }
        EXPECT_NE(diagnosis.evidence.front().text.find("bytes in all)"), std::string::npos);
    }
}

}  // namespace
}  // namespace recovery
