#include "json_output.h"

namespace cli {
namespace {

nlohmann::json optional_time(const std::optional<slurm::TimePoint>& when) {
    return when ? nlohmann::json(format_time(*when)) : nlohmann::json(nullptr);
}

template <typename T>
nlohmann::json optional_value(const std::optional<T>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json to_json(const slurm::JobSnapshot& job) {
    return {
        {"id", job.id.to_string()},
        {"raw_job_id", job.raw_job_id},
        {"name", job.name},
        {"user_id", job.user_id},
        {"state", slurm::to_string(job.state)},
        {"completing", job.completing},
        {"held", job.held},
        {"state_reason", job.state_reason},
        {"exit_code", optional_value(job.exit_code)},
        {"signal", optional_value(job.signal)},
        {"restart_count", job.restart_count},
        {"nodes", job.nodes},
        {"excluded_nodes", job.excluded_nodes},
        {"required_nodes", job.required_nodes},
        {"batch_host", job.batch_host},
        {"std_out", job.std_out},
        {"std_err", job.std_err},
        {"work_dir", job.work_dir},
        {"partition", job.partition},
        {"submit_time", optional_time(job.submit_time)},
        {"start_time", optional_time(job.start_time)},
        {"end_time", optional_time(job.end_time)},
        {"time_limit_minutes",
         job.time_limit ? nlohmann::json(job.time_limit->count()) : nlohmann::json(nullptr)},
        {"requeueable", job.requeueable},
        {"batch", job.batch},
    };
}

nlohmann::json to_json(const slurm::NodeSnapshot& node) {
    return {{"name", node.name},
            {"state", slurm::to_string(node.state)},
            {"not_responding", node.not_responding},
            {"drain", node.drain},
            {"reason", node.reason},
            {"reason_time", optional_time(node.reason_time)}};
}

}  // namespace cli
