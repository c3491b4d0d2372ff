// One user against everyone else on a root site daemon's control socket (issue 32): while a
// hostile uid keeps CONNECTIONS connections busy, each carrying a `register` whose notify
// target is 3 MB and whose reply it never reads (a connection the daemon closes is opened and
// sent again at once), another uid's `status` and `env` are timed, ROUNDS of each. Run as root:
// each side is a child process that takes its uid with setresuid(), so the daemon tells them
// apart by SO_PEERCRED as it does real users.
//
//   bench_hostile_connections --socket PATH --hostile-uid U --victim-uid V --connections N
//                             [--rounds R] [--job ID]
//
// Prints one Markdown table row: connections, then median / p99 / max ms of `status` and of
// `env`, and how many of the victim's requests got no answer within 10 s.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench/latency_stats.h"
#include "control/client.h"
#include "control/frame.h"
#include "control/protocol.h"

namespace {

using Clock = std::chrono::steady_clock;

using bench::ms;
using bench::percentile;

int fail(const std::string& message) {
    std::fprintf(stderr, "bench_hostile_connections: %s\n", message.c_str());
    return 1;
}

// The register that costs the daemon most to answer: its notify target is refused, and the
// refusal once quoted the whole target back.
std::string hostile_frame() {
    control::Request request;
    request.operation = control::Operation::register_job;
    request.job = "1";
    request.registration.allowed_actions = {"requeue"};
    request.registration.notify = {"https://hooks.example.org/" +
                                   std::string(3U * 1024 * 1024, 'a') + " b"};
    return *control::framed(control::encode(request), control::k_max_request_bytes);
}

int connected_to(const std::string& path) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// Keeps `connections` connections sending the hostile frame, never reading; one the daemon
// has closed (or refused) is replaced at once. Runs until killed.
[[noreturn]] void be_hostile(const std::string& socket, std::size_t connections) {
    const auto frame = hostile_frame();
    std::vector<int> open(connections, -1);
    while (true) {
        for (auto& fd : open) {
            if (fd < 0 && (fd = connected_to(socket)) >= 0) {
                // Blocking: the daemon reads it as it comes, or closes it when over a budget.
                (void)!::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL);
            }
        }
        std::vector<pollfd> watched;
        for (const int fd : open) {
            watched.push_back({fd, POLLRDHUP, 0});
        }
        ::poll(watched.data(), watched.size(), 50);
        for (std::size_t i = 0; i < open.size(); ++i) {
            if (open[i] >= 0 && (watched[i].revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) {
                ::close(open[i]);
                open[i] = -1;
            }
        }
    }
}

struct Timings {
    std::vector<double> status_ms;
    std::vector<double> env_ms;
    int unanswered = 0;
};

Timings be_the_victim(const std::string& socket, const std::string& job, int rounds) {
    const control::DaemonRoute route = control::UnixRoute{socket};
    control::Request status;
    status.operation = control::Operation::status;
    control::Request env;
    env.operation = control::Operation::env;
    env.job = job;
    env.host = "bench";
    env.restart_count = 0;
    Timings timings;
    for (int i = 0; i < rounds; ++i) {
        for (auto* request : {&status, &env}) {
            const auto start = Clock::now();
            const auto reply = control::call(route, *request, std::chrono::seconds(10));
            const auto took = ms(Clock::now() - start);
            timings.unanswered += reply ? 0 : 1;
            (request == &status ? timings.status_ms : timings.env_ms).push_back(took);
        }
    }
    return timings;
}

}  // namespace

int main(int argc, char** argv) {
    std::map<std::string, std::string> options;
    for (int i = 1; i + 1 < argc; i += 2) {
        options[argv[i]] = argv[i + 1];
    }
    const auto socket = options["--socket"];
    const auto connections = std::strtoul(options["--connections"].c_str(), nullptr, 10);
    const auto hostile_uid = static_cast<uid_t>(std::atoi(options["--hostile-uid"].c_str()));
    const auto victim_uid = static_cast<uid_t>(std::atoi(options["--victim-uid"].c_str()));
    const int rounds = options["--rounds"].empty() ? 200 : std::atoi(options["--rounds"].c_str());
    const auto job = options["--job"].empty() ? std::string("1") : options["--job"];
    if (socket.empty() || hostile_uid == 0 || victim_uid == 0 || ::geteuid() != 0) {
        return fail("run as root with --socket, --hostile-uid and --victim-uid (not 0)");
    }
    pid_t hostile = -1;
    if (connections > 0) {
        hostile = ::fork();
        if (hostile == 0) {
            if (::setresgid(hostile_uid, hostile_uid, hostile_uid) != 0 ||
                ::setresuid(hostile_uid, hostile_uid, hostile_uid) != 0) {
                ::_exit(fail("setresuid for the hostile side failed"));
            }
            be_hostile(socket, connections);
        }
        std::this_thread::sleep_for(std::chrono::seconds(2));  // its connections are busy
    }
    int to_parent[2];
    if (::pipe(to_parent) != 0) {
        return fail("pipe failed");
    }
    const pid_t victim = ::fork();
    if (victim == 0) {
        ::close(to_parent[0]);
        if (::setresgid(victim_uid, victim_uid, victim_uid) != 0 ||
            ::setresuid(victim_uid, victim_uid, victim_uid) != 0) {
            ::_exit(fail("setresuid for the victim side failed"));
        }
        const auto timings = be_the_victim(socket, job, rounds);
        char row[512];
        const int size = std::snprintf(
            row, sizeof row, "| %lu | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f | %d |\n",
            connections, percentile(timings.status_ms, 0.5), percentile(timings.status_ms, 0.99),
            *std::max_element(timings.status_ms.begin(), timings.status_ms.end()),
            percentile(timings.env_ms, 0.5), percentile(timings.env_ms, 0.99),
            *std::max_element(timings.env_ms.begin(), timings.env_ms.end()), timings.unanswered);
        (void)!::write(to_parent[1], row, static_cast<std::size_t>(size));
        ::_exit(0);
    }
    ::close(to_parent[1]);
    std::string row;
    char buffer[512];
    for (ssize_t got; (got = ::read(to_parent[0], buffer, sizeof buffer)) > 0;) {
        row.append(buffer, static_cast<std::size_t>(got));
    }
    int status = 0;
    ::waitpid(victim, &status, 0);
    if (hostile > 0) {
        ::kill(hostile, SIGKILL);
        ::waitpid(hostile, nullptr, 0);
    }
    std::fputs(row.c_str(), stdout);
    return row.empty() ? 1 : 0;
}
