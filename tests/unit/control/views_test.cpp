// `supervisor status` as text and JSON (control/views.h): a listing reads every job's last
// decision and attempts in one query each, and must show each job exactly what asking for that
// job alone shows. Over a real SQLite file in a temp dir.
#include "control/views.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "supervisor/steps/knobs.h"
#include "tests/unit/state/test_support.h"

namespace {

using state::testing::at;
using state::testing::job;

class StatusView : public state::testing::StoreTest {
  protected:
    void SetUp() override {
        StoreTest::SetUp();
        for (const auto& id : {job(1), job(2), job(3)}) {
            register_job(id);
        }
        // A job's owner names it: a newline, a quote and a byte that is not UTF-8 must not
        // break the listing's layout or its JSON.
        auto hostile = store->registration(job(2)).value();
        hostile.job_name = "evil\n  \"}, {\"job\": \"9\xff";
        store->update_registration(hostile);
        decide(job(1), "first plan");
        decide(job(2), "their plan");
        decide(job(1), "second plan");
        (void)store->append_event({0, job(1), at(9), "observed", "after the decision", "{}"});
        store->upsert_attempt(
            {job(1), 1, 0, at(1), at(2), "NODE_FAIL", 0, 9, "n1", "", "node", std::nullopt});
        store->upsert_attempt({job(1), 2, 0, at(3), std::nullopt, "", std::nullopt, std::nullopt,
                               "n2", "", "", std::nullopt});
        store->upsert_attempt({job(2), 1, 0, at(1), std::nullopt, "", std::nullopt, std::nullopt,
                               "n3", "", "", std::nullopt});
    }

    void decide(const state::JobId& id, const std::string& reason) {
        (void)store->append_event(
            {0, id, at(5), "decision", reason, nlohmann::json{{"reason", reason}}.dump()});
    }

    nlohmann::json json_of(std::optional<state::JobId> one) {
        const auto text = control::status_view(*store, {one, false, true, {}});
        EXPECT_TRUE(text) << text.error().message;
        return nlohmann::json::parse(text.value_or("null"));
    }
};

TEST_F(StatusView, AListingShowsEachJobWhatAskingForItAloneShows) {
    const auto listing = json_of(std::nullopt);
    ASSERT_EQ(listing.size(), 3U);
    for (const auto& element : listing) {
        const auto alone = json_of(*state::JobId::parse(element.at("job").get<std::string>()));
        ASSERT_EQ(alone.size(), 1U);
        EXPECT_EQ(element, alone.front());
    }
    EXPECT_EQ(listing[0].at("last_decision").at("reason"), "second plan");
    EXPECT_EQ(listing[0].at("attempts").size(), 2U);
    EXPECT_EQ(listing[1].at("last_decision").at("reason"), "their plan");
    EXPECT_EQ(listing[1].at("attempts").size(), 1U);
    EXPECT_TRUE(listing[2].at("last_decision").is_null());
    EXPECT_TRUE(listing[2].at("attempts").empty());
}

TEST_F(StatusView, TheJsonListingIsTheIndentedArrayAPersonReads) {
    const auto text = control::status_view(*store, {std::nullopt, false, true, {}}).value();
    EXPECT_EQ(text, nlohmann::json::parse(text).dump(2) + "\n") << "printed element by element";
    EXPECT_EQ(control::status_view(*store, {std::nullopt, false, true, 4242U}).value(), "[]\n");
}

// A page of a listing (the dashboard's API) holds the same elements as the whole listing, in
// its order, each as the whole listing shows it.
TEST_F(StatusView, APageIsASliceOfTheListingAfterTheJobNamed) {
    const auto whole = json_of(std::nullopt);
    control::StatusQuery page{std::nullopt, false, true, {}};
    page.limit = 2;
    auto first = nlohmann::json::parse(control::status_view(*store, page).value());
    ASSERT_EQ(first.size(), 2U);
    EXPECT_EQ(first[0], whole[0]);
    EXPECT_EQ(first[1], whole[1]);
    page.after = job(2);
    auto second = nlohmann::json::parse(control::status_view(*store, page).value());
    ASSERT_EQ(second.size(), 1U);
    EXPECT_EQ(second[0], whole[2]);
    page.after = job(3);
    EXPECT_EQ(control::status_view(*store, page).value(), "[]\n");

    page.after = job(77);
    const auto unknown = control::status_view(*store, page);
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().message.find("77 is not in this listing"), std::string::npos);
}

TEST_F(StatusView, TheTextListingShowsEachJobsOwnLastDecision) {
    const auto text = control::status_view(*store, {}).value();
    const auto first = text.find("last decision: second plan");
    const auto theirs = text.find("last decision: their plan");
    ASSERT_NE(first, std::string::npos) << text;
    ASSERT_NE(theirs, std::string::npos) << text;
    EXPECT_LT(first, theirs) << text;
    EXPECT_EQ(text.find("first plan"), std::string::npos) << text;
}

TEST_F(StatusView, TheExpectedRateIsShownWhereItIsSet) {
    auto none = store->registration(job(3)).value();
    none.expect_steps_per_hour = 0;
    store->update_registration(none);
    const auto text = control::status_view(*store, {job(1), false, false, {}}).value();
    EXPECT_NE(text.find("    expected rate: 6000 steps/h\n"), std::string::npos) << text;
    EXPECT_EQ(json_of(job(1))[0]["expect_steps_per_hour"], 6000);
    const auto without = control::status_view(*store, {job(3), false, false, {}}).value();
    EXPECT_EQ(without.find("expected rate"), std::string::npos) << without;
    EXPECT_TRUE(json_of(job(3))[0]["expect_steps_per_hour"].is_null());
}

// The knobs as the job's script sees them, in the knobs' order, each compensating variable after
// its own; a knob the script does not read (the time limit) is in the JSON only. A damaged row
// shows no knobs, and the listing still shows the job.
TEST_F(StatusView, TheKnobsAreShownAsTheScriptReadsThem) {
    recovery::Knob batch{"batch_size", "BATCH_SIZE", 16, 32, 8, std::nullopt, "GRAD_ACCUM", 2};
    auto one = store->registration(job(1)).value();
    one.knobs_json = supervisor::knobs_to_json(
        {batch, supervisor::time_limit_knob(std::chrono::minutes(60), 2)});
    store->update_registration(one);
    auto damaged = store->registration(job(3)).value();
    damaged.knobs_json = R"([{"name": "batch_size"}])";
    store->update_registration(damaged);

    const auto text = control::status_view(*store, {job(1), false, false, {}}).value();
    EXPECT_NE(text.find("    knobs: BATCH_SIZE=16, GRAD_ACCUM=2\n"), std::string::npos) << text;
    const auto knobs = json_of(job(1))[0]["knobs"];
    ASSERT_EQ(knobs.size(), 2U) << knobs.dump();
    EXPECT_EQ(knobs[0]["value"], 16);
    EXPECT_EQ(knobs[1]["name"], "time_limit");
    EXPECT_EQ(knobs[1]["max"], 120);

    const auto shown = control::status_view(*store, {job(3), false, false, {}});
    ASSERT_TRUE(shown) << shown.error().message;
    EXPECT_EQ(shown->find("knobs:"), std::string::npos) << *shown;
    EXPECT_TRUE(json_of(job(3))[0]["knobs"].is_null());
}

// Through the site daemon every user's `status` is answered on the channel's one thread: it
// reads that user's rows, never everyone's (it once read every registration, every job's last
// decision and every job's attempts, whatever the caller owned).
TEST_F(StatusView, OneOwnersListingReadsTheirRowsNotEveryones) {
    for (std::uint32_t n = 100; n < 400; ++n) {
        register_job(job(n));
        decide(job(n), "someone else's plan");
        store->upsert_attempt({job(n), 1, 0, at(1), std::nullopt, "", std::nullopt, std::nullopt,
                               "n1", "", "", std::nullopt});
    }
    auto mine = store->registration(job(2)).value();
    mine.owner_uid = 4242;
    store->update_registration(mine);

    const auto rows_before = store->rows_read();
    const auto text = control::status_view(*store, {std::nullopt, false, true, 4242U});
    const auto rows = store->rows_read() - rows_before;
    ASSERT_TRUE(text) << text.error().message;
    const auto listing = nlohmann::json::parse(*text);
    ASSERT_EQ(listing.size(), 1U) << *text;
    EXPECT_EQ(listing[0], json_of(job(2)).front()) << "the same as asking for it alone";
    EXPECT_EQ(listing[0].at("last_decision").at("reason"), "their plan");
    EXPECT_LT(rows, 20) << "rows read for one job among 303";

    const auto as_text = control::status_view(*store, {std::nullopt, false, false, 4242U});
    ASSERT_TRUE(as_text);
    EXPECT_NE(as_text->find("last decision: their plan"), std::string::npos) << *as_text;
}

}  // namespace
