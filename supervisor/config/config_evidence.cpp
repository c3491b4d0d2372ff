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

using Metrics = node_evidence::MetricNames;
using Prometheus = node_evidence::PrometheusSettings;
using Evidence = node_evidence::Settings;

template <auto member>
common::Result<void> metric_key(const TableReader& reader, const std::string& key, Metrics& names) {
    return read_name(reader, key, names.*member, true);
}

constexpr std::array k_metric_keys{
    KeyRow<Metrics>{"xid", metric_key<&Metrics::xid>},
    KeyRow<Metrics>{"ecc_uncorrectable", metric_key<&Metrics::ecc_uncorrectable>},
    KeyRow<Metrics>{"ecc_correctable", metric_key<&Metrics::ecc_correctable>},
    KeyRow<Metrics>{"row_remap_failure", metric_key<&Metrics::row_remap_failure>},
    KeyRow<Metrics>{"nvlink_errors", metric_key<&Metrics::nvlink_errors>},
    KeyRow<Metrics>{"pcie_replays", metric_key<&Metrics::pcie_replays>},
    KeyRow<Metrics>{"temperature", metric_key<&Metrics::temperature>},
    KeyRow<Metrics>{"throttle_reasons", metric_key<&Metrics::throttle_reasons>},
    KeyRow<Metrics>{"engine_active", metric_key<&Metrics::engine_active>},
};

// series_labels = { job = "dcgm-exporter" }: label names by Prometheus' grammar, values
// non-empty strings (an empty one would match series without the label, pushed ones too).
common::Result<void> series_labels_key(const TableReader& reader, const std::string& key,
                                       Evidence& settings) {
    auto& labels = settings.prometheus.series_labels;
    const auto* node = reader.table().get(key);
    if (node == nullptr) {
        return {};
    }
    const auto* table = node->as_table();
    const std::string example = "e.g. series_labels = { job = \"dcgm-exporter\" }";
    if (table == nullptr) {
        return common::fail(reader.where(key) + " must be a table of label = \"value\"", example);
    }
    for (const auto& [name, value] : *table) {
        const std::string label(name.str());
        const auto* text = value.as_string();
        if (!valid_name(label, false) || label.starts_with("__")) {
            return common::fail(
                reader.where(key) + ": '" + label + "' is not a Prometheus label name",
                "letters, digits and '_', not starting with a digit or '__'");
        }
        if (text == nullptr || text->get().empty()) {
            return common::fail(reader.where(key) + ": " + label + " must be a non-empty string",
                                example);
        }
        labels.emplace_back(label, text->get());
    }
    return {};
}

// A row of the [evidence] table that reads into its Prometheus settings.
template <auto row>
common::Result<void> prometheus_key(const TableReader& reader, const std::string& key,
                                    Evidence& settings) {
    return row(reader, key, settings.prometheus);
}

template <auto member>
common::Result<void> label_key(const TableReader& reader, const std::string& key,
                               Evidence& settings) {
    return read_name(reader, key, settings.prometheus.*member, false);
}

// A certificate goes with its key: this row comes after prometheus_client_cert's.
common::Result<void> client_key_key(const TableReader& reader, const std::string& key,
                                    Evidence& settings) {
    auto& prometheus = settings.prometheus;
    TRY(reader.absolute_path(key, prometheus.client_key));
    if (prometheus.client_cert.empty() != prometheus.client_key.empty()) {
        return common::fail(reader.where(key) + " and 'prometheus_client_cert' go together",
                            "set both (a PEM certificate and its key) or neither");
    }
    return {};
}

// Whole degrees in the file.
common::Result<void> hot_celsius_key(const TableReader& reader, const std::string& key,
                                     Evidence& settings) {
    auto hot = static_cast<std::int64_t>(settings.prometheus.hot_celsius);
    TRY(reader.positive(key, hot, 200));
    settings.prometheus.hot_celsius = static_cast<double>(hot);
    return {};
}

// A percentage in the file, a fraction in the settings.
common::Result<void> idle_below_key(const TableReader& reader, const std::string& key,
                                    Evidence& settings) {
    auto percent = static_cast<std::int64_t>(settings.prometheus.idle_below * 100);
    TRY(reader.positive(key, percent, 100));
    settings.prometheus.idle_below = static_cast<double>(percent) / 100.0;
    return {};
}

common::Result<void> metrics_key(const TableReader& reader, const std::string& key,
                                 Evidence& settings) {
    const auto* node = reader.table().get(key);
    if (node == nullptr) {
        return {};
    }
    const auto metrics = TRY(TableReader::of(*node, reader.file(), "evidence." + key));
    return metrics.read_rows(k_metric_keys, settings.prometheus.metrics);
}

constexpr std::array k_evidence_keys{
    KeyRow<Evidence>{"prometheus_url", prometheus_key<web_url_key<&Prometheus::url, Prometheus>>},
    KeyRow<Evidence>{"prometheus_credentials_file",
                     prometheus_key<absolute_path_key<&Prometheus::credentials_file, Prometheus>>},
    KeyRow<Evidence>{"prometheus_ca_file",
                     prometheus_key<absolute_path_key<&Prometheus::ca_file, Prometheus>>},
    KeyRow<Evidence>{"prometheus_client_cert",
                     prometheus_key<absolute_path_key<&Prometheus::client_cert, Prometheus>>},
    KeyRow<Evidence>{"prometheus_client_key", client_key_key},
    KeyRow<Evidence>{"prometheus_timeout_ms",
                     prometheus_key<duration_key<&Prometheus::timeout, 60'000, Prometheus>>},
    KeyRow<Evidence>{"prometheus_query_limit",
                     prometheus_key<count_key<&Prometheus::query_limit, 64, Prometheus>>},
    KeyRow<Evidence>{"hostname_label", label_key<&Prometheus::hostname_label>},
    KeyRow<Evidence>{"gpu_label", label_key<&Prometheus::gpu_label>},
    KeyRow<Evidence>{"series_labels", series_labels_key},
    KeyRow<Evidence>{"hot_celsius", hot_celsius_key},
    KeyRow<Evidence>{"idle_below_percent", idle_below_key},
    KeyRow<Evidence>{"epilog_spool", absolute_path_key<&Evidence::epilog_spool>},
    KeyRow<Evidence>{"window_margin_s", duration_key<&Evidence::window_margin, 3600>},
    KeyRow<Evidence>{"metrics", metrics_key},
};

}  // namespace

common::Result<void> read_evidence_config(const toml::node& section,
                                          const std::filesystem::path& file,
                                          node_evidence::Settings& settings) {
    const auto reader = TRY(TableReader::of(section, file, "evidence"));
    return reader.read_rows(k_evidence_keys, settings);
}

}  // namespace supervisor
