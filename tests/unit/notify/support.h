// Shared by the notify unit tests: a Store on a real SQLite file in a fresh TempDir with one
// registered job, a FakeClock, and FakeSender — a notify::Sender that records what it was
// given and answers from a script (accept, or fail transient/permanent).
#pragma once

#include <unistd.h>

#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/clock.h"
#include "notify/dispatcher.h"
#include "notify/message.h"
#include "notify/sender.h"
#include "state/store.h"
#include "tests/support/job_ids.h"
#include "tests/support/temp_dir.h"

namespace notify::test {

struct SentCall {
    Target target;
    Outgoing message;
};

class FakeSender final : public Sender {
  public:
    SendResult send(const Target& target, const Outgoing& message) override {
        calls.push_back({target, message});
        if (on_send) {
            on_send();
        }
        if (down) {
            return tl::unexpected(SendError{"connection refused", false});
        }
        if (!script.empty()) {
            auto answer = script.front();
            script.pop_front();
            return answer;
        }
        return {};
    }
    std::vector<SentCall> calls;
    std::deque<SendResult> script;  // answers in order; then success
    bool down = false;              // every send fails transiently
    std::function<void()> on_send;  // runs at every send (a slow server moves the clock)
};

using test_support::job;

class DispatcherTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto opened = state::Store::open(m_dir.path() / "supervisor.db");
        ASSERT_TRUE(opened) << opened.error().message;
        store = std::move(*opened);
        register_job(job(100));
        settings.retry_initial = std::chrono::seconds(30);
        settings.retry_max = std::chrono::seconds(240);
        settings.cooldown = std::chrono::seconds(3600);
        settings.sms_per_hour = 2;
    }

    void register_job(const common::JobId& id) {
        state::Registration r;
        r.job = id;
        r.job_name = "train";
        r.status = state::Status::enabled;
        r.created_at = clock.now();
        r.updated_at = clock.now();
        ASSERT_TRUE(store->insert_registration(r));
    }

    std::int64_t enqueue(const std::string& target, const std::string& key,
                         const std::string& headline = "failed; recovering",
                         const common::JobId& id = job(100)) {
        Message m;
        m.job = id.to_string();
        m.job_name = "train";
        m.status = "recovering";
        m.headline = headline;
        m.cause = "nccl_timeout";
        m.next_step = "nothing to do.";
        state::Notification n;
        n.job = id;
        n.target = target;
        n.subject = email_subject(m);
        n.body = email_body(m);
        n.data_json = to_json(m).dump();
        n.dedup_key = key;
        n.next_try_at = clock.now();
        n.created_at = clock.now();
        return store->enqueue_notification(n);
    }

    DispatchReport run() { return dispatcher().run(); }

    Dispatcher& dispatcher() {
        if (!m_dispatcher) {
            m_dispatcher = std::make_unique<Dispatcher>(*store, sender, clock, settings);
        }
        return *m_dispatcher;
    }

    state::Notification row(std::int64_t id) const {
        for (const auto& n : store->notifications(job(100))) {
            if (n.id == id) {
                return n;
            }
        }
        ADD_FAILURE() << "no notification " << id;
        return {};
    }

    std::vector<state::Event> notification_events() const {
        std::vector<state::Event> events;
        for (auto& e : store->events(job(100))) {
            if (e.kind == "notification") {
                events.push_back(e);
            }
        }
        return events;
    }

    test_support::TempDir m_dir;
    std::unique_ptr<state::Store> store;
    common::FakeClock clock;
    FakeSender sender;
    Settings settings;

  private:
    std::unique_ptr<Dispatcher> m_dispatcher;
};

}  // namespace notify::test
