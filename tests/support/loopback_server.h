// LoopbackServer: a real HTTP/1.1 server on 127.0.0.1 (a free port the kernel picks) for the
// tests of the libcurl channels, in the test's own process: it answers each request with the
// next answer of its script (status and body, then closes the connection) and keeps what it
// was sent. No Python process and no sleep: a send returns only after the server answered, and
// the request is recorded before the answer is written, so requests() has it by then.
// Header-only. The constructor fails the test (ADD_FAILURE) when it cannot listen; a request
// past the end of the script is never accepted (the client waits for its timeout).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace test_support {

class LoopbackServer {
  public:
    struct Answer {
        int status = 200;
        std::string body;
    };
    struct Request {
        std::string head;  // request line and headers
        std::string body;
    };

    explicit LoopbackServer(std::vector<Answer> script) : m_script(std::move(script)) {
        m_listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof address;
        if (m_listener < 0 ||
            ::bind(m_listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::listen(m_listener, 8) != 0 ||
            ::getsockname(m_listener, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
            ADD_FAILURE() << "LoopbackServer: cannot listen on 127.0.0.1";
            return;
        }
        m_port = ntohs(address.sin_port);
        m_thread = std::thread([this] { serve(); });
    }

    ~LoopbackServer() {
        if (m_listener >= 0) {
            ::shutdown(m_listener, SHUT_RDWR);  // ends a waiting accept()
        }
        if (m_thread.joinable()) {
            m_thread.join();
        }
        if (m_listener >= 0) {
            ::close(m_listener);
        }
    }

    LoopbackServer(const LoopbackServer&) = delete;
    LoopbackServer& operator=(const LoopbackServer&) = delete;

    [[nodiscard]] std::string url(const std::string& path) const {
        return "http://127.0.0.1:" + std::to_string(m_port) + path;
    }

    [[nodiscard]] std::vector<Request> requests() const {
        const std::lock_guard lock(m_mutex);
        return m_requests;
    }

  private:
    static std::string lower(std::string text) {
        std::ranges::transform(text, text.begin(),
                               [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return text;
    }

    static bool send_all(int fd, const std::string& text) {
        return ::send(fd, text.data(), text.size(), MSG_NOSIGNAL) ==
               static_cast<ssize_t>(text.size());
    }

    // Head and body of one request; false when the client went away first.
    static bool read_request(int fd, Request& request) {
        std::string text;
        char buffer[16384];
        std::size_t end = std::string::npos;
        while ((end = text.find("\r\n\r\n")) == std::string::npos) {
            const auto got = ::recv(fd, buffer, sizeof buffer, 0);
            if (got <= 0) {
                return false;
            }
            text.append(buffer, static_cast<std::size_t>(got));
        }
        request.head = text.substr(0, end);
        request.body = text.substr(end + 4);
        const auto head = lower(request.head);
        std::size_t length = 0;
        if (const auto at = head.find("\r\ncontent-length:"); at != std::string::npos) {
            length = std::stoul(head.substr(at + 17));
        }
        if (head.find("\r\nexpect: 100-continue") != std::string::npos &&
            !send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n")) {
            return false;
        }
        while (request.body.size() < length) {
            const auto got = ::recv(fd, buffer, sizeof buffer, 0);
            if (got <= 0) {
                return false;
            }
            request.body.append(buffer, static_cast<std::size_t>(got));
        }
        return true;
    }

    void serve() {
        for (const auto& answer : m_script) {
            const int fd = ::accept4(m_listener, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) {
                return;
            }
            Request request;
            if (read_request(fd, request)) {
                {
                    const std::lock_guard lock(m_mutex);
                    m_requests.push_back(request);
                }
                send_all(fd, "HTTP/1.1 " + std::to_string(answer.status) +
                                 " Scripted\r\nContent-Type: application/json\r\nContent-Length: " +
                                 std::to_string(answer.body.size()) +
                                 "\r\nConnection: close\r\n\r\n" + answer.body);
            }
            ::close(fd);
        }
    }

    std::vector<Answer> m_script;
    int m_listener = -1;
    std::uint16_t m_port = 0;
    std::thread m_thread;
    mutable std::mutex m_mutex;
    std::vector<Request> m_requests;
};

}  // namespace test_support
