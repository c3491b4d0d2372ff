// The message renderings: the email is complete, the SMS is short (at most the limit, the job
// and status always kept, the least important pieces dropped first), JSON round-trips.
#include <gtest/gtest.h>

#include "notify/message.h"

namespace notify {
namespace {

Message full() {
    Message m;
    m.job = "4711";
    m.job_name = "llama-70b";
    m.status = "recovering";
    m.headline = "failed; recovering";
    m.reason = "attempt 2 failed (gpu_xid)";
    m.cause = "gpu_xid";
    m.summary = "GPU Xid 79 (GPU has fallen off the bus) on n2 at step 90210";
    m.evidence = {"slurm-4711.out:18: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus"};
    m.nodes = {"n2"};
    m.checkpoint = "/scratch/run1/ckpt/step_90000.ckpt";
    m.actions = {"exclude_node n2", "requeue from /scratch/run1/ckpt/step_90000.ckpt after 60 s"};
    m.would_have_done = {"drain_node n2 (not allowed: add --allow drain_node)"};
    m.notes = {"the node was excluded before"};
    m.next_step = "nothing to do now; you will hear when it runs again.";
    m.attempt = 3;
    return m;
}

TEST(Message, TheEmailHasEverything) {
    const Message m = full();
    EXPECT_EQ(email_subject(m),
              "[slurm-supervisor] job 4711 (llama-70b): failed; recovering "
              "(gpu_xid)");
    const auto body = email_body(m);
    for (const char* expected :
         {"Job 4711 (llama-70b) failed; recovering. Status: recovering, attempt 3.",
          "Why: attempt 2 failed (gpu_xid)\n", "Cause: gpu_xid\n",
          "Diagnosis: GPU Xid 79 (GPU has fallen off the bus) on n2 at step 90210\n",
          "  slurm-4711.out:18: NVRM: Xid", "Node: n2\n",
          "Resume from: /scratch/run1/ckpt/step_90000.ckpt\n", "Action: exclude_node n2\n",
          "Would have done: drain_node n2 (not allowed", "Note: the node was excluded before\n",
          "Next step: nothing to do now", "Full history: supervisor events 4711\n"}) {
        EXPECT_NE(body.find(expected), std::string::npos) << expected << "\n" << body;
    }
}

TEST(Message, TheSmsIsShortAndKeepsTheMostImportantPieces) {
    const auto text = sms_text(full());
    EXPECT_LE(text.size(), k_sms_limit);
    EXPECT_TRUE(text.starts_with("job 4711 (llama-70b): failed; recovering. gpu_xid on n2."))
        << text;
    EXPECT_NE(text.find("Did: exclude_node n2"), std::string::npos) << text;
    EXPECT_NE(text.find("Next: nothing to do now"), std::string::npos) << text;
}

TEST(Message, AnSmsThatCannotFitDropsTheLeastImportantFirst) {
    Message m = full();
    m.actions.assign(20, "a very long action description that goes on and on");
    const auto text = sms_text(m, 160);
    EXPECT_LE(text.size(), 160U);
    EXPECT_TRUE(text.starts_with("job 4711 (llama-70b): failed; recovering. gpu_xid on n2."));
    EXPECT_NE(text.find("Next: "), std::string::npos) << text;  // priority over the actions

    m.job_name = std::string(500, 'n');  // even the first piece is cut to the limit
    EXPECT_EQ(sms_text(m, 100).size(), 100U);
}

TEST(Message, TheSmsIsPlainAsciiOnOneLine) {
    Message m = full();
    m.job_name = "trainé";
    m.next_step = "look\nhere";
    const auto text = sms_text(m);
    for (const char c : text) {
        EXPECT_TRUE(c >= 0x20 && c <= 0x7e) << static_cast<int>(c);
    }
}

TEST(Message, RoundTripsThroughJsonAndReadsOldRowsAsEmpty) {
    EXPECT_EQ(message_from_json(to_json(full())), full());
    EXPECT_EQ(message_from_json(nlohmann::json::object()), Message{});
    EXPECT_EQ(message_from_json(nlohmann::json::parse(R"({"job": 7, "nodes": "n1"})")), Message{});
    EXPECT_EQ(message_from_json_text(to_json(full()).dump()), full());
    EXPECT_EQ(message_from_json_text("not json"), Message{});
}

TEST(Message, ADamagedRowKeepsWhatItCanAndNeverWrapsAnAttempt) {
    const auto read = message_from_json(
        nlohmann::json::parse(R"({"notes": ["kept", 3, null, "also kept"], "attempt": 4294967297,
                                  "headline": ["not", "text"]})"));
    EXPECT_EQ(read.notes, (std::vector<std::string>{"kept", "also kept"}));
    EXPECT_EQ(read.attempt, 0U) << "not 1: a number a uint32 cannot hold is no attempt";
    EXPECT_EQ(read.headline, "");
}

TEST(Message, TheWebhookPayloadHasTextAndEveryField) {
    const auto payload = webhook_payload(full(), 42);
    EXPECT_EQ(payload["id"], 42);
    EXPECT_EQ(payload["job"], "4711");
    EXPECT_EQ(payload["status"], "recovering");
    EXPECT_EQ(payload["cause"], "gpu_xid");
    EXPECT_EQ(payload["nodes"], nlohmann::json::array({"n2"}));
    EXPECT_EQ(payload["checkpoint"], "/scratch/run1/ckpt/step_90000.ckpt");
    EXPECT_EQ(payload["text"].get<std::string>(),
              email_subject(full()) + "\n" + email_body(full()));
}

// A job's owner names it and writes its log: neither may ping the operators' Slack channel
// nor hide a link under a label there.
TEST(Message, TheWebhookTextEscapesChatMarkupAndTheFieldsStayAsWritten) {
    auto message = full();
    message.job_name = "<!channel> & <https://evil.example|your dashboard>";
    message.evidence = {"train.log:3: <!here> look"};
    const auto payload = webhook_payload(message, 1);
    const auto text = payload["text"].get<std::string>();
    EXPECT_EQ(text.find('<'), std::string::npos) << text;
    EXPECT_EQ(text.find('>'), std::string::npos) << text;
    EXPECT_NE(text.find("&lt;!channel&gt; &amp; &lt;https://evil.example|your dashboard&gt;"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("&lt;!here&gt; look"), std::string::npos) << text;
    EXPECT_EQ(payload["job_name"], message.job_name);
    EXPECT_EQ(payload["evidence"], nlohmann::json::array({"train.log:3: <!here> look"}));
    EXPECT_EQ(escaped_for_chat("a&b<c>d"), "a&amp;b&lt;c&gt;d");
}

}  // namespace
}  // namespace notify
