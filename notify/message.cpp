// The renderings keep the line prefixes the journal has always used ("Action:", "Would have
// done:", "Resume from:", "Next step:"), so the email reads like `supervisor events` and
// scripts that grep either keep working. Every field is shown through common::printable: a
// newline in a file name or a log line must not start a line that looks like one of ours. The SMS
// is built from prioritised pieces: what cannot fit is dropped whole (or cut with "...") in reverse
// priority, never the job or its status.
#include "notify/message.h"

#include <algorithm>
#include <filesystem>

#include "common/join.h"
#include "common/printable.h"

namespace notify {
namespace {

using common::printable;

std::string job_label(const Message& m) {
    return "job " + printable(m.job) +
           (m.job_name.empty() ? "" : " (" + printable(m.job_name) + ")");
}

std::string string_at(const nlohmann::json& json, const char* key) {
    const auto it = json.find(key);
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> list_at(const nlohmann::json& json, const char* key) {
    std::vector<std::string> items;
    const auto it = json.find(key);
    if (it != json.end() && it->is_array()) {
        for (const auto& item : *it) {
            if (item.is_string()) {
                items.push_back(item.get<std::string>());
            }
        }
    }
    return items;
}

// SMS gateways bill and split by GSM-7 segments; anything outside ASCII would switch the whole
// text to UCS-2 (70 characters a segment). Newlines become spaces.
std::string sms_safe(std::string_view text) {
    std::string out;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        out += u == '\n' || u == '\r' || u == '\t' ? ' ' : (u < 0x20 || u > 0x7e ? '?' : c);
    }
    return out;
}

}  // namespace

nlohmann::json to_json(const Message& m) {
    return {{"job", m.job},         {"job_name", m.job_name},
            {"status", m.status},   {"headline", m.headline},
            {"reason", m.reason},   {"cause", m.cause},
            {"summary", m.summary}, {"evidence", m.evidence},
            {"nodes", m.nodes},     {"checkpoint", m.checkpoint},
            {"actions", m.actions}, {"would_have_done", m.would_have_done},
            {"notes", m.notes},     {"next_step", m.next_step},
            {"attempt", m.attempt}};
}

Message message_from_json_text(std::string_view text) {
    return message_from_json(nlohmann::json::parse(text, nullptr, false));
}

Message message_from_json(const nlohmann::json& json) {
    Message m;
    if (!json.is_object()) {
        return m;
    }
    m.job = string_at(json, "job");
    m.job_name = string_at(json, "job_name");
    m.status = string_at(json, "status");
    m.headline = string_at(json, "headline");
    m.reason = string_at(json, "reason");
    m.cause = string_at(json, "cause");
    m.summary = string_at(json, "summary");
    m.evidence = list_at(json, "evidence");
    m.nodes = list_at(json, "nodes");
    m.checkpoint = string_at(json, "checkpoint");
    m.actions = list_at(json, "actions");
    m.would_have_done = list_at(json, "would_have_done");
    m.notes = list_at(json, "notes");
    m.next_step = string_at(json, "next_step");
    const auto attempt = json.find("attempt");
    if (attempt != json.end() && attempt->is_number_unsigned()) {
        m.attempt = attempt->get<std::uint32_t>();
    }
    return m;
}

std::string email_subject(const Message& m) {
    return "[slurm-supervisor] " + job_label(m) + ": " +
           printable(m.headline.empty() ? m.status : m.headline) +
           (m.cause.empty() ? "" : " (" + printable(m.cause) + ")");
}

std::string email_body(const Message& m) {
    std::string text = "Job " + printable(m.job) +
                       (m.job_name.empty() ? "" : " (" + printable(m.job_name) + ")") + " " +
                       printable(m.headline.empty() ? "is now " + m.status : m.headline) +
                       ". Status: " + printable(m.status) +
                       (m.attempt ? ", attempt " + std::to_string(m.attempt) : "") + ".\n\n";
    const auto line = [&text](std::string_view label, const std::string& value) {
        if (!value.empty()) {
            text += std::string(label) + printable(value) + "\n";
        }
    };
    line("Why: ", m.reason);
    line("Cause: ", m.cause);
    line("Diagnosis: ", m.summary);
    for (const auto& evidence : m.evidence) {
        line("  ", evidence);
    }
    if (!m.nodes.empty()) {
        text += "Node" + std::string(m.nodes.size() > 1 ? "s" : "") + ": " +
                printable(common::join(m.nodes, ", ")) + "\n";
    }
    line("Resume from: ", m.checkpoint);
    for (const auto& action : m.actions) {
        line("Action: ", action);
    }
    for (const auto& would : m.would_have_done) {
        line("Would have done: ", would);
    }
    for (const auto& note : m.notes) {
        line("Note: ", note);
    }
    line("Next step: ", m.next_step);
    text += "\nFull history: supervisor events " + printable(m.job) + "\n";
    return text;
}

std::string sms_text(const Message& m, std::size_t limit) {
    struct Piece {
        int priority;  // lower is kept first
        std::string text;
    };
    std::vector<Piece> pieces;  // in reading order
    pieces.push_back({0, job_label(m) + ": " + (m.headline.empty() ? m.status : m.headline) + "."});
    if (!m.cause.empty()) {
        pieces.push_back(
            {1, m.cause + (m.nodes.empty() ? "" : " on " + printable(common::join(m.nodes, ","))) +
                    "."});
    }
    if (!m.actions.empty()) {
        pieces.push_back({3, "Did: " + printable(common::join(m.actions, "; ")) + "."});
    }
    if (!m.would_have_done.empty()) {
        pieces.push_back(
            {3, "Would have: " + printable(common::join(m.would_have_done, "; ")) + "."});
    }
    if (!m.checkpoint.empty()) {
        pieces.push_back(
            {4, "From " + std::filesystem::path(m.checkpoint).filename().string() + "."});
    }
    if (!m.next_step.empty()) {
        pieces.push_back({2, "Next: " + m.next_step});
    }
    for (auto& piece : pieces) {
        piece.text = sms_safe(printable(piece.text));  // printable is idempotent
    }

    std::vector<bool> kept(pieces.size(), false);
    std::vector<std::string> texts(pieces.size());
    std::size_t used = 0;
    for (int priority = 0; priority <= 4; ++priority) {
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            if (pieces[i].priority != priority) {
                continue;
            }
            const std::size_t separator = used == 0 ? 0 : 1;
            if (used + separator + pieces[i].text.size() <= limit) {
                texts[i] = pieces[i].text;
            } else if (used + separator + 12 <= limit) {  // room for a useful start
                texts[i] = pieces[i].text.substr(0, limit - used - separator - 3) + "...";
            } else {
                continue;
            }
            kept[i] = true;
            used += separator + texts[i].size();
        }
    }
    std::string text;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        if (kept[i]) {
            text += (text.empty() ? "" : " ") + texts[i];
        }
    }
    return text.substr(0, limit);
}

// Why escape the text only: Slack (and Mattermost, which copies its format) reads `text` as
// markup, where "<!channel>" notifies a whole channel and "<URL|label>" hides a link under any
// label. A job's name and log lines are its owner's, and the site's operators' channel must not
// be theirs to ping or to dress a link in. The other fields are data for programs, kept as is.
std::string escaped_for_chat(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

nlohmann::json webhook_payload(const Message& m, std::int64_t id) {
    nlohmann::json payload = to_json(m);
    payload["text"] = escaped_for_chat(email_subject(m) + "\n" + email_body(m));
    payload["id"] = id;
    return payload;
}

}  // namespace notify
