// client.conf as a login or compute node reads it: which file wins, and what a mistake in it
// gets (an error naming the file and the key, never a quiet fallback to no daemon).
#include "control/client_config.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

namespace {

using test_support::ScopedEnv;

class ClientConfig : public ::testing::Test {
  protected:
    std::filesystem::path write(const std::string& name, const std::string& text) const {
        const auto path = m_dir.path() / name;
        std::filesystem::create_directories(path.parent_path());
        std::ofstream(path) << text;
        return path;
    }

    test_support::TempDir m_dir;
};

TEST_F(ClientConfig, TheDaemonAndMungeSocketAreRead) {
    const auto file = write("client.conf",
                            "# the site daemon\ndaemon = \"head1:7000\"\n"
                            "munge_socket = \"/run/munge/other.socket\"\n");
    const auto config = control::read_client_config(file);
    ASSERT_TRUE(config) << config.error().message;
    EXPECT_EQ(config->daemon, (control::TcpAddress{"head1", 7000}));
    EXPECT_EQ(config->munge.socket, "/run/munge/other.socket");
    EXPECT_EQ(config->file, file);
}

TEST_F(ClientConfig, MistakesAreErrorsNamingTheFileAndKey) {
    const std::pair<const char*, const char*> cases[] = {
        {"deamon = \"head1\"\n", "unknown key 'deamon'"},
        {"daemon = 7000\n", "'daemon' must be a string"},
        {"daemon = \"head1:x\"\n", "daemon: 'head1:x' is not a daemon address"},
        {"munge_socket = \"/x\"\n", "names no daemon"},
        {"daemon = \n", "client.conf:1"},
    };
    for (const auto& [text, why] : cases) {
        const auto config = control::read_client_config(write("client.conf", text));
        ASSERT_FALSE(config) << text;
        EXPECT_NE(config.error().message.find(why), std::string::npos)
            << text << ": " << config.error().message;
        EXPECT_NE(config.error().message.find("client.conf"), std::string::npos);
    }
}

TEST_F(ClientConfig, TheNamedFileGoesFirstAndMustExist) {
    const ScopedEnv home("HOME", m_dir.path().string());
    const ScopedEnv xdg("XDG_CONFIG_HOME", (m_dir.path() / "xdg").string());
    write("xdg/slurm-supervisor/client.conf", "daemon = \"mine:1\"\n");
    {
        const ScopedEnv named("SUPERVISOR_CLIENT_CONF",
                              write("named.conf", "daemon = \"named:2\"\n").string());
        const auto config = control::find_client_config();
        ASSERT_TRUE(config && *config) << (config ? "none" : config.error().message);
        EXPECT_EQ((*config)->daemon.host, "named");
        EXPECT_TRUE((*config)->chosen_by_user);
    }
    {
        const ScopedEnv named("SUPERVISOR_CLIENT_CONF", (m_dir.path() / "missing.conf").string());
        const auto config = control::find_client_config();
        ASSERT_FALSE(config) << "a typo in the variable is an error, not the next file";
        EXPECT_NE(config.error().message.find("does not exist"), std::string::npos);
    }
    const auto config = control::find_client_config();
    ASSERT_TRUE(config && *config);
    EXPECT_EQ((*config)->daemon.host, "mine") << "the user's own file, before the site's";
    EXPECT_TRUE((*config)->chosen_by_user);
}

}  // namespace
