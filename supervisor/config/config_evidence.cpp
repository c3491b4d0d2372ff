// Kept apart from config.cpp so the node-evidence keys (and their checks) live in one place.
// Metric and label names are checked against Prometheus' own grammar here, so that a typing
// error is a startup error and not a query that silently matches nothing at 3 a.m.
#include "supervisor/config/config_evidence.h"

#include <array>
#include <cctype>
#include <utility>

#include "common/try.h"
#include "supervisor/config/config_table.h"

namespace supervisor {
namespace {

constexpr std::array<const char*, 15> k_evidence_keys{
    "prometheus_url",        "prometheus_credentials_file",
    "prometheus_ca_file",    "prometheus_client_cert",
    "prometheus_client_key", "prometheus_timeout_ms",
    "hostname_label",        "gpu_label",
    "series_labels",         "hot_celsius",
    "idle_below_percent",    "epilog_spool",
    "window_margin_s",       "metrics",
    "prometheus_query_limit"};

constexpr std::array<const char*, 9> k_metric_keys{
    "xid",          "ecc_uncorrectable", "ecc_correctable",  "row_remap_failure", "nvlink_errors",
    "pcie_replays", "temperature",       "throttle_reasons", "engine_active"};

// Prometheus' grammar: [a-zA-Z_:][a-zA-Z0-9_:]* for metrics, no ':' in label names.
bool valid_name(const std::string& name, bool colons) {
    if (name.empty()) {
        return false;
    }
    for (std::size_t i = 0; i < name.size(); ++i) {
        const auto c = static_cast<unsigned char>(name[i]);
        const bool ok = std::isalpha(c) != 0 || c == '_' || (colons && c == ':') ||
                        (i > 0 && std::isdigit(c) != 0);
        if (!ok) {
            return false;
        }
    }
    return true;
}

common::Result<void> read_name(const TableReader& reader, const std::string& key, std::string& out,
                               bool colons) {
    if (auto read = reader.string(key, out); !read) {
        return read;
    }
    if (!valid_name(out, colons)) {
        return common::fail(reader.where(key) + " is not a Prometheus " +
                                (colons ? "metric" : "label") + " name: '" + out + "'",
                            "letters, digits and '_'" + std::string(colons ? " or ':'" : "") +
                                ", not starting with a digit");
    }
    return {};
}

common::Result<void> read_metrics(const toml::node& node, const std::filesystem::path& file,
                                  node_evidence::MetricNames& names) {
    const auto reader = TRY(TableReader::of(node, file, "evidence.metrics"));
    if (auto known = reader.only_keys(k_metric_keys); !known) {
        return known;
    }
    const std::pair<const char*, std::string*> fields[] = {
        {"xid", &names.xid},
        {"ecc_uncorrectable", &names.ecc_uncorrectable},
        {"ecc_correctable", &names.ecc_correctable},
        {"row_remap_failure", &names.row_remap_failure},
        {"nvlink_errors", &names.nvlink_errors},
        {"pcie_replays", &names.pcie_replays},
        {"temperature", &names.temperature},
        {"throttle_reasons", &names.throttle_reasons},
        {"engine_active", &names.engine_active}};
    for (const auto& [key, field] : fields) {
        if (auto read = read_name(reader, key, *field, true); !read) {
            return read;
        }
    }
    return {};
}

// series_labels = { job = "dcgm-exporter" }: label names by Prometheus' grammar, values
// non-empty strings (an empty one would match series without the label, pushed ones too).
common::Result<void> read_series_labels(const TableReader& reader,
                                        std::vector<std::pair<std::string, std::string>>& labels) {
    const auto* node = reader.table().get("series_labels");
    if (node == nullptr) {
        return {};
    }
    const auto* table = node->as_table();
    const std::string example = "e.g. series_labels = { job = \"dcgm-exporter\" }";
    if (table == nullptr) {
        return common::fail(reader.where("series_labels") + " must be a table of label = \"value\"",
                            example);
    }
    for (const auto& [key, value] : *table) {
        const std::string label(key.str());
        const auto* text = value.as_string();
        if (!valid_name(label, false) || label.starts_with("__")) {
            return common::fail(
                reader.where("series_labels") + ": '" + label + "' is not a Prometheus label name",
                "letters, digits and '_', not starting with a digit or '__'");
        }
        if (text == nullptr || text->get().empty()) {
            return common::fail(
                reader.where("series_labels") + ": " + label + " must be a non-empty string",
                example);
        }
        labels.emplace_back(label, text->get());
    }
    return {};
}

}  // namespace

common::Result<void> read_evidence_config(const toml::node& section,
                                          const std::filesystem::path& file,
                                          node_evidence::Settings& settings) {
    const auto reader = TRY(TableReader::of(section, file, "evidence"));
    if (auto known = reader.only_keys(k_evidence_keys); !known) {
        return known;
    }
    auto& prometheus = settings.prometheus;
    std::int64_t timeout = prometheus.timeout.count(), margin = settings.window_margin.count();
    std::int64_t hot = static_cast<std::int64_t>(prometheus.hot_celsius);
    std::int64_t idle_percent = static_cast<std::int64_t>(prometheus.idle_below * 100);
    for (auto result :
         {reader.url("prometheus_url", prometheus.url, {"http://", "https://"}),
          reader.absolute_path("prometheus_credentials_file", prometheus.credentials_file),
          reader.absolute_path("prometheus_ca_file", prometheus.ca_file),
          reader.absolute_path("prometheus_client_cert", prometheus.client_cert),
          reader.absolute_path("prometheus_client_key", prometheus.client_key),
          reader.positive("prometheus_timeout_ms", timeout, 60'000),
          reader.positive("prometheus_query_limit", prometheus.query_limit, 64),
          read_name(reader, "hostname_label", prometheus.hostname_label, false),
          read_name(reader, "gpu_label", prometheus.gpu_label, false),
          reader.positive("hot_celsius", hot, 200),
          reader.positive("idle_below_percent", idle_percent, 100),
          reader.absolute_path("epilog_spool", settings.epilog_spool),
          reader.positive("window_margin_s", margin, 3600)}) {
        if (!result) {
            return result;
        }
    }
    TRY(read_series_labels(reader, prometheus.series_labels));
    if (prometheus.client_cert.empty() != prometheus.client_key.empty()) {
        return common::fail(
            reader.where("prometheus_client_cert") + " and 'prometheus_client_key' go together",
            "set both (a PEM certificate and its key) or neither");
    }
    prometheus.timeout = std::chrono::milliseconds(timeout);
    prometheus.hot_celsius = static_cast<double>(hot);
    prometheus.idle_below = static_cast<double>(idle_percent) / 100.0;
    settings.window_margin = std::chrono::seconds(margin);
    if (const auto* metrics = reader.table().get("metrics")) {
        if (auto read = read_metrics(*metrics, file, prometheus.metrics); !read) {
            return read;
        }
    }
    return {};
}

}  // namespace supervisor
