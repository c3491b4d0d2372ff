#include "registration_route.h"

#include <unistd.h>

#include <filesystem>

extern char** environ;  // NOLINT: POSIX, the registering shell's environment

#include "common/clock.h"
#include "common/printable.h"
#include "common/try.h"
#include "control/client.h"
#include "control/views.h"
#include "ops/doctor.h"
#include "session.h"
#include "site_mode.h"

namespace cli {
common::Result<LocalRegistrar> open_local_registrar(const GlobalOptions& global) {
    auto store = TRY(open_store(global));
    auto client = TRY(connect_slurm(global));
    auto config = TRY(daemon_config(global, "", {}));
    return LocalRegistrar{std::move(store), std::move(client), std::move(config)};
}

void attach_shell_environment(supervisor::RegisterRequest& request) {
    request.environment.clear();
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        request.environment.emplace_back(*entry);
    }
}

namespace {

// Relative paths mean this shell's directory, which the daemon does not share.
supervisor::RegisterRequest with_absolute_paths(supervisor::RegisterRequest request) {
    if (!request.checkpoint_dir.empty()) {
        std::error_code ec;
        const auto absolute = std::filesystem::absolute(request.checkpoint_dir, ec);
        if (!ec) {
            request.checkpoint_dir = absolute.lexically_normal().string();
        }
    }
    return request;
}

}  // namespace

std::vector<DaemonAnswer> register_with_daemon(const control::DaemonRoute& route,
                                               const supervisor::RegisterRequest& options,
                                               std::span<const common::JobId> jobs,
                                               bool keep_watched) {
    std::vector<DaemonAnswer> answers;
    answers.reserve(jobs.size());
    control::Request call;
    call.operation = control::Operation::register_many;
    call.registration = with_absolute_paths(options);
    call.keep_watched = keep_watched;
    for (std::size_t first = 0; first < jobs.size(); first += control::k_max_jobs_per_request) {
        const auto batch =
            jobs.subspan(first, std::min(control::k_max_jobs_per_request, jobs.size() - first));
        call.jobs.clear();
        for (const auto& job : batch) {
            call.jobs.push_back(job.to_string());
        }
        auto reply = control::call(route, call);
        if (reply && reply->exit_status == 0 && reply->each.size() != batch.size()) {
            reply =
                common::fail("the site daemon answered for " + std::to_string(reply->each.size()) +
                                 " of " + std::to_string(batch.size()) + " jobs",
                             "use the `supervisor` installed with the daemon");
        }
        for (std::size_t i = 0; i < batch.size(); ++i) {
            DaemonAnswer answer{batch[i], false, control::Registered{}};
            if (!reply) {
                answer.result = tl::unexpected(reply.error());
            } else if (reply->exit_status != 0) {
                answer.result = tl::unexpected(reply->error);
            } else if (auto& item = reply->each[i]; item.registered) {
                answer.result = std::move(*item.registered);
            } else if (item.already_watched) {
                answer.already_watched = true;
            } else {
                answer.result = tl::unexpected(item.error);
            }
            answers.push_back(std::move(answer));
        }
    }
    return answers;
}

common::Result<control::Registered> register_anywhere(const GlobalOptions& global,
                                                      supervisor::RegisterRequest request) {
    attach_shell_environment(request);
    if (const auto route = TRY(daemon_route(global))) {
        control::Request call;
        call.operation = control::Operation::register_job;
        call.job = request.job.to_string();
        call.registration = with_absolute_paths(std::move(request));
        auto reply = TRY(control::call(*route, call));
        if (reply.exit_status != 0) {
            return tl::unexpected(reply.error);
        }
        if (!reply.registered) {
            return common::fail("the site daemon answered without the registration",
                                "use the `supervisor` installed with the daemon");
        }
        return *reply.registered;
    }
    auto local = TRY(open_local_registrar(global));
    request.caller = ::getuid();
    common::SystemClock clock;
    const auto registration =
        supervisor::register_job(*local.store, *local.client, clock, local.config, request);
    if (!registration) {
        return tl::unexpected(registration.error());
    }
    return control::registered_summary(*registration, *local.store);
}

void say_not_carried(const control::Registered& registered, std::FILE* out) {
    if (registered.not_carried.empty()) {
        return;
    }
    std::string options;
    for (const auto& option : registered.not_carried) {
        options += (options.empty() ? "" : "; ") + option;
    }
    std::fprintf(out, "warning: a resubmit cannot carry: %s\n", common::printable(options).c_str());
}

void say_checkpoint_layout(const supervisor::RegisterRequest& request, std::FILE* out) {
    if (request.checkpoint_dir.empty()) {
        return;
    }
    const auto line = ops::checkpoint_layout_line(
        request.checkpoint_dir, request.checkpoint_pattern, request.checkpoint_marker,
        common::SystemClock().now() - supervisor::Config{}.checkpoint_settle);
    std::fprintf(out, "checkpoints: %s\n",
                 line ? line->c_str() : common::printable(line.error().message).c_str());
}

}  // namespace cli
