// Why rows are handled one at a time, each in its own transaction after its send: a send can
// take up to the timeout, and holding SQLite's write lock across the network would block the
// CLI (and the poll cycle) for that long. The price is the crash window the header describes.
//
// Time comes only from the Clock, so the unit tests drive backoff, cooldown and the SMS hour
// with a FakeClock.
#include "notify/dispatcher.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/failpoint.h"
#include "common/json_text.h"
#include "notify/backoff.h"
#include "notify/message.h"
#include "notify/pagerduty_event.h"
#include "notify/target.h"
#include "state/event_kind.h"

namespace notify {
namespace {

using state::Notification;
using state::NotificationStatus;
using namespace std::chrono_literals;

constexpr auto k_sms_window = 1h;

// Phone numbers and addresses are the owner's own; a webhook URL usually embeds its secret
// token (in its path, or as user:password), so the journal shows only its scheme and host.
std::string shown(const std::string& target) {
    return target.empty() ? "(no target)" : redacted_url(target);
}

// Which failures are one outage: one SMTP server, one Twilio, one webhook host.
std::string channel_key(const Target& target) {
    switch (target.channel) {
        case Channel::email:
            return "smtp";
        case Channel::sms:
            return "twilio";
        case Channel::webhook:
            return shown(target.address);
        case Channel::pagerduty:
            return "pagerduty";
    }
    return "unknown";
}

long long seconds(std::chrono::system_clock::duration d) {
    return std::chrono::duration_cast<std::chrono::seconds>(d).count();
}

long long millis(common::TimePoint at) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
}

void record(state::Store& store, const Notification& row, common::TimePoint at,
            const std::string& message, nlohmann::json data) {
    data["id"] = row.id;
    data["target"] = shown(row.target);
    data["status"] = state::to_string(row.status);
    data["tries"] = row.tries;
    state::Event event;
    event.job = row.job;
    event.at = at;
    event.kind = std::string(state::event_kind_text(state::EventKind::notification));
    event.message = message;
    event.data_json = common::json_text(data);
    store.append_event(event);
}

std::string label(const Notification& row) {
    return "notification #" + std::to_string(row.id) + " to " + shown(row.target);
}

// The job's page on the dashboard, or empty: added when the message is sent, so that a link
// configured (or moved) later reaches the messages still waiting.
std::string job_page(const std::string& dashboard_url, const std::string& job) {
    if (dashboard_url.empty() || job.empty()) {
        return {};
    }
    return dashboard_url + (dashboard_url.ends_with("/") ? "" : "/") + "#job=" + job;
}

Outgoing outgoing_of(const std::vector<Notification>& group, const std::string& dashboard_url) {
    const Notification& newest = group.back();
    const Message message = message_from_json_text(newest.data_json);
    Outgoing out;
    out.id = newest.id;
    out.unique_key = std::to_string(newest.id) + "." + std::to_string(millis(newest.created_at));
    out.subject = newest.subject;
    out.body = newest.body;
    const bool has_message = !message.job.empty();
    const auto page = job_page(dashboard_url, message.job);
    if (!page.empty()) {
        out.body += (out.body.ends_with("\n") ? "" : "\n") + std::string("\nOn the dashboard: ") +
                    page + "\n";
    }
    const std::string prefix =
        group.size() > 1 ? "(+" + std::to_string(group.size() - 1) + " earlier) " : "";
    out.sms = prefix + (has_message ? sms_text(message, k_sms_limit - prefix.size())
                                    : newest.subject.substr(0, k_sms_limit - prefix.size()));
    auto payload = has_message ? webhook_payload(message, newest.id)
                               : nlohmann::json{{"text", newest.subject + "\n" + newest.body},
                                                {"id", newest.id}};
    if (!page.empty()) {
        payload["dashboard_url"] = page;
        payload["text"] = payload["text"].get<std::string>() + "\n" + page;
    }
    out.json = common::json_text(payload);
    out.pagerduty = pagerduty_event(message, {newest.subject, newest.dedup_key, page, payload});
    return out;
}

}  // namespace

Dispatcher::Dispatcher(state::Store& store, Sender& sender, const common::Clock& clock,
                       Settings settings)
    : m_store(store), m_sender(sender), m_clock(clock), m_settings(std::move(settings)) {}

DispatchReport Dispatcher::run() {
    DispatchReport report;
    const auto now = m_clock.now();
    auto due = m_store.due_notifications(now);
    bool expanded = false;
    for (const auto& row : due) {
        if (row.target.empty() || row.target == k_operators_target) {
            expanded = expand_default_targets(row, report) || expanded;
        }
    }
    if (expanded) {
        due = m_store.due_notifications(now);
    }

    std::set<std::int64_t> handled;
    const auto started = m_clock.monotonic();
    for (std::size_t i = 0; i < due.size(); ++i) {
        Notification row = due[i];
        if (row.target.empty() || row.target == k_operators_target || handled.contains(row.id)) {
            continue;
        }
        if (m_clock.monotonic() - started >= m_settings.send_budget) {
            // The rest stay due and go first next run; nothing is journalled for them.
            report.left_for_next_run = due.size() - i;
            break;
        }
        handled.insert(row.id);
        const auto target = parse_target(row.target);
        if (!target) {
            auto transaction = m_store.begin();
            row.status = NotificationStatus::failed;
            row.last_error = target.error().message;
            m_store.update_notification(row);
            record(m_store, row, now, label(row) + " failed: " + row.last_error, {});
            transaction.commit();
            ++report.failed;
            continue;
        }
        if (suppress_duplicate(row, report)) {
            continue;
        }
        const auto down = m_down_until.find(channel_key(*target));
        if (down != m_down_until.end() && down->second > now) {
            // Not tried: its channel just failed. It waits for that channel's next try.
            row.next_try_at = down->second;
            m_store.update_notification(row);
            ++report.deferred;
            continue;
        }
        std::vector<Notification> group{row};
        if (target->channel == Channel::sms) {
            if (defer_over_sms_limit(row, report)) {
                continue;
            }
            for (std::size_t j = i + 1; j < due.size(); ++j) {
                if (due[j].job == row.job && due[j].target == row.target &&
                    !handled.contains(due[j].id)) {
                    handled.insert(due[j].id);
                    group.push_back(due[j]);
                }
            }
            std::ranges::sort(group, {}, &Notification::id);
        }
        deliver(std::move(group), *target, report);
    }
    return report;
}

bool Dispatcher::expand_default_targets(const Notification& row, DispatchReport& report) {
    const auto now = m_clock.now();
    auto transaction = m_store.begin();
    Notification placeholder = row;
    placeholder.status = NotificationStatus::suppressed;
    std::string ids;
    const bool for_operators = row.target == k_operators_target;
    const auto& targets = for_operators && !m_settings.operator_targets.empty()
                              ? m_settings.operator_targets
                              : m_settings.default_targets;
    for (const auto& target : targets) {
        Notification copy = row;
        copy.id = 0;
        copy.target = target;
        copy.next_try_at = now;
        ids += (ids.empty() ? "#" : ", #") + std::to_string(m_store.enqueue_notification(copy));
    }
    if (for_operators) {
        placeholder.last_error =
            ids.empty() ? "not sent: [notify] operator_targets and default_targets are empty"
                        : "sent to the operators' targets as " + ids;
    } else {
        placeholder.last_error =
            ids.empty() ? "not sent: the registration names no --notify target and [notify] "
                          "default_targets is empty"
                        : "sent to the default targets as " + ids;
    }
    m_store.update_notification(placeholder);
    record(m_store, placeholder, now,
           "notification #" + std::to_string(row.id) + " (" + row.subject +
               "): " + placeholder.last_error,
           {});
    transaction.commit();
    ++report.suppressed;
    return !ids.empty();
}

bool Dispatcher::suppress_duplicate(Notification& row, DispatchReport& report) {
    const auto now = m_clock.now();
    std::optional<Notification> original;
    for (const auto& sent : m_store.sent_since(row.job, row.target, now - m_settings.cooldown)) {
        if (sent.dedup_key == row.dedup_key && sent.id != row.id) {
            original = sent;
        }
    }
    if (!original) {
        return false;
    }
    auto transaction = m_store.begin();
    row.status = NotificationStatus::suppressed;
    row.last_error = "duplicate of notification #" + std::to_string(original->id) + " sent " +
                     std::to_string(seconds(now - original->sent_at.value_or(now))) +
                     " s ago (cooldown " + std::to_string(m_settings.cooldown.count()) + " s)";
    m_store.update_notification(row);
    record(m_store, row, now, label(row) + " suppressed: " + row.last_error,
           {{"duplicate_of", original->id}});
    transaction.commit();
    ++report.suppressed;
    return true;
}

bool Dispatcher::defer_over_sms_limit(Notification& row, DispatchReport& report) {
    const auto now = m_clock.now();
    const auto window = m_store.sent_since(row.job, row.target, now - k_sms_window);
    if (window.size() < m_settings.sms_per_hour) {
        return false;
    }
    // The hour has room again when the oldest SMS that fills it leaves the window.
    const auto& oldest = window[window.size() - m_settings.sms_per_hour];
    auto transaction = m_store.begin();
    row.next_try_at = oldest.sent_at.value_or(now) + k_sms_window;
    row.last_error = "deferred: " + std::to_string(window.size()) +
                     " SMS sent for this job to this number in the last hour (sms_per_hour = " +
                     std::to_string(m_settings.sms_per_hour) +
                     "); it goes out, folded with "
                     "any later ones, in " +
                     std::to_string(seconds(row.next_try_at - now)) + " s";
    m_store.update_notification(row);
    record(m_store, row, now, label(row) + " " + row.last_error,
           {{"next_try_at", millis(row.next_try_at)}});
    transaction.commit();
    ++report.deferred;
    return true;
}

void Dispatcher::deliver(std::vector<Notification> group, const Target& target,
                         DispatchReport& report) {
    const auto result = m_sender.send(target, outgoing_of(group, m_settings.dashboard_url));
    if (result) {
        // The one crash window of the delivery guarantee (dispatcher.h): accepted, not marked.
        common::failpoint("after_send");
    }
    const auto now = m_clock.now();
    Notification& primary = group.back();
    auto transaction = m_store.begin();
    if (result) {
        for (auto& row : group) {
            ++row.tries;
            if (&row == &primary) {
                row.status = NotificationStatus::sent;
                row.sent_at = now;
                row.last_error.clear();
                m_store.update_notification(row);
                record(m_store, row, now,
                       label(row) + " sent (" + std::string(to_string(target.channel)) +
                           "): " + row.subject,
                       {{"channel", to_string(target.channel)}});
            } else {
                row.status = NotificationStatus::suppressed;
                row.last_error = "folded into SMS #" + std::to_string(primary.id);
                m_store.update_notification(row);
                record(m_store, row, now, label(row) + " " + row.last_error,
                       {{"folded_into", primary.id}});
            }
        }
        transaction.commit();
        common::failpoint("after_send_commit");
        ++report.sent;
        report.suppressed += group.size() - 1;
        return;
    }
    for (auto& row : group) {
        ++row.tries;
        row.last_error = result.error().reason;
        if (result.error().permanent) {
            row.status = NotificationStatus::failed;
            m_store.update_notification(row);
            record(m_store, row, now, label(row) + " failed for good: " + row.last_error, {});
            ++report.failed;
            continue;
        }
        if (now - row.created_at >= m_settings.give_up_after) {
            row.status = NotificationStatus::failed;
            row.last_error = "gave up after " + std::to_string(row.tries) + " tries in " +
                             std::to_string(seconds(now - row.created_at) / 3600) +
                             " h (give_up_after_s): " + row.last_error;
            m_store.update_notification(row);
            record(m_store, row, now, label(row) + " failed for good: " + row.last_error, {});
            ++report.failed;
            continue;
        }
        const auto delay = retry_delay(row.tries, m_settings.retry_initial, m_settings.retry_max);
        row.next_try_at = now + delay;
        m_store.update_notification(row);
        // Journalled at tries 1, 2, 4, 8, ...: a long outage costs a few events, not one per try.
        if ((row.tries & (row.tries - 1)) == 0) {
            record(m_store, row, now,
                   label(row) + " not sent (try " + std::to_string(row.tries) + "): " +
                       row.last_error + "; next try in " + std::to_string(delay.count()) + " s",
                   {{"next_try_at", millis(row.next_try_at)}});
        }
        ++report.retried;
        m_down_until[channel_key(target)] = row.next_try_at;
    }
    transaction.commit();
}

}  // namespace notify
