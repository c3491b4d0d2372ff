// make_sources(): the daemon's node evidence, every source the [evidence] settings turn on
// (Prometheus when prometheus_url is set, the epilog spool when epilog_spool is), asked one
// after the other; nullptr when none is. Building one opens nothing: each source connects or
// reads only when gather() is called, so a source that is down costs nothing until a failure.
#pragma once

#include <memory>
#include <vector>

#include "node_evidence/settings.h"
#include "node_evidence/source.h"
#include "node_evidence/spool_trust.h"

namespace node_evidence {

// Asks each source in turn and puts their answers together.
class Combined final : public Source {
  public:
    explicit Combined(std::vector<std::unique_ptr<Source>> sources)
        : m_sources(std::move(sources)) {}
    [[nodiscard]] Found gather(const Request& request) override;

  private:
    std::vector<std::unique_ptr<Source>> m_sources;
};

// `slurm_user`: whether a uid is Slurm's SlurmUser (the daemon asks slurmctld), an owner the
// epilog spool trusts beside root and the daemon's own uid; empty: none.
[[nodiscard]] std::unique_ptr<Source> make_sources(const Settings& settings,
                                                   OwnerCheck slurm_user = {});

}  // namespace node_evidence
