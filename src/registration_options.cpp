// The option texts live here and nowhere else: `supervisor register --help` and an error about
// an #SUPERVISOR directive then name the same options.
#include "registration_options.h"

#include "common/try.h"
#include "recovery/knob.h"
#include "recovery/progress_pattern.h"
#include "recovery/whitelist.h"
#include "supervisor/failure/stall.h"
#include "supervisor/registrations/expected_rate.h"

namespace cli {
namespace {

std::string shell_quoted(const std::string& word) {
    if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW"
                                                "XYZ0123456789_-+=:,./@%") == std::string::npos) {
        return word;
    }
    std::string quoted = "'";
    for (const char c : word) {
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return quoted + "'";
}

}  // namespace

void add_registration_options(CLI::App& command, RegistrationOptions& options) {
    command.add_option("--checkpoint-dir", options.checkpoint_dir,
                       "where the job writes its checkpoints; the newest complete one is "
                       "passed to the next attempt as SUPERVISOR_RESUME_FROM");
    command.add_option("--checkpoint-pattern", options.checkpoint_pattern,
                       "glob of checkpoint names when the layout is not detected "
                       "automatically (see `supervisor checkpoints --help`)");
    command.add_option("--checkpoint-marker", options.checkpoint_marker,
                       "file whose presence marks a checkpoint complete (with "
                       "--checkpoint-pattern)");
    command
        .add_option("--allow", options.allow,
                    "actions the supervisor may take, comma-separated (default: requeue): "
                    "requeue, exclude_node, reduce_batch_size, reduce_workers, set_env, "
                    "set_env:NAME[=VALUE], restore_older_checkpoint, extend_time_limit, "
                    "drain_node, resubmit, cancel (a hung job that cannot be requeued is "
                    "cancelled before it is resubmitted)")
        ->delimiter(',');
    command.add_option("--knob", options.knobs,
                       "a setting the supervisor may turn, passed to the job as a variable: "
                       "batch_size=64:env=BATCH_SIZE:min=8[:compensate=GRAD_ACCUM] or "
                       "workers=8:env=NUM_WORKERS[:min=1]; repeatable");
    command.add_option(
        "--max-attempts", options.max_attempts,
        "runs in total, the first included, before giving up (default: 3); runs ended "
        "by preemption or an administrator's requeue are not counted");
    command.add_option("--notify", options.notify,
                       "where to report (mailto:you@site, sms:+15551234, https://hook..., "
                       "pagerduty:NAME)");
    command.add_option("--stall-timeout", options.stall_timeout,
                       "a RUNNING job whose logs do not grow for this long has hung: minutes "
                       "(30), or 20s, 30m, 2h; 0 turns stall detection off (default: 30m)");
    command.add_option("--progress-pattern", options.progress_pattern,
                       "regular expression (RE2) of a training step's log line; with it, only "
                       "new matching lines count as progress, not any output");
    command.add_option("--expect-rate", options.expect_rate,
                       "training steps per hour the job reaches (6000, or 6000/h, 100/min, "
                       "1.5/s; with --progress-pattern): a run below straggler_below_percent of "
                       "it is a straggler from its first step, not only once it slows down");
}

common::Result<void> check_registration_options(const RegistrationOptions& options) {
    TRY(recovery::parse_whitelist(options.allow));
    for (const auto& spec : options.knobs) {
        TRY(recovery::parse_knob(spec));
    }
    TRY(supervisor::parse_stall_timeout(options.stall_timeout));
    if (!options.progress_pattern.empty()) {
        TRY(recovery::ProgressPattern::compile(options.progress_pattern));
    }
    if (!options.expect_rate.empty()) {
        TRY(supervisor::parse_expected_rate(options.expect_rate));
    }
    if (options.max_attempts < 1 || options.max_attempts > 1000) {
        return common::fail("--max-attempts must be between 1 and 1000",
                            "it counts every run, the first one included");
    }
    return {};
}

common::Result<void> check_registration_combination(const RegistrationOptions& options) {
    if (!options.expect_rate.empty()) {
        const auto rate = TRY(supervisor::parse_expected_rate(options.expect_rate));
        TRY(supervisor::check_expected_rate(rate, options.progress_pattern));
    }
    return {};
}

common::Result<supervisor::RegisterRequest> registration_request(
    const common::JobId& job, const RegistrationOptions& options) {
    const auto timeout = TRY(supervisor::parse_stall_timeout(options.stall_timeout));
    supervisor::RegisterRequest request;
    request.job = job;
    request.checkpoint_dir = options.checkpoint_dir;
    request.checkpoint_pattern = options.checkpoint_pattern;
    request.checkpoint_marker = options.checkpoint_marker;
    request.allowed_actions = options.allow;
    request.knobs = options.knobs;
    request.max_attempts = options.max_attempts;
    request.notify = options.notify;
    request.stall_timeout_s = timeout.count();
    request.progress_pattern = options.progress_pattern;
    if (!options.expect_rate.empty()) {
        request.expect_steps_per_hour = TRY(supervisor::parse_expected_rate(options.expect_rate));
    }
    return request;
}

std::string register_command_line(const common::JobId& job, const RegistrationOptions& options) {
    std::string line = "supervisor register " + job.to_string();
    auto add = [&line](const std::string& option, const std::string& value) {
        line += " " + option + " " + shell_quoted(value);
    };
    if (!options.checkpoint_dir.empty()) {
        add("--checkpoint-dir", options.checkpoint_dir);
    }
    if (!options.checkpoint_pattern.empty()) {
        add("--checkpoint-pattern", options.checkpoint_pattern);
    }
    if (!options.checkpoint_marker.empty()) {
        add("--checkpoint-marker", options.checkpoint_marker);
    }
    std::string allow;
    for (const auto& action : options.allow) {
        allow += (allow.empty() ? "" : ",") + action;
    }
    if (!allow.empty()) {
        add("--allow", allow);
    }
    for (const auto& knob : options.knobs) {
        add("--knob", knob);
    }
    add("--max-attempts", std::to_string(options.max_attempts));
    for (const auto& target : options.notify) {
        add("--notify", target);
    }
    add("--stall-timeout", options.stall_timeout);
    if (!options.progress_pattern.empty()) {
        add("--progress-pattern", options.progress_pattern);
    }
    if (!options.expect_rate.empty()) {
        add("--expect-rate", options.expect_rate);
    }
    return line;
}

}  // namespace cli
