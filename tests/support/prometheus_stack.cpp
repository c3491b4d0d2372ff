// Real processes, not fakes: the point of these tests is that the queries the source builds
// run on Prometheus itself and that its answers parse. The ports are picked by binding port 0
// and closing it just before the process binds it: a race with another process is possible
// but would show as "did not become ready", not as a wrong answer.
#include "tests/support/prometheus_stack.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "http/transfer.h"
#include "http/url.h"

namespace test_support {
namespace {

using namespace std::chrono_literals;

int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        ::close(fd);
        throw std::runtime_error("no free loopback port");
    }
    ::close(fd);
    return ntohs(address.sin_port);
}

std::string find_binary(const std::string& name) {
    for (const char* dir : {"/usr/bin", "/usr/local/bin"}) {
        const auto path = std::filesystem::path(dir) / name;
        if (::access(path.c_str(), X_OK) == 0) {
            return path.string();
        }
    }
    throw std::runtime_error(name +
                             " not found: apt-get install prometheus prometheus-pushgateway "
                             "(contrib/install-deps.sh does)");
}

pid_t spawn(const std::vector<std::string>& args, const std::filesystem::path& log) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            ::dup2(fd, 1);
            ::dup2(fd, 2);
        }
        std::vector<char*> argv;
        for (const auto& arg : args) {
            argv.push_back(const_cast<char*>(arg.c_str()));
        }
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    return pid;
}

void stop(pid_t& pid) {
    if (pid <= 0) {
        return;
    }
    ::kill(pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(50ms);
    }
    pid = -1;
}

http::Result<http::Response> get(const std::string& url) {
    http::Request request;
    request.url = url;
    request.connect_timeout = request.timeout = 5s;
    request.body_limit = 4 * 1024 * 1024;
    return http::perform(request);
}

void wait_ready(pid_t pid, const std::string& url, const std::filesystem::path& log) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (true) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            throw std::runtime_error(url + " exited before it was ready; see " + log.string());
        }
        const auto response = get(url + "/-/ready");
        if (response && response->status == 200) {
            return;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            throw std::runtime_error(url + " not ready after 30 s; see " + log.string());
        }
        std::this_thread::sleep_for(100ms);
    }
}

}  // namespace

// Why the head's address: in the dev cluster's hosts layout a job (which pushes its node's
// telemetry) runs on a node whose 127.0.0.1 is its own; the head is reached on the bridge.
PrometheusStack::PrometheusStack(std::filesystem::path directory)
    : m_dir(std::move(directory)), m_host([] {
          const char* head = std::getenv("SLURM_TEST_HEAD_ADDR");
          return std::string(head != nullptr && *head != '\0' ? head : "127.0.0.1");
      }()) {
    std::filesystem::create_directories(m_dir / "data");
    const auto pushgateway = find_binary("prometheus-pushgateway");
    const auto prometheus = find_binary("prometheus");
    m_pushgateway_port = free_port();
    m_prometheus_port = free_port();
    std::ofstream(m_dir / "prometheus.yml")
        << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        << "scrape_configs:\n  - job_name: pushgateway\n    honor_labels: true\n"
        << "    static_configs:\n      - targets: ['" << m_host << ":" << m_pushgateway_port
        << "']\n";
    // Debian's Pushgateway persists to /var/lib/prometheus/pushgateway.data by default: two
    // stacks (tests side by side) would load each other's series. Memory only.
    m_pushgateway =
        spawn({pushgateway, "--persistence.file=",
               "--web.listen-address=" + m_host + ":" + std::to_string(m_pushgateway_port)},
              m_dir / "pushgateway.log");
    wait_ready(m_pushgateway, pushgateway_url(), m_dir / "pushgateway.log");
    m_prometheus =
        spawn({prometheus, "--config.file=" + (m_dir / "prometheus.yml").string(),
               "--storage.tsdb.path=" + (m_dir / "data").string(),
               "--web.listen-address=" + m_host + ":" + std::to_string(m_prometheus_port),
               "--log.level=warn"},
              m_dir / "prometheus.log");
    wait_ready(m_prometheus, url(), m_dir / "prometheus.log");
}

PrometheusStack::~PrometheusStack() {
    stop(m_prometheus);
    stop(m_pushgateway);
}

std::string PrometheusStack::url() const {
    return "http://" + m_host + ":" + std::to_string(m_prometheus_port);
}

std::string PrometheusStack::pushgateway_url() const {
    return "http://" + m_host + ":" + std::to_string(m_pushgateway_port);
}

void PrometheusStack::push(const std::string& node, const std::string& lines,
                           const std::string& job) const {
    http::Request request;
    request.method = http::Method::post;
    request.url = pushgateway_url() + "/metrics/job/" + http::percent_encode(job) + "/Hostname/" +
                  http::percent_encode(node);
    request.body = lines;
    request.connect_timeout = request.timeout = 10s;
    const auto response = http::perform(request);
    if (!response || response->status / 100 != 2) {
        throw std::runtime_error(
            "push to " + request.url + " failed: " +
            (response ? "HTTP " + std::to_string(response->status) + " " + response->body
                      : response.error().message));
    }
}

bool PrometheusStack::wait_for_value(const std::string& promql, double value,
                                     std::chrono::seconds timeout) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        const auto response = get(url() + "/api/v1/query?query=" + http::percent_encode(promql));
        if (response && response->status == 200) {
            const auto json = nlohmann::json::parse(response->body, nullptr, false);
            if (!json.is_discarded()) {
                for (const auto& sample : json["data"]["result"]) {
                    if (std::stod(sample["value"][1].get<std::string>()) == value) {
                        return true;
                    }
                }
            }
        }
        std::this_thread::sleep_for(100ms);
    }
    return false;
}

double PrometheusStack::served(const std::string& handler) const {
    const auto response = get(url() + "/metrics");
    if (!response || response->status != 200) {
        return -1;
    }
    const std::string needle = "handler=\"" + handler;
    double total = 0;
    std::istringstream lines(response->body);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("prometheus_http_requests_total{", 0) == 0 &&
            line.find(needle) != std::string::npos) {
            total += std::stod(line.substr(line.rfind(' ') + 1));
        }
    }
    return total;
}

void PrometheusStack::stop_prometheus() {
    stop(m_prometheus);
}

std::string dcgm_push_script() {
    return std::string(SUPERVISOR_SOURCE_DIR) + "/tests/support/dcgm_push.py";
}

}  // namespace test_support
