// One note per failure, not one per query: an operator reading a failure's journal needs to
// know that the node evidence is missing and why, once; and a Prometheus that is down must cost
// one timeout, not one per series. The presence check comes first because its answer is
// cheap (a few metric names) and it is what tells "the GPUs were healthy" (the queries return
// nothing) apart from "Prometheus has no such series for these nodes" (nothing to return).
#include "node_evidence/prometheus_source.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "common/join.h"
#include "http/url.h"
#include "node_evidence/dcgm_series.h"
#include "node_evidence/prometheus_signals.h"
#include "node_evidence/promql.h"

namespace node_evidence {
namespace {

// A label-values URL longer than this (a job on hundreds of nodes) is sent without the node
// list: proxies refuse long request lines (nginx: 8 KiB). The check is then "any node".
constexpr std::size_t k_url_limit = 6000;

bool shows_in_a_running_job(const Series& series) {
    switch (series.kind) {
        case recovery::NodeSignalKind::gpu_idle:
        case recovery::NodeSignalKind::temperature:
        case recovery::NodeSignalKind::thermal_throttle:
        case recovery::NodeSignalKind::nvlink_errors:
        case recovery::NodeSignalKind::pcie_replays:
            return true;
        default:
            return false;
    }
}

// The queries that failed, summed up into the one note.
struct Trouble {
    std::size_t failed = 0;
    std::string first;
};

}  // namespace

PrometheusSource::PrometheusSource(PrometheusSettings settings, std::chrono::seconds window_margin,
                                   Transport transport)
    : m_settings(std::move(settings)), m_margin(window_margin), m_transport(std::move(transport)) {}

Found PrometheusSource::gather(const Request& request) {
    Found found;
    if (request.nodes.empty()) {
        return found;
    }
    const std::string where = "node evidence: Prometheus " + http::redacted(m_settings.url);
    auto auth = read_prometheus_auth(m_settings);
    if (!auth) {
        found.notes.push_back(where + " not asked: " + auth.error().message +
                              (auth.error().hint.empty() ? "" : " (" + auth.error().hint + ")"));
        return found;
    }
    PrometheusClient client(m_settings, std::move(*auth), m_transport);
    const auto window = query_window(request.start, request.end, m_margin);
    auto all = dcgm_series(m_settings.metrics);
    if (request.slowdown_only) {
        // A job still running has not failed: what can make it slow or idle is asked, not
        // what would have ended it.
        std::erase_if(all, [](const Series& series) { return !shows_in_a_running_job(series); });
    }
    const std::string selector =
        with_labels(one_of(m_settings.hostname_label, request.nodes), m_settings.series_labels);
    const std::string limit_note =
        " (prometheus_query_limit = " + std::to_string(m_settings.query_limit) + ")";
    if (m_settings.query_limit == 0) {
        found.notes.push_back(where + " not asked" + limit_note);
        return found;
    }

    std::string presence = any_of_metrics(all, selector);
    if (client.label_values_url("__name__", presence, window).size() > k_url_limit) {
        presence = any_of_metrics(
            all, with_labels(m_settings.hostname_label + "!=\"\"", m_settings.series_labels));
    }
    const auto present = client.label_values("__name__", presence, window);
    if (!present) {
        found.notes.push_back(where + " " + present.error().reason +
                              "; diagnosed from the logs and Slurm alone");
        return found;
    }
    if (present->empty()) {
        std::vector<std::string> names;
        for (const auto& series : all) {
            names.push_back(series.metric);
        }
        found.notes.push_back(where + " has no samples of the DCGM series (" + common::join(names) +
                              ") with " + selector +
                              " in the run's window: if the site's "
                              "exporter names them otherwise, set them in [evidence.metrics], "
                              "and hostname_label to the label that holds the node's name");
        return found;
    }

    const SampleLabels labels{m_settings.hostname_label, m_settings.gpu_label};
    const Thresholds thresholds{m_settings.hot_celsius, m_settings.idle_below};
    Trouble trouble;
    std::vector<std::string> unasked;
    bool stopped = false;
    for (const auto& series : all) {
        if (std::ranges::find(*present, series.metric) == present->end()) {
            continue;
        }
        if (stopped || client.requests() >= m_settings.query_limit) {
            unasked.push_back(series.metric);
            continue;
        }
        const auto samples =
            client.query(series_query(series, selector, window, thresholds), window.at);
        if (!samples) {
            if (trouble.failed++ == 0) {
                trouble.first = series.metric + ": " + samples.error().reason;
            }
            stopped = samples.error().stop;
            continue;
        }
        auto signals = signals_from(series, *samples, request.nodes, labels, thresholds);
        for (auto& signal : signals) {
            // What the query saw, evaluated at the end of the run's window.
            signal.time = common::TimePoint(std::chrono::seconds(window.at));
        }
        found.signals.insert(found.signals.end(), std::make_move_iterator(signals.begin()),
                             std::make_move_iterator(signals.end()));
    }
    if (trouble.failed > 0 || !unasked.empty()) {
        std::string note = where + ": ";
        if (trouble.failed > 0) {
            note += std::to_string(trouble.failed) + " " +
                    (trouble.failed == 1 ? "query" : "queries") + " failed (" + trouble.first + ")";
        }
        if (!unasked.empty()) {
            note += std::string(trouble.failed > 0 ? "; " : "") +
                    "not asked: " + common::join(unasked) + (stopped ? "" : limit_note);
        }
        found.notes.push_back(note + "; those series were left out of the diagnosis");
    }
    return found;
}

}  // namespace node_evidence
