// The dashboard itself: one static page, its script and its style sheet, compiled in (no build
// step, nothing fetched from elsewhere). The script reads the API (api.h) and redraws the job
// list every few seconds without reloading the page; `#job=JOB` shows one job: its attempts,
// each diagnosis with its evidence, the checkpoint used and the fixes applied or withheld;
// `#nodes` the suspect nodes (operators).
// Every text that comes from a job (names, log lines, paths) is set as text, never as markup.
#pragma once

#include <optional>
#include <string_view>

namespace web {

struct StaticFile {
    std::string_view content_type;
    std::string_view body;
};

// "/", "/dashboard.js", "/dashboard.css"; nullopt for any other path.
[[nodiscard]] std::optional<StaticFile> dashboard_file(std::string_view path);

// The Content-Security-Policy the dashboard's answers carry: its own script and style only.
inline constexpr std::string_view k_content_security_policy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

}  // namespace web
