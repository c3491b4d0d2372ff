// The dashboard's JSON API, version 1, read-only. Every answer is what the control channel's
// handlers give the same caller for the same question (`supervisor status --json`, `events
// --json`, `daemon`): one encoder, one set of access rules.
//
//   GET /api/v1/daemon              who serves, and the age of its last poll cycle
//   GET /api/v1/jobs[?all=1][&limit=N][&after=JOB]
//                                   the watched jobs the caller may see (all=1: finished and
//                                   unregistered ones too), as `status --json`, a page of at
//                                   most limit (default k_default_page, at most k_max_page)
//                                   after the job `after` (the previous page's last)
//   GET /api/v1/jobs/JOB            one job, as `status JOB --json`: a list of one (an
//                                   array's id: of its tasks), with attempts, last decision
//   GET /api/v1/nodes               the suspect nodes (operators only, 403 for anyone else): one
//                                   per node, failures, jobs, drained, last reported
//   GET /api/v1/jobs/JOB/events     its journal, oldest first, as `events JOB --json`: the
//                                   timeline, diagnoses with their evidence, the actions taken
//                                   and the ones withheld
//
// Errors are {"error": ..., "hint": ...}: 404 for an unknown path and for a job that is not
// registered or not the caller's (the same answer, so nobody learns which ids another user
// registered), 400 for a job id that is no job id.
#pragma once

#include <cstdint>
#include <string_view>

#include "control/handlers.h"
#include "web/http_server.h"

namespace web {

inline constexpr std::string_view k_api_prefix = "/api/v1/";
// A listing's page: what one answer of the job list holds at most, so that its cost does not
// grow with the site (10,000 jobs with weeks of attempts are 36 MB of JSON).
inline constexpr std::uint32_t k_default_page = 100;
inline constexpr std::uint32_t k_max_page = 1000;

// `handlers` answers for `peer`; called from the dashboard's thread only.
[[nodiscard]] HttpResponse answer_api(const HttpRequest& request, const control::Peer& peer,
                                      control::Handlers& handlers);

}  // namespace web
