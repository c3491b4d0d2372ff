// Feeds: the small values a job's owner writes at registration (`supervisor register`,
// #SUPERVISOR lines) or a cluster reports, one per input line, the first byte choosing the
// parser:
//   0 parse_knob            (recovery/knob.h)     "batch_size=64:env=BS:min=8:compensate=GA"
//   1 parse_whitelist       (recovery/whitelist.h) the lines are the --allow entries
//   2 parse_stall_timeout   (supervisor/failure/stall.h)  "30m", "20s", "2h"
//   3 notify::parse_target  (notify/target.h)     "mailto:a@b", "sms:+1555...", "https://..."
//   4 slurm::parse_release  (slurm/release.h)     "24.11.5", then check_compatibility
//   5 parse_action          (recovery/cause.h)    "set_env:NCCL_SOCKET_IFNAME"
//   6 parse_expected_rate   (supervisor/registrations/expected_rate.h) "6000", "100/min", "1.5/s"
// Checks: no crash, leak or UB, and the round trips and invariants the headers state: a parsed
// knob prints (to_string) as a spec that parses back to the same knob, min <= value; a whitelist
// sets only values made of letters, digits and _-.,:^=/; a stall timeout is at most 30 days and
// reads back from format_stall_timeout(); a target holds no blank or control byte; a release's
// compatibility verdict is computable in both directions without overflow; an action prints
// back as itself; an expected rate is between 1 and k_max_expected_steps_per_hour and reads back
// from its own number.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "notify/target.h"
#include "recovery/cause.h"
#include "recovery/knob.h"
#include "recovery/whitelist.h"
#include "slurm/release.h"
#include "supervisor/failure/stall.h"
#include "supervisor/registrations/expected_rate.h"

namespace {

void knob(std::string_view text) {
    const auto parsed = recovery::parse_knob(text);
    if (!parsed) {
        return;
    }
    FUZZ_CHECK(parsed->min <= parsed->value && parsed->value >= 1);
    FUZZ_CHECK(recovery::is_variable_name(parsed->env));
    const auto printed = recovery::to_string(*parsed);
    const auto again = recovery::parse_knob(printed);
    FUZZ_CHECK(again.has_value() && *again == *parsed);
}

void whitelist(const std::vector<std::string>& entries) {
    const auto parsed = recovery::parse_whitelist(entries);
    if (!parsed) {
        return;
    }
    for (const auto& [name, value] : parsed->env) {
        FUZZ_CHECK(!value.empty());
        FUZZ_CHECK(value.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                           "0123456789_-.,:^=/") == std::string::npos);
        FUZZ_CHECK(parsed->allows(recovery::ActionKind::set_env));
    }
}

void stall_timeout(std::string_view text) {
    const auto parsed = supervisor::parse_stall_timeout(text);
    if (!parsed) {
        return;
    }
    FUZZ_CHECK(parsed->count() >= 0 && parsed->count() <= 30LL * 24 * 3600);
    const auto again = supervisor::parse_stall_timeout(supervisor::format_stall_timeout(*parsed));
    FUZZ_CHECK(again.has_value() && *again == *parsed);
}

void target(std::string_view text) {
    const auto parsed = notify::parse_target(text);
    if (!parsed) {
        return;
    }
    for (const char c : parsed->address) {
        const auto u = static_cast<unsigned char>(c);
        FUZZ_CHECK(u > 0x20 && u != 0x7f);
    }
    FUZZ_CHECK(parsed->text == text);
}

void release(std::string_view text) {
    const auto parsed = slurm::parse_release(text);
    if (!parsed) {
        return;
    }
    const auto ours = slurm::compiled_release();
    for (const auto& [client, controller] :
         {std::pair{ours, *parsed}, std::pair{*parsed, ours}, std::pair{*parsed, *parsed}}) {
        const auto verdict = slurm::check_compatibility(client, controller);
        FUZZ_CHECK(!verdict.explanation.empty());
        if (verdict.compatibility == slurm::Compatibility::same) {
            FUZZ_CHECK(client.same_family(controller));
        }
    }
    (void)slurm::families_between(ours, *parsed);
    (void)slurm::families_accepted_back(*parsed);
    (void)parsed->to_string();
    (void)parsed->family_string();
}

void action(std::string_view text) {
    const auto parsed = recovery::parse_action(text);
    if (!parsed) {
        return;
    }
    const auto printed = recovery::to_string(*parsed);
    const auto again = recovery::parse_action(printed);
    FUZZ_CHECK(again.has_value() && *again == *parsed);
}

void expected_rate(std::string_view text) {
    const auto parsed = supervisor::parse_expected_rate(text);
    if (!parsed) {
        return;
    }
    FUZZ_CHECK(*parsed >= 1 && *parsed <= supervisor::k_max_expected_steps_per_hour);
    const auto again = supervisor::parse_expected_rate(std::to_string(*parsed));
    FUZZ_CHECK(again.has_value() && *again == *parsed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Reader input(fuzz::as_text(data, size));
    const auto which = input.byte() % 7;
    const auto lines = fuzz::split(input.rest(), "\n");
    if (which == 1) {
        whitelist(std::vector<std::string>(lines.begin(), lines.end()));
        return 0;
    }
    for (const auto line : lines) {
        switch (which) {
            case 0:
                knob(line);
                break;
            case 2:
                stall_timeout(line);
                break;
            case 3:
                target(line);
                break;
            case 4:
                release(line);
                break;
            case 5:
                action(line);
                break;
            case 6:
                expected_rate(line);
                break;
            default:
                break;
        }
    }
    return 0;
}
