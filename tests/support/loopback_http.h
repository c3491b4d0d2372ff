// One HTTP/1.1 exchange with a server of this host, written and read on the socket itself (no
// client library between the test and what the server sends): for the dashboard's tests and
// its benchmark. Header-only; a connect failure or a silence of 30 s gives status 0.
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

namespace test_support {

struct HttpAnswer {
    int status = 0;
    std::string head;  // the status line and headers
    std::string body;
};

inline int connect_loopback(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

inline int connect_unix_socket(const std::filesystem::path& path) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// Sends `request` on `fd` (which it closes) and reads until the server closes the connection
// (send "Connection: close").
inline HttpAnswer exchange_http(int fd, const std::string& request) {
    HttpAnswer answer;
    if (fd < 0) {
        return answer;
    }
    std::string text;
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(request.size())) {
        char buffer[65536];
        pollfd ready{fd, POLLIN, 0};
        while (::poll(&ready, 1, 30'000) == 1) {
            const auto got = ::recv(fd, buffer, sizeof buffer, 0);
            if (got <= 0) {
                break;
            }
            text.append(buffer, static_cast<std::size_t>(got));
        }
    }
    ::close(fd);
    const auto end = text.find("\r\n\r\n");
    if (text.size() < 12 || end == std::string::npos) {
        return answer;
    }
    answer.status = std::stoi(text.substr(9, 3));
    answer.head = text.substr(0, end);
    answer.body = text.substr(end + 4);
    return answer;
}

// "GET path HTTP/1.1" with Host, Connection: close and `extra_headers` ("Name: value\r\n"...).
inline std::string http_get_request(const std::string& path,
                                    const std::string& extra_headers = {}) {
    return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" + extra_headers +
           "\r\n";
}

}  // namespace test_support
