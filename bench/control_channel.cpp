// The control channel's cost, measured from the client's side against a running daemon
// (bench/control_channel.sh starts one and prints these figures into bench/README.md's table):
//
//   latency  ROUNDS requests each of `env` and `status`, over the Unix socket and over TCP with a
//            MUNGE credential, interleaved (unix, tcp, unix, tcp...) so both see the same machine;
//            median and p99 of each in ms, and the ratio TCP / Unix. A request's time is
//            control::call()'s: connect, mint the credential (TCP), send, wait, read the reply.
//   storm    TASKS array tasks fetching their settings at once, as a requeued array's tasks do:
//            a thread per task, all released together, each doing what `supervisor env` does
//            (mint its credential, connect, send, read; sent again when the daemon closes it
//            unread). Per task, the time of its whole call: median, p99, max, how many were
//            answered, and when the last one was.
//
//   bench_control_channel latency --socket PATH --tcp HOST:PORT [--munge-socket P] --job ID
//                                 [--rounds N]
//   bench_control_channel storm --tcp HOST:PORT [--munge-socket P] --array ID --tasks N
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <latch>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench/latency_stats.h"
#include "control/client.h"
#include "control/protocol.h"
#include "control/tcp_address.h"

namespace {

using Clock = std::chrono::steady_clock;

using bench::ms;
using bench::percentile;

std::map<std::string, std::string> options_of(int argc, char** argv) {
    std::map<std::string, std::string> options;
    for (int i = 2; i + 1 < argc; i += 2) {
        options[argv[i]] = argv[i + 1];
    }
    return options;
}

int fail(const std::string& message) {
    std::fprintf(stderr, "bench_control_channel: %s\n", message.c_str());
    return 1;
}

control::Request env_request(const std::string& job, const std::string& host) {
    control::Request request;
    request.operation = control::Operation::env;
    request.job = job;
    request.host = host;
    request.restart_count = 1;  // as a requeued run's `supervisor env` sends it
    return request;
}

int latency(std::map<std::string, std::string>& options) {
    const auto tcp = control::parse_tcp_address(options["--tcp"]);
    if (!tcp || options["--socket"].empty() || options["--job"].empty()) {
        return fail("latency needs --socket, --tcp and --job");
    }
    const control::DaemonRoute unix_route = control::UnixRoute{options["--socket"]};
    control::TcpRoute tcp_route{*tcp, {}, {}};
    tcp_route.munge.socket = options["--munge-socket"];
    const control::DaemonRoute remote = tcp_route;
    const int rounds = options["--rounds"].empty() ? 500 : std::atoi(options["--rounds"].c_str());
    control::Request status;
    status.operation = control::Operation::status;
    status.job = options["--job"];
    const std::vector<std::pair<std::string, control::Request>> requests{
        {"env", env_request(options["--job"], "bench")}, {"status", status}};
    std::printf(
        "| request | Unix socket: median / p99 ms | TCP + MUNGE: median / p99 ms | "
        "TCP / Unix (median, p99) |\n|---|---|---|---|\n");
    for (const auto& [name, request] : requests) {
        std::vector<double> local_ms;
        std::vector<double> remote_ms;
        for (int i = 0; i < rounds; ++i) {
            for (const auto* route : {&unix_route, &remote}) {
                const auto start = Clock::now();
                const auto reply = control::call(*route, request, std::chrono::seconds(10));
                const auto took = ms(Clock::now() - start);
                if (!reply || reply->exit_status != 0) {
                    return fail(name + ": " +
                                (reply ? reply->error.message : reply.error().message));
                }
                (route == &unix_route ? local_ms : remote_ms).push_back(took);
            }
        }
        const double lm = percentile(local_ms, 0.5), l99 = percentile(local_ms, 0.99);
        const double rm = percentile(remote_ms, 0.5), r99 = percentile(remote_ms, 0.99);
        std::printf("| `%s` x %d | %.2f / %.2f | %.2f / %.2f | %.1fx, %.1fx |\n", name.c_str(),
                    rounds, lm, l99, rm, r99, rm / lm, r99 / l99);
    }
    return 0;
}

int storm(std::map<std::string, std::string>& options) {
    const auto tcp = control::parse_tcp_address(options["--tcp"]);
    const int tasks = std::atoi(options["--tasks"].c_str());
    if (!tcp || options["--array"].empty() || tasks <= 0) {
        return fail("storm needs --tcp, --array and --tasks");
    }
    control::TcpRoute route{*tcp, {}, {}};
    route.munge.socket = options["--munge-socket"];
    const control::DaemonRoute remote = route;
    // One thread a task, all released at once: each mints its own credential, connects, sends,
    // and is sent again when the daemon closes it unread, exactly as `supervisor env` does.
    std::vector<double> took(static_cast<std::size_t>(tasks), -1);
    std::vector<int> outcome(static_cast<std::size_t>(tasks), 0);  // 1 answered, 2 refused
    std::latch start(tasks + 1);
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(tasks));
    for (int task = 0; task < tasks; ++task) {
        threads.emplace_back([&, task] {
            const auto request = env_request(options["--array"] + "_" + std::to_string(task),
                                             "n" + std::to_string(1 + task % 3));
            start.arrive_and_wait();
            const auto begin = Clock::now();
            const auto reply = control::call(remote, request, std::chrono::seconds(30));
            const auto index = static_cast<std::size_t>(task);
            took[index] = ms(Clock::now() - begin);
            if (!reply) {
                std::fprintf(stderr, "task %d: %s\n", task, reply.error().message.c_str());
            }
            outcome[index] = reply && reply->exit_status == 0 && reply->job_known ? 1
                             : reply                                              ? 2
                                                                                  : 0;
        });
    }
    const auto burst_start = Clock::now();
    start.arrive_and_wait();
    for (auto& thread : threads) {
        thread.join();
    }
    const double all_ms = ms(Clock::now() - burst_start);
    const auto answered = std::count(outcome.begin(), outcome.end(), 1);
    const auto refused = std::count(outcome.begin(), outcome.end(), 2);
    std::printf(
        "| tasks | answered with settings | refused or unknown | no answer | all answered "
        "after ms | one fetch: median / p99 / max ms |\n|---:|---:|---:|---:|---:|---|\n");
    std::printf("| %d | %ld | %ld | %ld | %.0f | %.0f / %.0f / %.0f |\n", tasks,
                static_cast<long>(answered), static_cast<long>(refused),
                static_cast<long>(tasks - answered - refused), all_ms, percentile(took, 0.5),
                percentile(took, 0.99), *std::max_element(took.begin(), took.end()));
    return answered == tasks ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        return fail("usage: bench_control_channel latency|storm --option value ...");
    }
    auto options = options_of(argc, argv);
    const std::string mode = argv[1];
    if (mode == "latency") {
        return latency(options);
    }
    if (mode == "storm") {
        return storm(options);
    }
    return fail("unknown mode " + mode);
}
