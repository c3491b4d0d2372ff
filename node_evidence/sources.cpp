// The sources are independent (a Prometheus that is down does not keep the epilog's files
// from being read), so each is asked whatever the others answered.
#include "node_evidence/sources.h"

#include <unistd.h>

#include "http/transfer.h"
#include "node_evidence/epilog_spool.h"
#include "node_evidence/prometheus_source.h"

namespace node_evidence {

Found Combined::gather(const Request& request) {
    Found all;
    for (const auto& source : m_sources) {
        auto found = source->gather(request);
        all.signals.insert(all.signals.end(), std::make_move_iterator(found.signals.begin()),
                           std::make_move_iterator(found.signals.end()));
        all.kernel_logs.insert(all.kernel_logs.end(),
                               std::make_move_iterator(found.kernel_logs.begin()),
                               std::make_move_iterator(found.kernel_logs.end()));
        all.notes.insert(all.notes.end(), found.notes.begin(), found.notes.end());
    }
    return all;
}

std::unique_ptr<Source> make_sources(const Settings& settings, OwnerCheck slurm_user) {
    std::vector<std::unique_ptr<Source>> sources;
    if (!settings.prometheus.url.empty()) {
        sources.push_back(std::make_unique<PrometheusSource>(
            settings.prometheus, settings.window_margin, http::perform));
    }
    if (!settings.epilog_spool.empty()) {
        EpilogSpoolOptions options;
        options.directory = settings.epilog_spool;
        options.margin = settings.window_margin;
        options.self = ::geteuid();
        options.also_trusted = std::move(slurm_user);
        sources.push_back(std::make_unique<EpilogSpool>(std::move(options)));
    }
    if (sources.empty()) {
        return nullptr;
    }
    return std::make_unique<Combined>(std::move(sources));
}

}  // namespace node_evidence
