// Why this is not a loop over register_job: each registration used to cost a process, a Slurm
// query and two commits; a sweep of a thousand jobs is one query and one commit here, and
// through the site daemon's socket one request per thousand jobs.
#include "register_many.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "common/clock.h"
#include "common/printable.h"
#include "common/try.h"
#include "control/views.h"
#include "daemon_watch.h"
#include "registration_route.h"
#include "session.h"
#include "site_mode.h"

namespace cli {
namespace {

bool is_candidate(const slurm::JobSnapshot& job, const ManyJobs& filter) {
    const bool alive = job.state == slurm::JobState::pending ||
                       job.state == slurm::JobState::running ||
                       job.state == slurm::JobState::suspended;
    return alive && job.batch && (filter.name.empty() || job.name == filter.name) &&
           (filter.partition.empty() || job.partition == filter.partition);
}

// The ids typed, then the caller's own jobs with --mine (each once, in that order).
common::Result<std::vector<common::JobId>> jobs_named(const GlobalOptions& global,
                                                      const ManyJobs& jobs) {
    std::vector<common::JobId> ids;
    std::set<common::JobId> seen;
    for (const auto& text : jobs.ids) {
        auto id = TRY(parse_job(text));
        if (seen.insert(id).second) {
            ids.push_back(id);
        }
    }
    if (!jobs.mine) {
        return ids;
    }
    auto client = TRY(connect_slurm(global));
    const auto mine = client->load_user_jobs(::getuid());
    if (!mine) {
        return common::fail("listing your jobs: " + mine.error().message,
                            "check that slurmctld is running (`scontrol ping`)");
    }
    std::size_t added = 0;
    for (const auto& job : *mine) {
        if (is_candidate(job, jobs) && seen.insert(job.id).second) {
            ids.push_back(job.id);
            ++added;
        }
    }
    if (added == 0 && ids.empty()) {
        return common::fail("--mine found no pending or running batch job of yours" +
                                std::string(jobs.name.empty() ? "" : " named " + jobs.name) +
                                (jobs.partition.empty() ? "" : " in " + jobs.partition),
                            "see your jobs with `squeue --me`");
    }
    return ids;
}

struct Tally {
    std::size_t enabled = 0;
    std::size_t unsupervised = 0;  // credential_error: registered, the checks failed
    std::size_t failed = 0;        // not registered
    std::size_t already = 0;       // --mine: watched already, left as they are
};

// `quiet`: a task of an array registered whole says something only when it went wrong; the
// array's line and the count say the rest.
void say(std::FILE* out, const common::JobId& job,
         const common::Result<control::Registered>& result, Tally& tally, bool quiet) {
    if (!result) {
        ++tally.failed;
        std::fprintf(out, "job %s: not registered: %s (%s)\n", job.to_string().c_str(),
                     common::printable(result.error().message).c_str(),
                     common::printable(result.error().hint).c_str());
        return;
    }
    if (result->status == state::Status::credential_error) {
        ++tally.unsupervised;
    } else {
        ++tally.enabled;
        if (quiet) {
            return;
        }
    }
    std::fprintf(out, "registered job %s (%s): %s%s%s\n", job.to_string().c_str(),
                 common::printable(result->job_name).c_str(),
                 std::string(state::to_string(result->status)).c_str(),
                 result->status == state::Status::credential_error ? ": " : "",
                 result->status == state::Status::credential_error
                     ? common::printable(result->status_reason).c_str()
                     : "");
    if (!result->not_carried.empty()) {
        std::fprintf(out, "job %s: ", job.to_string().c_str());
        say_not_carried(*result, out);
    }
}

}  // namespace

common::Result<bool> names_an_array(const GlobalOptions& global, const common::JobId& job) {
    if (job.array_task) {
        return false;
    }
    auto slurm = TRY(connect_slurm(global));
    const std::vector<common::JobId> ids{job};
    const auto expanded = TRY(supervisor::expand_arrays(*slurm, ids));
    return !expanded.arrays.empty();
}

common::Result<int> register_many(const GlobalOptions& global, const ManyJobs& jobs,
                                  const supervisor::RegisterRequest& options, std::FILE* out) {
    if (!jobs.mine && (!jobs.name.empty() || !jobs.partition.empty())) {
        return common::fail("--name and --partition choose among your jobs: they need --mine",
                            "e.g. `supervisor register --mine --name sweep`");
    }
    TRY(supervisor::check_request(options));
    const auto named = TRY(jobs_named(global, jobs));
    // An array id stands for all its tasks, present and future (one more query per array).
    auto slurm = TRY(connect_slurm(global));
    const auto expanded = TRY(supervisor::expand_arrays(*slurm, named));
    const auto* ids = &expanded.jobs;
    std::set<std::uint32_t> arrays;
    for (const auto& array : expanded.arrays) {
        arrays.insert(array.job);
        const auto tasks = std::ranges::count_if(
            *ids, [&](const common::JobId& id) { return id.job == array.job && id.array_task; });
        std::fprintf(out,
                     "job array %s: %td tasks, each watched and recovered on its own; one summary "
                     "message when all have ended\n",
                     array.to_string().c_str(), tasks);
    }
    auto quiet = [&](const common::JobId& id) { return id.array_task && arrays.contains(id.job); };
    auto options_for_all = options;
    options_for_all.whole_array = !arrays.empty();  // only tasks take it (see register_jobs)
    attach_shell_environment(options_for_all);
    Tally tally;
    // --mine: a job named on the command line is registered or refused as asked; the others
    // found are left as they are when already watched. (A set: ids may be tens of thousands.)
    const std::set<std::string> typed(jobs.ids.begin(), jobs.ids.end());
    auto found_by_mine = [&](const common::JobId& id) {
        return jobs.mine && !typed.contains(id.to_string());
    };
    if (const auto route = TRY(daemon_route(global))) {
        std::vector<common::JobId> typed_ids;
        std::vector<common::JobId> found;
        for (const auto& id : *ids) {
            (found_by_mine(id) ? found : typed_ids).push_back(id);
        }
        for (const auto* part : {&typed_ids, &found}) {
            for (auto& answer :
                 register_with_daemon(*route, options_for_all, *part, part == &found)) {
                if (answer.already_watched) {
                    ++tally.already;
                } else {
                    say(out, answer.job, answer.result, tally, quiet(answer.job));
                }
            }
        }
    } else {
        auto local = TRY(open_local_registrar(global));
        auto request = options_for_all;
        request.caller = ::getuid();
        std::vector<common::JobId> wanted;
        for (const auto& id : *ids) {
            if (found_by_mine(id)) {
                const auto existing = local.store->registration(id);
                if (existing && existing->watching &&
                    existing->status != state::Status::credential_error) {
                    ++tally.already;
                    continue;
                }
            }
            wanted.push_back(id);
        }
        common::SystemClock clock;
        for (auto& [job, result] : supervisor::register_jobs(*local.store, *local.client, clock,
                                                             local.config, request, wanted)) {
            say(out, job,
                result ? common::Result<control::Registered>(
                             control::registered_summary(*result, *local.store))
                       : tl::unexpected(result.error()),
                tally, quiet(job));
        }
    }
    std::fprintf(out,
                 "%zu of %zu jobs registered: %zu enabled, %zu cannot be supervised (see their "
                 "reasons above); %zu not registered%s\n",
                 tally.enabled + tally.unsupervised, ids->size() - tally.already, tally.enabled,
                 tally.unsupervised, tally.failed,
                 tally.already == 0
                     ? ""
                     : ("; " + std::to_string(tally.already) + " already watched").c_str());
    if (tally.enabled > 0) {
        say_watcher(global, out);
    }
    return tally.failed == 0 && tally.unsupervised == 0 ? 0 : 1;
}

}  // namespace cli
