// The loopback servers of the notification integration tests: a free port picked by the
// kernel, and a child process (smtp_sink.py or http_receiver.py under Debian's python3) that
// is started and stopped on demand and killed with its test. What it received is read back
// from the files it writes.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace notify::integration {

// A port nothing listens on right now (bound to 0, read back, closed).
inline int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        ::close(fd);
        ADD_FAILURE() << "no free port";
        return 0;
    }
    ::close(fd);
    return ntohs(address.sin_port);
}

class Server {
  public:
    Server(std::string script, int port, std::filesystem::path directory,
           std::vector<std::string> extra = {})
        : m_script(std::move(script)),
          m_port(port),
          m_directory(std::move(directory)),
          m_extra(std::move(extra)) {
        std::filesystem::create_directories(m_directory);
    }
    ~Server() { stop(); }
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    void start() {
        std::filesystem::remove(m_directory / "ready");
        std::vector<std::string> args{SUPERVISOR_TEST_PYTHON, m_script, std::to_string(m_port),
                                      m_directory.string()};
        args.insert(args.end(), m_extra.begin(), m_extra.end());
        m_pid = ::fork();
        if (m_pid == 0) {
            std::vector<char*> argv;
            for (auto& arg : args) {
                argv.push_back(arg.data());
            }
            argv.push_back(nullptr);
            ::execv(argv[0], argv.data());
            ::_exit(127);
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (!std::filesystem::exists(m_directory / "ready")) {
            int status = 0;
            if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
                m_pid = -1;
                FAIL() << m_script << " exited before listening (status " << status << ")";
            }
            if (std::chrono::steady_clock::now() > deadline) {
                FAIL() << m_script << " did not start listening on port " << m_port;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }

    void stop() {
        if (m_pid > 0) {
            ::kill(m_pid, SIGTERM);
            int status = 0;
            ::waitpid(m_pid, &status, 0);
            m_pid = -1;
        }
    }

    // The files it wrote with this extension, in order of arrival (1.x, 2.x, ...).
    [[nodiscard]] std::vector<std::string> received(const std::string& extension) const {
        std::vector<std::string> texts;
        for (int n = 1;; ++n) {
            const auto file = m_directory / (std::to_string(n) + extension);
            if (!std::filesystem::exists(file)) {
                return texts;
            }
            std::ifstream in(file);
            std::stringstream text;
            text << in.rdbuf();
            texts.push_back(text.str());
        }
    }

    [[nodiscard]] int port() const { return m_port; }

  private:
    std::string m_script;
    int m_port;
    std::filesystem::path m_directory;
    std::vector<std::string> m_extra;
    pid_t m_pid = -1;
};

}  // namespace notify::integration
