// contrib/grafana/slurm-supervisor.json, importable as Grafana exports it: every query names a
// family the daemon writes (DaemonMetrics after one recovery over the real poll cycle), groups
// only by labels
// that family carries, and every family the daemon writes is on some panel. A renamed metric
// or label fails here rather than as an empty panel on a site's screen.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "ops/daemon_metrics.h"
#include "tests/unit/ops/exposition_parser.h"
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace ops {
namespace {

nlohmann::json read_dashboard() {
    std::ifstream in(SUPERVISOR_GRAFANA_DASHBOARD);
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
}

std::vector<std::string> queries_of(const nlohmann::json& dashboard) {
    std::vector<std::string> queries;
    for (const auto& panel : dashboard.at("panels")) {
        for (const auto& target : panel.at("targets")) {
            queries.push_back(target.at("expr").get<std::string>());
        }
    }
    return queries;
}

// The family a sample name belongs to: a histogram's _bucket, _sum and _count are its series.
std::string family_of(const std::string& name, const test::Exposition& exposition) {
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        const std::string s(suffix);
        if (name.size() > s.size() && name.ends_with(s)) {
            const auto base = name.substr(0, name.size() - s.size());
            if (exposition.type.contains(base) && exposition.type.at(base) == "histogram") {
                return base;
            }
        }
    }
    return name;
}

class GrafanaDashboardTest : public supervisor::test::PollCycleTest {};

TEST_F(GrafanaDashboardTest, IsAGrafanaExportWithAPrometheusInput) {
    const auto dashboard = read_dashboard();
    EXPECT_EQ(dashboard.at("__inputs").at(0).at("pluginId"), "prometheus");
    EXPECT_FALSE(dashboard.at("title").get<std::string>().empty());
    std::set<int> ids;
    for (const auto& panel : dashboard.at("panels")) {
        EXPECT_TRUE(ids.insert(panel.at("id").get<int>()).second) << "panel ids are unique";
        EXPECT_EQ(panel.at("datasource").at("uid"), "${DS_PROMETHEUS}") << panel.at("title");
        EXPECT_FALSE(panel.at("targets").empty()) << panel.at("title");
    }
}

TEST_F(GrafanaDashboardTest, EveryQueryNamesWhatTheDaemonWritesAndEveryFamilyIsShown) {
    // One failure diagnosed and requeued, and one cycle recorded: every family has a sample
    // with its labels.
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    checkpoint("step_100.pt");
    fail(id, supervisor::test::k_nccl_log);
    cycle();
    DaemonMetrics metrics(m_clock.now());
    metrics.record_cycle(supervisor::CycleReport{}, std::chrono::milliseconds(30), m_clock.now());
    metrics.catch_up(*m_store);
    const auto exposition = test::parse_exposition(metrics.render(count_store(*m_store)));
    std::map<std::string, std::set<std::string>> labels;  // by family
    for (const auto& sample : exposition.samples) {
        auto& of_family = labels[family_of(sample.name, exposition)];
        for (const auto& [label, value] : sample.labels) {
            of_family.insert(label);
        }
    }

    const std::regex metric(R"(\b(supervisor_[a-z_]+)\b)");
    const std::regex grouping(R"(by \(([a-z_, ]+)\) \(([^()]*\()?(supervisor_[a-z_]+))");
    std::set<std::string> shown;
    for (const auto& query : queries_of(read_dashboard())) {
        for (auto it = std::sregex_iterator(query.begin(), query.end(), metric);
             it != std::sregex_iterator(); ++it) {
            const auto family = family_of((*it)[1].str(), exposition);
            EXPECT_TRUE(exposition.type.contains(family)) << family << " in: " << query;
            shown.insert(family);
        }
        for (auto it = std::sregex_iterator(query.begin(), query.end(), grouping);
             it != std::sregex_iterator(); ++it) {
            const auto family = family_of((*it)[3].str(), exposition);
            std::stringstream by((*it)[1].str());
            for (std::string label; std::getline(by, label, ',');) {
                label.erase(0, label.find_first_not_of(' '));
                const bool carried = label == "le" || label == "instance" ||
                                     (labels.contains(family) && labels[family].contains(label));
                EXPECT_TRUE(carried) << family << " has no label " << label << " in: " << query;
            }
        }
    }
    for (const auto& [family, type] : exposition.type) {
        EXPECT_TRUE(shown.contains(family)) << family << " (" << type << ") is on no panel";
    }
}

}  // namespace
}  // namespace ops
