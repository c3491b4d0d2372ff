// toml++ reads the file; every key is checked by hand so that a misspelt key is an error
// naming it (a client that quietly ignored `deamon = ...` would fall back to no daemon).
#include "control/client_config.h"

#include <cstdlib>
#include <string>

#include <toml++/toml.h>

namespace control {
namespace {

std::string env_text(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
}

std::filesystem::path user_client_config() {
    const auto xdg = env_text("XDG_CONFIG_HOME");
    const auto home = env_text("HOME");
    if (!xdg.empty()) {
        return std::filesystem::path(xdg) / "slurm-supervisor" / "client.conf";
    }
    if (!home.empty()) {
        return std::filesystem::path(home) / ".config" / "slurm-supervisor" / "client.conf";
    }
    return {};
}

common::Result<std::string> string_value(const std::filesystem::path& file, const toml::node& node,
                                         const std::string& key) {
    const auto* text = node.as_string();
    if (text == nullptr) {
        return common::fail(file.string() + ": '" + key + "' must be a string",
                            "quote it, e.g. " + key + " = \"...\"");
    }
    return text->get();
}

}  // namespace

common::Result<ClientConfig> read_client_config(const std::filesystem::path& file) {
    toml::table table;
    try {
        table = toml::parse_file(file.string());
    } catch (const toml::parse_error& e) {
        return common::fail(file.string() + ":" + std::to_string(e.source().begin.line) + ": " +
                                std::string(e.description()),
                            "fix the TOML syntax (client.conf holds daemon = \"HOST:PORT\")");
    }
    ClientConfig config;
    config.file = file;
    bool has_daemon = false;
    for (const auto& [key, node] : table) {
        const std::string name(key.str());
        if (name == "daemon") {
            auto text = string_value(file, node, name);
            if (!text) {
                return tl::unexpected(text.error());
            }
            auto address = parse_tcp_address(*text);
            if (!address) {
                return common::fail(file.string() + ": daemon: " + address.error().message,
                                    address.error().hint);
            }
            config.daemon = *address;
            has_daemon = true;
        } else if (name == "munge_socket") {
            auto text = string_value(file, node, name);
            if (!text) {
                return tl::unexpected(text.error());
            }
            config.munge.socket = *text;
        } else {
            return common::fail(file.string() + ": unknown key '" + name + "'",
                                "client.conf knows daemon and munge_socket");
        }
    }
    if (!has_daemon) {
        return common::fail(file.string() + " names no daemon",
                            "add daemon = \"HOST:PORT\" (where `supervisor run --listen` "
                            "listens)");
    }
    return config;
}

common::Result<std::optional<ClientConfig>> find_client_config() {
    const auto named = env_text("SUPERVISOR_CLIENT_CONF");
    std::error_code ec;
    if (!named.empty()) {
        if (!std::filesystem::exists(named, ec)) {
            return common::fail("SUPERVISOR_CLIENT_CONF names " + named + ", which does not exist",
                                "fix the path, or unset SUPERVISOR_CLIENT_CONF");
        }
        auto config = read_client_config(named);
        if (!config) {
            return tl::unexpected(config.error());
        }
        config->chosen_by_user = true;
        return config;
    }
    const auto user = user_client_config();
    for (const auto& [file, chosen] :
         {std::pair{user, true}, std::pair{std::filesystem::path(k_site_client_config), false}}) {
        if (file.empty() || !std::filesystem::exists(file, ec)) {
            continue;
        }
        auto config = read_client_config(file);
        if (!config) {
            return tl::unexpected(config.error());
        }
        config->chosen_by_user = chosen;
        return config;
    }
    return std::nullopt;
}

}  // namespace control
