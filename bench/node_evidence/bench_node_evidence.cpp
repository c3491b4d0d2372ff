// What the node evidence costs a failure: the Prometheus source's gather() against a real
// Prometheus holding the DCGM exporter's nine series for NODES nodes x 8 GPUs (pushed through a
// real Pushgateway, scraped every second), for failed runs on 1, 4, 16 and 64 of those nodes,
// one of which shows an Xid 79 and new double-bit ECC errors. Then the same with Prometheus
// stopped (the cost of the one note).
//
//   bench_node_evidence [NODES=64] [REPEAT=20] [HISTORY_S=20]
//
// Per run size: requests sent (counted by a transport around http::perform), bytes of answers,
// signals found, and the wall time of one gather() (median and max of REPEAT), plus the
// requests Prometheus itself says it served (its prometheus_http_requests_total), which must
// equal ours. HISTORY_S: how long the series are scraped before measuring (the window holds
// that many samples per series).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "http/transfer.h"
#include "node_evidence/dcgm_series.h"
#include "node_evidence/prometheus_source.h"
#include "tests/support/prometheus_stack.h"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string node_name(int i) {
    char name[32];
    std::snprintf(name, sizeof name, "gpu-node-%02d", i);
    return name;
}

// Healthy values for every series of every GPU of `node`; `bad` raises Xid and DBE.
std::string exposition(bool bad) {
    const node_evidence::MetricNames m;
    std::string text;
    for (int gpu = 0; gpu < 8; ++gpu) {
        const auto l = "{gpu=\"" + std::to_string(gpu) + "\"} ";
        const bool hit = bad && gpu == 3;
        text += m.xid + l + (hit ? "79" : "0") + "\n";
        text += m.ecc_uncorrectable + l + (hit ? "2" : "0") + "\n";
        text += m.ecc_correctable + l + "0\n";
        text += m.row_remap_failure + l + "0\n";
        text += m.nvlink_errors + l + "0\n";
        text += m.pcie_replays + l + "0\n";
        text += m.temperature + l + "65\n";
        text += m.throttle_reasons + l + "0\n";
        text += m.engine_active + l + "0.93\n";
    }
    return text;
}

struct Counted {
    std::size_t requests = 0;
    std::size_t bytes = 0;
};

node_evidence::Transport counting(Counted& counted) {
    return [&counted](const http::Request& request) {
        ++counted.requests;
        auto response = http::perform(request);
        if (response) {
            counted.bytes += response->body.size();
        }
        return response;
    };
}

struct Figures {
    double median_ms = 0, max_ms = 0;
    double requests = 0, bytes = 0;
    std::size_t signals = 0, notes = 0;
};

Figures measure(const node_evidence::PrometheusSettings& settings,
                const node_evidence::Request& request, int repeat) {
    Counted counted;
    node_evidence::PrometheusSource source(settings, 60s, counting(counted));
    std::vector<double> ms;
    Figures figures;
    for (int i = 0; i < repeat; ++i) {
        const auto start = Clock::now();
        const auto found = source.gather(request);
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        figures.signals = found.signals.size();
        figures.notes = found.notes.size();
    }
    std::sort(ms.begin(), ms.end());
    figures.median_ms = ms[ms.size() / 2];
    figures.max_ms = ms.back();
    figures.requests = static_cast<double>(counted.requests) / repeat;
    figures.bytes = static_cast<double>(counted.bytes) / repeat;
    return figures;
}

}  // namespace

int main(int argc, char** argv) {
    const int nodes = argc > 1 ? std::atoi(argv[1]) : 64;
    const int repeat = argc > 2 ? std::atoi(argv[2]) : 20;
    const int history = argc > 3 ? std::atoi(argv[3]) : 20;
    const auto dir = std::filesystem::temp_directory_path() /
                     ("bench-node-evidence-" + std::to_string(::getpid()));
    try {
        test_support::PrometheusStack stack(dir);
        for (int i = 0; i < nodes; ++i) {
            stack.push(node_name(i), exposition(false));
        }
        if (!stack.wait_for_value(
                "count(DCGM_FI_DEV_XID_ERRORS) == bool " + std::to_string(nodes * 8), 1, 60s)) {
            std::fprintf(stderr, "Prometheus did not scrape the series\n");
            return 1;
        }
        const auto started = std::chrono::system_clock::now();
        std::this_thread::sleep_for(std::chrono::seconds(history / 2));
        stack.push(node_name(0), exposition(true));  // the failing node
        if (!stack.wait_for_value("max(DCGM_FI_DEV_XID_ERRORS)", 79, 60s)) {
            std::fprintf(stderr, "Prometheus did not scrape the Xid\n");
            return 1;
        }
        std::this_thread::sleep_for(std::chrono::seconds(history - history / 2));

        node_evidence::PrometheusSettings settings;
        settings.url = stack.url();
        std::printf(
            "Prometheus %s: %d nodes x 8 GPUs x 9 series, %d s of 1 s scrapes, "
            "margin 60 s, %d gathers each\n\n",
            stack.url().c_str(), nodes, history, repeat);
        std::printf(
            "| run's nodes | requests | bytes received | signals | notes | ms median "
            "| ms max | served by Prometheus |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (const int size : {1, 4, 16, 64}) {
            if (size > nodes) {
                break;
            }
            node_evidence::Request request;
            request.job = "bench";
            for (int i = 0; i < size; ++i) {
                request.nodes.push_back(node_name(i));
            }
            request.start = started;
            request.end = std::chrono::system_clock::now();
            const auto before = stack.served("/api/v1/");
            const auto f = measure(settings, request, repeat);
            const auto served = (stack.served("/api/v1/") - before) / repeat;
            std::printf("| %d | %.0f | %.0f | %zu | %zu | %.2f | %.2f | %.0f |\n", size, f.requests,
                        f.bytes, f.signals, f.notes, f.median_ms, f.max_ms, served);
        }
        const auto url = stack.url();
        stack.stop_prometheus();
        node_evidence::Request request;
        request.nodes = {node_name(0)};
        request.start = started;
        request.end = std::chrono::system_clock::now();
        const auto down = measure(settings, request, repeat);
        std::printf("| 1, Prometheus stopped | %.0f | %.0f | %zu | %zu | %.2f | %.2f | - |\n",
                    down.requests, down.bytes, down.signals, down.notes, down.median_ms,
                    down.max_ms);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "bench_node_evidence: %s\n", error.what());
        return 1;
    }
    std::filesystem::remove_all(dir);
    return 0;
}
