// PrometheusStack: a real Pushgateway and a real Prometheus (Debian's prometheus-pushgateway and
// prometheus packages, contrib/install-deps.sh) on free ports of the dev cluster's head address
// ($SLURM_TEST_HEAD_ADDR, which its nodes reach; 127.0.0.1 without it), in a directory of the
// caller's, for the node-evidence tests and the bench. Prometheus scrapes the Pushgateway every
// second with honor_labels, so what a test pushes is a series with exactly the labels pushed:
// push("n1", "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\"} 79\n") gives
// DCGM_FI_DEV_XID_ERRORS{Hostname="n1",gpu="0",job="dcgm"}.
//
// The constructor starts both and waits (30 s at most) until each says it is ready; it throws
// std::runtime_error with the reason (a binary missing names the packages; a process that exits
// early points at its log in the directory). The destructor stops both (SIGTERM, then SIGKILL).
// Every call bounds its own wait; nothing here sleeps longer than 100 ms at a time.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>

namespace test_support {

class PrometheusStack {
  public:
    explicit PrometheusStack(std::filesystem::path directory);
    ~PrometheusStack();
    PrometheusStack(const PrometheusStack&) = delete;
    PrometheusStack& operator=(const PrometheusStack&) = delete;

    [[nodiscard]] std::string url() const;              // Prometheus, "http://HEAD:PORT"
    [[nodiscard]] std::string pushgateway_url() const;  // "http://HEAD:PORT"

    // POSTs exposition-format `lines` to the group job=`job`, Hostname=`node` (a POST replaces
    // only the metrics it names). Throws std::runtime_error when the Pushgateway refuses.
    void push(const std::string& node, const std::string& lines,
              const std::string& job = "dcgm") const;
    // Polls the instant query `promql` until one of its samples has `value`; false after
    // `timeout`.
    [[nodiscard]] bool wait_for_value(const std::string& promql, double value,
                                      std::chrono::seconds timeout) const;
    // How many requests Prometheus served on the handlers starting with `handler` ("/api/v1/"
    // for its whole API) since it started, from its own prometheus_http_requests_total; -1 when
    // /metrics could not be read.
    [[nodiscard]] double served(const std::string& handler) const;

    // Stops Prometheus (SIGTERM, waited for): its URL then refuses connections.
    void stop_prometheus();

  private:
    std::filesystem::path m_dir;
    std::string m_host;  // the address both listen on
    int m_prometheus_port = 0;
    int m_pushgateway_port = 0;
    pid_t m_prometheus = -1;
    pid_t m_pushgateway = -1;
};

// The script a job runs to play the GPU's exporter: tests/support/dcgm_push.py.
[[nodiscard]] std::string dcgm_push_script();

}  // namespace test_support
