// Settings: the [evidence] section of the daemon's config (supervisor/config/config_evidence.cpp
// reads it; doc/configuration.md documents every key). Each source is optional: an empty URL or
// spool directory leaves it off. Plain values; validated when read.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace node_evidence {

// The DCGM exporter's series, as its default field list names them. Sites that relabel set
// their own names in [evidence.metrics].
struct MetricNames {
    std::string xid = "DCGM_FI_DEV_XID_ERRORS";                       // gauge: last Xid code
    std::string ecc_uncorrectable = "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL";  // counter
    std::string ecc_correctable = "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL";    // counter
    std::string row_remap_failure = "DCGM_FI_DEV_ROW_REMAP_FAILURE";  // gauge: 1 failed
    std::string nvlink_errors = "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL";  // counter
    std::string pcie_replays = "DCGM_FI_DEV_PCIE_REPLAY_COUNTER";                 // counter
    std::string temperature = "DCGM_FI_DEV_GPU_TEMP";                             // gauge, C
    std::string throttle_reasons = "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS";          // bitmask
    std::string engine_active = "DCGM_FI_PROF_GR_ENGINE_ACTIVE";                  // gauge 0..1
};

struct PrometheusSettings {
    std::string url;  // "http://host:9090" (an API prefix path is kept); empty: not queried
    // `key = value` lines, mode 0600: `user` and `password` (HTTP basic) or `token` (bearer).
    std::filesystem::path credentials_file;
    std::filesystem::path ca_file;      // TLS: the CA bundle to verify the server with
    std::filesystem::path client_cert;  // TLS client certificate (PEM), with client_key
    std::filesystem::path client_key;
    std::chrono::milliseconds timeout{3000};  // per query, connect included
    // The most queries one failure may cost (one per series); past it, the rest are skipped
    // with a note.
    std::size_t query_limit = 16;
    std::string hostname_label = "Hostname";  // the label that holds the node's name
    std::string gpu_label = "gpu";
    // label = value pairs every series asked for must carry (e.g. job = "dcgm-exporter", the
    // exporter's scrape job): a series a user pushed to a Pushgateway that Prometheus scrapes
    // carries the Pushgateway's job instead, so it is never taken for the node's telemetry.
    // Empty: any series with the node's hostname label (doctor warns).
    std::vector<std::pair<std::string, std::string>> series_labels;
    MetricNames metrics;
    // A GPU at or above this temperature during the run is mentioned (context only).
    double hot_celsius = 90.0;
    // A GPU whose graphics engine was at most this busy throughout is idle.
    double idle_below = 0.05;
};

struct Settings {
    PrometheusSettings prometheus;
    // The directory the shipped epilog (contrib/slurm/) writes into: one file per job and node.
    // Empty: not read.
    std::filesystem::path epilog_spool;
    // The run's window is widened by this much on both sides: a node's clock, the scrape
    // interval and the epilog's own lag.
    std::chrono::seconds window_margin{60};
};

}  // namespace node_evidence
