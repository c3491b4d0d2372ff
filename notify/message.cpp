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
#include "common/json_fields.h"
#include "common/printable.h"

namespace notify {
namespace {

using common::printable;

std::string job_label(const Message& m) {
    return "job " + printable(m.job) +
           (m.job_name.empty() ? "" : " (" + printable(m.job_name) + ")");
}

// The stored fields, named once for both directions (common/json_fields.h).
template <typename Fields, common::Is<Message> M>
void fields(Fields& f, M& m) {
    f("job", m.job);
    f("job_name", m.job_name);
    f("status", m.status);
    f("headline", m.headline);
    f("reason", m.reason);
    f("cause", m.cause);
    f("summary", m.summary);
    f("evidence", m.evidence);
    f("nodes", m.nodes);
    f("checkpoint", m.checkpoint);
    f("actions", m.actions);
    f("would_have_done", m.would_have_done);
    f("notes", m.notes);
    f("next_step", m.next_step);
    f("attempt", m.attempt);
}

// Reads an outbox row as leniently as a message is shown: a list keeps the texts it holds and
// skips any other item; a field of another type is left empty.
class MessageReader {
  public:
    static constexpr bool reads = true;

    explicit MessageReader(const nlohmann::json& json) : m_json(json) {}

    void operator()(const char* key, std::vector<std::string>& out) {
        const auto it = m_json.find(key);
        if (it != m_json.end() && it->is_array()) {
            for (const auto& item : *it) {
                if (item.is_string()) {
                    out.push_back(item.get<std::string>());
                }
            }
        }
    }
    template <typename T>
    void operator()(const char* key, T& out) {
        common::read_field(m_json, key, out);
    }

  private:
    const nlohmann::json& m_json;
};

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
    common::FieldWriter writer;
    fields(writer, m);
    return writer.take();
}

Message message_from_json_text(std::string_view text) {
    return message_from_json(nlohmann::json::parse(text, nullptr, false));
}

Message message_from_json(const nlohmann::json& json) {
    Message m;
    if (!json.is_object()) {
        return m;
    }
    MessageReader reader(json);
    fields(reader, m);
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
