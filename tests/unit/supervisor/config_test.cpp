#include "supervisor/config/config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace {

using supervisor::Config;
using supervisor::load_config;

class ConfigTest : public ::testing::Test {
  protected:
    std::filesystem::path write(const std::string& text) {
        const auto file = m_dir.path() / "supervisor.toml";
        std::ofstream(file) << text;
        return file;
    }

    test_support::TempDir m_dir;
};

TEST_F(ConfigTest, ReadsEveryKnownKey) {
    const auto file = write(
        "poll_interval_ms = 500\nmax_backoff_ms = 9000\nstart_delay_s = 5\n"
        "log_head_bytes = 1024\nlog_tail_bytes = 4096\nrules = [\"/etc/a.toml\", \"b.toml\"]\n");
    const auto config = load_config(file, Config{}, true);
    ASSERT_TRUE(config) << config.error().message;
    EXPECT_EQ(config->poll_interval, std::chrono::milliseconds(500));
    EXPECT_EQ(config->max_backoff, std::chrono::milliseconds(9000));
    EXPECT_EQ(config->start_delay, std::chrono::seconds(5));
    EXPECT_EQ(config->log_limits.head_bytes, 1024U);
    EXPECT_EQ(config->log_limits.tail_bytes, 4096U);
    EXPECT_EQ(config->rules_files, (std::vector<std::filesystem::path>{"/etc/a.toml", "b.toml"}));
}

TEST_F(ConfigTest, ReadsTheRecoveryBounds) {
    const auto file = write(
        "requeue_backoff_s = 30\nrequeue_backoff_max_s = 600\nsame_failure_limit = 4\n"
        "max_excluded_nodes = 3\ntime_limit_max_factor = 3\n");
    const auto config = load_config(file, Config{}, true);
    ASSERT_TRUE(config) << config.error().message;
    EXPECT_EQ(config->requeue_backoff, std::chrono::seconds(30));
    EXPECT_EQ(config->requeue_backoff_max, std::chrono::seconds(600));
    EXPECT_EQ(config->same_failure_limit, 4U);
    EXPECT_EQ(config->max_excluded_nodes, 3U);
    EXPECT_EQ(config->time_limit_max_factor, 3);
    const auto bad = load_config(write("same_failure_limit = 0\n"), Config{}, true);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("same_failure_limit"), std::string::npos);
}

TEST_F(ConfigTest, RetentionIsInDaysBoundedAndNinetyByDefault) {
    EXPECT_EQ(Config{}.retention, std::chrono::hours(90 * 24));
    const auto read = load_config(write("retention_days = 30\n"), Config{}, true);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(read->retention, std::chrono::hours(30 * 24));
    EXPECT_FALSE(load_config(write("retention_days = 0\n"), Config{}, true));
    const auto huge = load_config(write("retention_days = 99999999999999\n"), Config{}, true);
    ASSERT_FALSE(huge);
    EXPECT_NE(huge.error().message.find("more than 100 years"), std::string::npos)
        << huge.error().message;
}

TEST_F(ConfigTest, UnknownKeyIsAnErrorNamingFileAndKey) {
    const auto file = write("poll_interval_ms = 500\npoll_intervall = 3\n");
    const auto config = load_config(file, Config{}, true);
    ASSERT_FALSE(config);
    EXPECT_NE(config.error().message.find(file.string()), std::string::npos)
        << config.error().message;
    EXPECT_NE(config.error().message.find("poll_intervall"), std::string::npos)
        << config.error().message;
}

// The keys an unknown key's hint lists and the keys that are read are one table's rows: each
// listed key is known, and a value of the wrong type for it is refused naming that key.
TEST_F(ConfigTest, EveryKeyTheHintListsIsReadAndChecked) {
    const auto unknown = load_config(write("no_such_key = 1\n"), Config{}, true);
    ASSERT_FALSE(unknown);
    const std::string& hint = unknown.error().hint;
    const std::string prefix = "known keys: ";
    ASSERT_EQ(hint.rfind(prefix, 0), 0U) << hint;
    std::vector<std::string> keys;
    std::stringstream list(hint.substr(prefix.size()));
    for (std::string key; std::getline(list, key, ',');) {
        keys.push_back(key.substr(key.find_first_not_of(' ')));
    }
    EXPECT_EQ(keys.size(), 30U) << hint;
    for (const auto& key : keys) {
        SCOPED_TRACE(key);
        // A date is no value any key takes: not a number, a flag, a path, a list or a table.
        const auto read = load_config(write(key + " = 2026-12-07\n"), Config{}, true);
        ASSERT_FALSE(read);
        EXPECT_EQ(read.error().message.find("unknown key"), std::string::npos)
            << read.error().message;
        EXPECT_NE(read.error().message.find("'" + key + "'"), std::string::npos)
            << read.error().message;
    }
}

// The bound a message names is the key's own, also for a key held in an unsigned 64-bit
// number, whose type's maximum does not fit the message's int64_t (it read "at most -1").
TEST_F(ConfigTest, TheBoundOfAnUnsignedKeyIsNamedAsItIs) {
    const auto head = load_config(write("log_head_bytes = 0\n"), Config{}, true);
    ASSERT_FALSE(head);
    EXPECT_NE(head.error().message.find("at most " +
                                        std::to_string(recovery::ExcerptLimits::k_max_bytes)),
              std::string::npos)
        << head.error().message;
    const auto queries =
        load_config(write("[evidence]\nprometheus_query_limit = 0\n"), Config{}, true);
    ASSERT_FALSE(queries);
    EXPECT_NE(queries.error().message.find("at most 64"), std::string::npos)
        << queries.error().message;
}

TEST_F(ConfigTest, NonPositiveValueIsAnErrorNamingTheKey) {
    const auto file = write("poll_interval_ms = -5\n");
    const auto config = load_config(file, Config{}, true);
    ASSERT_FALSE(config);
    EXPECT_NE(config.error().message.find("poll_interval_ms"), std::string::npos);
    EXPECT_NE(config.error().message.find(file.string()), std::string::npos);
}

TEST_F(ConfigTest, WrongTypeIsAnError) {
    EXPECT_FALSE(load_config(write("start_delay_s = \"soon\"\n"), Config{}, true));
    EXPECT_FALSE(load_config(write("rules = \"one.toml\"\n"), Config{}, true));
    EXPECT_FALSE(load_config(write("rules = [1, 2]\n"), Config{}, true));
    EXPECT_FALSE(load_config(write("poll_interval_ms = 1.5\n"), Config{}, true));
}

// A float is never converted to an integer: toml++ casts before it checks the range, which is
// undefined behaviour past 2^63 (fuzz/config_toml_fuzzer.cpp found it; UBSan reports it).
TEST_F(ConfigTest, FloatsAreRefusedNeverConverted) {
    for (const char* text :
         {"log_head_bytes = 10E24\n", "poll_interval_ms = 1e300\n", "start_delay_s = -1e25\n",
          "same_failure_limit = 3.0\n", "max_backoff_ms = inf\n", "requeue_backoff_s = nan\n"}) {
        const auto config = load_config(write(text), Config{}, true);
        ASSERT_FALSE(config) << text;
        EXPECT_NE(config.error().message.find("positive integer"), std::string::npos)
            << config.error().message;
    }
}

// Past these bounds a value is a typing error, and converting it (seconds to milliseconds,
// an excerpt held in memory) could overflow or exhaust memory.
TEST_F(ConfigTest, ValuesBeyondTheirBoundsAreRefusedNamingTheBound) {
    for (const char* text :
         {"start_delay_s = 9223372036854775807\n", "poll_interval_ms = 9223372036854775807\n",
          "requeue_backoff_max_s = 400000000\n", "log_tail_bytes = 1073741825\n",
          "time_limit_max_factor = 101\n"}) {
        const auto config = load_config(write(text), Config{}, true);
        ASSERT_FALSE(config) << text;
        EXPECT_NE(config.error().message.find("at most"), std::string::npos)
            << config.error().message;
    }
    const auto largest = load_config(write("log_tail_bytes = 1073741824\n"), Config{}, true);
    ASSERT_TRUE(largest) << largest.error().message;
    EXPECT_EQ(largest->log_limits.tail_bytes, 1073741824U);
}

TEST_F(ConfigTest, DrainsAreOffUnlessTheSiteTurnsThemOnWithLimits) {
    EXPECT_FALSE(Config{}.allow_drain);
    const auto on =
        load_config(write("allow_drain = true\ndrain_max_per_job = 2\ndrain_max_per_hour = 5\n"),
                    Config{}, true);
    ASSERT_TRUE(on) << on.error().message;
    EXPECT_TRUE(on->allow_drain);
    EXPECT_EQ(on->drain_max_per_job, 2U);
    EXPECT_EQ(on->drain_max_per_hour, 5U);
    const auto bad = load_config(write("allow_drain = \"yes\"\n"), Config{}, true);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("'allow_drain' must be true or false"), std::string::npos);
    EXPECT_FALSE(load_config(write("drain_max_per_hour = 0\n"), Config{}, true));
}

TEST_F(ConfigTest, SlurmRealitiesKeysAreReadAndBounded) {
    const auto config = load_config(
        write("outside_requeue_limit = 7\nstuck_pending_after_s = 120\ncheckpoint_settle_s = 5\n"),
        Config{}, true);
    ASSERT_TRUE(config) << config.error().message;
    EXPECT_EQ(config->outside_requeue_limit, 7U);
    EXPECT_EQ(config->stuck_pending_after, std::chrono::seconds(120));
    EXPECT_EQ(config->checkpoint_settle, std::chrono::seconds(5));
    EXPECT_FALSE(load_config(write("outside_requeue_limit = 0\n"), Config{}, true));
    EXPECT_FALSE(load_config(write("checkpoint_settle_s = 86401\n"), Config{}, true));
}

TEST_F(ConfigTest, CorrelationAndStragglerKeysAreReadAndBounded) {
    const auto defaults = Config{};
    EXPECT_EQ(defaults.suspect_node_min_jobs, 2U);
    EXPECT_EQ(defaults.same_step_tolerance, 0);
    const auto file = write(
        "suspect_node_min_jobs = 3\nsuspect_node_window_h = 6\nsame_step_tolerance = 50\n"
        "straggler_below_percent = 40\nstraggler_after_s = 600\n");
    const auto config = load_config(file, Config{}, true);
    ASSERT_TRUE(config) << config.error().message;
    EXPECT_EQ(config->suspect_node_min_jobs, 3U);
    EXPECT_EQ(config->suspect_node_window, std::chrono::hours(6));
    EXPECT_EQ(config->same_step_tolerance, 50);
    EXPECT_EQ(config->straggler_below_percent, 40);
    EXPECT_EQ(config->straggler_after, std::chrono::seconds(600));
    const auto too_much = load_config(write("straggler_below_percent = 100\n"), Config{}, true);
    ASSERT_FALSE(too_much);
    EXPECT_NE(too_much.error().message.find("at most 99"), std::string::npos);
}

TEST_F(ConfigTest, TheEvidenceSectionIsReadWithItsMetricNames) {
    const auto file = write(
        "[evidence]\nprometheus_url = \"https://prom.example:9090/prefix\"\n"
        "prometheus_credentials_file = \"/etc/slurm-supervisor/prometheus.secret\"\n"
        "prometheus_timeout_ms = 1500\nhostname_label = \"instance_host\"\n"
        "epilog_spool = \"/shared/spool\"\nidle_below_percent = 10\n"
        "series_labels = { job = \"dcgm-exporter\", cluster = \"a\" }\n"
        "[evidence.metrics]\nxid = \"site:dcgm_xid\"\n");
    const auto config = load_config(file, Config{}, true);
    ASSERT_TRUE(config) << config.error().message;
    const auto& evidence = config->evidence;
    EXPECT_EQ(evidence.prometheus.url, "https://prom.example:9090/prefix");
    EXPECT_EQ(evidence.prometheus.credentials_file, "/etc/slurm-supervisor/prometheus.secret");
    EXPECT_EQ(evidence.prometheus.timeout, std::chrono::milliseconds(1500));
    EXPECT_EQ(evidence.prometheus.hostname_label, "instance_host");
    EXPECT_EQ(evidence.prometheus.idle_below, 0.10);
    EXPECT_EQ(evidence.prometheus.metrics.xid, "site:dcgm_xid");
    EXPECT_EQ(evidence.prometheus.metrics.ecc_uncorrectable, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL");
    EXPECT_EQ(evidence.epilog_spool, "/shared/spool");
    EXPECT_EQ(evidence.prometheus.series_labels, (std::vector<std::pair<std::string, std::string>>{
                                                     {"cluster", "a"}, {"job", "dcgm-exporter"}}));
}

TEST_F(ConfigTest, BadEvidenceSettingsAreErrorsNamingTheKey) {
    const std::pair<const char*, const char*> cases[] = {
        {"[evidence]\nprometheus_url = \"prom:9090\"\n", "'prometheus_url' must start with"},
        {"[evidence]\nepilog_spool = \"spool\"\n", "'epilog_spool' must be an absolute path"},
        {"[evidence]\nhostname_label = \"host-name\"\n", "not a Prometheus label name"},
        {"[evidence.metrics]\nxid = \"9xid\"\n", "not a Prometheus metric name"},
        {"[evidence.metrics]\nxids = \"a\"\n", "unknown key 'xids' in [evidence.metrics]"},
        {"[evidence]\nprometheus_client_cert = \"/c.pem\"\n", "go together"},
        {"[evidence]\nprometheus_timeout_ms = 0\n", "'prometheus_timeout_ms' must be a positive"},
        {"evidence = 3\n", "'evidence' must be a table"},
        {"[evidence]\nseries_labels = \"job=x\"\n", "must be a table of label"},
        {"[evidence]\nseries_labels = { job = \"\" }\n", "job must be a non-empty string"},
        {"[evidence]\nseries_labels = { job = 3 }\n", "job must be a non-empty string"},
        {"[evidence]\nseries_labels = { __name__ = \"x\" }\n", "not a Prometheus label name"},
    };
    for (const auto& [text, expected] : cases) {
        const auto config = load_config(write(text), Config{}, true);
        ASSERT_FALSE(config) << text;
        EXPECT_NE(config.error().message.find(expected), std::string::npos)
            << text << " -> " << config.error().message;
        EXPECT_NE(config.error().message.find("supervisor.toml"), std::string::npos);
    }
}

TEST_F(ConfigTest, SyntaxErrorIsAnErrorNamingTheFile) {
    const auto file = write("poll_interval_ms = = 1\n");
    const auto config = load_config(file, Config{}, true);
    ASSERT_FALSE(config);
    EXPECT_NE(config.error().message.find(file.string()), std::string::npos);
}

TEST_F(ConfigTest, MissingFileGivesTheDefaultsWhenNotRequired) {
    Config base;
    base.state_dir = m_dir.path();
    const auto config = load_config(m_dir.path() / "absent.toml", base, false);
    ASSERT_TRUE(config) << config.error().message;
    EXPECT_EQ(config->state_dir, m_dir.path());
    EXPECT_EQ(config->poll_interval, Config{}.poll_interval);
    EXPECT_EQ(config->max_backoff, Config{}.max_backoff);
    EXPECT_EQ(config->start_delay, Config{}.start_delay);
    EXPECT_TRUE(config->rules_files.empty());
}

TEST_F(ConfigTest, MissingFileIsAnErrorWhenRequired) {
    const auto absent = m_dir.path() / "absent.toml";
    const auto config = load_config(absent, Config{}, true);
    ASSERT_FALSE(config);
    EXPECT_NE(config.error().message.find(absent.string()), std::string::npos);
}

TEST_F(ConfigTest, FileOverridesOnlyTheKeysItNames) {
    Config base;
    base.poll_interval = std::chrono::milliseconds(1234);
    const auto config = load_config(write("start_delay_s = 7\n"), base, true);
    ASSERT_TRUE(config) << config.error().message;
    EXPECT_EQ(config->poll_interval, std::chrono::milliseconds(1234));
    EXPECT_EQ(config->start_delay, std::chrono::seconds(7));
}

}  // namespace
