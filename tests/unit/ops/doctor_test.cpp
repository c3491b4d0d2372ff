// Each doctor check's ok, warn and FAIL paths, against the fake Slurm client (and a stub for
// what the fake cannot do: munge refusing us), temp directories and real SQLite files; and
// the two renderings.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>

#include "ops/doctor.h"
#include "tests/fakes/fake_slurm_client.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/notify/support.h"
#include "tests/unit/ops/check_text.h"

namespace ops {
namespace {

namespace fs = std::filesystem;

using test::mentions;

// Answers every call with one error kind (what the fake cannot simulate).
class RefusingClient final : public slurm::Client {
  public:
    explicit RefusingClient(slurm::ErrorKind kind) : m_error{kind, "refused by stub"} {}
    slurm::Result<slurm::JobQuery> load_jobs(std::span<const slurm::JobId>) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<std::optional<slurm::TimePoint>> load_expected_start(
        const slurm::JobId&) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<std::vector<slurm::JobSnapshot>> load_user_jobs(std::uint32_t) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<std::vector<slurm::PartitionSnapshot>> load_partitions() override {
        return tl::unexpected(m_error);
    }
    slurm::Result<slurm::TimePoint> ask_will_run(const slurm::JobSnapshot&,
                                                 const std::string&) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<std::vector<std::uint32_t>> load_array_tasks(std::uint32_t) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<std::vector<slurm::NodeSnapshot>> load_nodes() override {
        return tl::unexpected(m_error);
    }
    slurm::Result<void> requeue(const slurm::JobId&, slurm::RequeueMode) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<void> release(const slurm::JobId&) override { return tl::unexpected(m_error); }
    slurm::Result<void> set_excluded_nodes(const slurm::JobId&, const std::string&) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<void> set_required_nodes(const slurm::JobId&, const std::string&) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<void> set_time_limit(const slurm::JobId&, std::chrono::minutes) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<void> set_start_time(const slurm::JobId&, slurm::TimePoint) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<void> cancel(const slurm::JobId&) override { return tl::unexpected(m_error); }
    slurm::Result<std::optional<slurm::AccountingRecord>> load_accounting(
        const slurm::JobId&) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<slurm::JobId> submit(const slurm::SubmitRequest&) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<std::string> load_batch_script(const slurm::JobId&) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<void> drain_node(const std::string&, const std::string&) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<void> resume_node(const std::string&) override { return tl::unexpected(m_error); }
    slurm::Result<bool> ask_is_operator() override { return tl::unexpected(m_error); }
    slurm::Result<bool> ask_is_operator_uid(std::uint32_t) override {
        return tl::unexpected(m_error);
    }
    slurm::Result<slurm::Release> load_controller_release() override {
        return tl::unexpected(m_error);
    }

  private:
    slurm::Error m_error;
};

TEST(Doctor, ConfigAndRules) {
    supervisor::Config config;
    config.state_dir = "/tmp/x";
    const auto good = check_config(config, "/etc/c.toml");
    EXPECT_EQ(good.status, CheckStatus::ok);
    EXPECT_TRUE(mentions(good, "/etc/c.toml"));
    const auto bad =
        check_config(common::fail("c.toml: unknown key 'pol'", "known keys: ..."), "c.toml");
    EXPECT_EQ(bad.status, CheckStatus::fail);
    EXPECT_EQ(bad.fix, "known keys: ...");
    EXPECT_EQ(check_rules(common::fail("rules.toml:3: bad regex")).status, CheckStatus::fail);
    EXPECT_EQ(check_rules(recovery::Catalogue{}).status, CheckStatus::ok);
}

TEST(Doctor, StateDirectory) {
    test_support::TempDir dir;
    const auto uid = ::getuid();
    EXPECT_EQ(check_state_dir(dir.path() / "missing", uid).status, CheckStatus::warn);
    ::chmod(dir.path().c_str(), 0700);
    EXPECT_EQ(check_state_dir(dir.path(), uid).status, CheckStatus::ok);
    ::chmod(dir.path().c_str(), 0777);
    const auto open = check_state_dir(dir.path(), uid);
    EXPECT_EQ(open.status, CheckStatus::fail);
    EXPECT_TRUE(mentions(open, "chmod 700")) << open.message;
    EXPECT_TRUE(mentions(open, "0777")) << open.message;
    ::chmod(dir.path().c_str(), 0755);  // readable: the database holds jobs' environments
    const auto readable = check_state_dir(dir.path(), uid);
    EXPECT_EQ(readable.status, CheckStatus::fail);
    EXPECT_TRUE(mentions(readable, "can be read by group or others")) << readable.message;
    ::chmod(dir.path().c_str(), 0700);
    EXPECT_EQ(check_state_dir(dir.path(), uid + 1).status, CheckStatus::warn);  // not ours
    std::ofstream(dir.path() / "file") << "x";
    EXPECT_EQ(check_state_dir(dir.path() / "file", uid).status, CheckStatus::fail);
}

TEST(Doctor, DatabaseMissingSoundAndNotADatabase) {
    test_support::TempDir dir;
    const auto file = dir.path() / "supervisor.db";
    std::unique_ptr<state::Store> store;
    auto checks = check_database(file, store);
    ASSERT_EQ(checks.size(), 1U);
    EXPECT_EQ(checks[0].status, CheckStatus::warn);
    EXPECT_FALSE(fs::exists(file));  // doctor creates nothing
    EXPECT_EQ(store, nullptr);

    ASSERT_TRUE(state::Store::open(file));
    checks = check_database(file, store);
    ASSERT_EQ(checks.size(), 3U);
    for (const auto& check : checks) {
        EXPECT_EQ(check.status, CheckStatus::ok) << check.name << ": " << check.message;
    }
    EXPECT_TRUE(mentions(checks[0], "schema version"));
    EXPECT_EQ(checks[2].name, "database_wal");
    EXPECT_NE(store, nullptr);

    // A file made readable by others (a copy, a lax tool) is reported; opening it as its
    // owner makes it private again.
    ::chmod(file.c_str(), 0644);
    checks = check_database(file, store);
    ASSERT_FALSE(checks.empty());
    EXPECT_EQ(checks[0].name, "database_mode");
    EXPECT_EQ(checks[0].status, CheckStatus::fail);
    EXPECT_TRUE(mentions(checks[0], "chmod 600")) << checks[0].message;

    const auto junk = dir.path() / "junk.db";
    std::ofstream(junk) << "this is not an SQLite file, but long enough to look at its header....."
                           "......................................................................";
    std::unique_ptr<state::Store> none;
    checks = check_database(junk, none);
    ASSERT_EQ(checks.size(), 1U);
    EXPECT_EQ(checks[0].status, CheckStatus::fail);
    EXPECT_EQ(none, nullptr);
}

TEST(Doctor, DatabaseIntegrityFailure) {
    test_support::TempDir dir;
    const auto file = dir.path() / "supervisor.db";
    {
        auto store = state::Store::open(file);
        ASSERT_TRUE(store);
        for (int i = 0; i < 50; ++i) {  // enough rows for several pages
            state::Registration r;
            r.job = common::JobId::parse(std::to_string(1000 + i)).value();
            r.job_name = std::string(500, 'x');
            ASSERT_TRUE((*store)->insert_registration(r));
        }
    }
    fs::remove(file.string() + "-wal");
    fs::remove(file.string() + "-shm");
    {  // scribble over the pages of the middle half of the file (tables and indexes)
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(fs::file_size(file) / 4));
        const std::string garbage(fs::file_size(file) / 2, '\x5a');
        f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
    }
    std::unique_ptr<state::Store> store;
    const auto checks = check_database(file, store);
    const bool failed =
        std::ranges::any_of(checks, [](const Check& c) { return c.status == CheckStatus::fail; });
    EXPECT_TRUE(failed) << render_text({checks});
}

TEST(Doctor, MetricsFile) {
    test_support::TempDir dir;
    EXPECT_EQ(check_metrics_file({}).status, CheckStatus::ok);
    EXPECT_EQ(check_metrics_file(dir.path() / "s.prom").status, CheckStatus::ok);
    EXPECT_EQ(check_metrics_file(dir.path() / "s.txt").status, CheckStatus::warn);
    const auto missing = check_metrics_file(dir.path() / "no" / "s.prom");
    EXPECT_EQ(missing.status, CheckStatus::fail);
    EXPECT_TRUE(mentions(missing, (dir.path() / "no").string()));

    // A directory others may write: they could plant or swap the file. Sticky (like /tmp): ok.
    const auto shared = dir.path() / "shared";
    std::filesystem::create_directory(shared);
    std::filesystem::permissions(shared, std::filesystem::perms::all);
    const auto open_to_all = check_metrics_file(shared / "s.prom");
    EXPECT_EQ(open_to_all.status, CheckStatus::fail);
    EXPECT_TRUE(mentions(open_to_all, "writable by its group or by others"));
    std::filesystem::permissions(shared, std::filesystem::perms::sticky_bit,
                                 std::filesystem::perm_options::add);
    EXPECT_EQ(check_metrics_file(shared / "s.prom").status, CheckStatus::ok);
}

TEST(Doctor, SlurmReachableUnreachableAndAuth) {
    common::FakeClock clock;
    fakes::FakeSlurmClient fake(clock);
    auto checks = check_slurm(&fake, "");
    ASSERT_EQ(checks.size(), 2U);
    EXPECT_EQ(checks[0].status, CheckStatus::ok);
    EXPECT_TRUE(mentions(checks[0], "3 node(s)"));
    EXPECT_EQ(checks[1].status, CheckStatus::ok);

    fake.set_unreachable(true);
    checks = check_slurm(&fake, "");
    EXPECT_EQ(checks[0].status, CheckStatus::fail);
    EXPECT_TRUE(mentions(checks[0], "scontrol ping"));
    EXPECT_EQ(checks[1].status, CheckStatus::warn);

    RefusingClient munge(slurm::ErrorKind::authentication_failure);
    checks = check_slurm(&munge, "");
    EXPECT_EQ(checks[0].status, CheckStatus::ok);
    EXPECT_EQ(checks[1].status, CheckStatus::fail);
    EXPECT_TRUE(mentions(checks[1], "munge"));

    checks = check_slurm(nullptr, "no Slurm configuration at /etc/slurm/slurm.conf");
    EXPECT_EQ(checks[0].status, CheckStatus::fail);
    EXPECT_TRUE(mentions(checks[0], "SLURM_CONF"));

    EXPECT_EQ(check_slurm_version("22.05.8", "38").status, CheckStatus::ok);
    EXPECT_TRUE(mentions(check_slurm_version("22.05.8", "38"), "22.05.8"));
}

TEST(Doctor, SlurmReleaseAgainstTheControllers) {
    common::FakeClock clock;
    fakes::FakeSlurmClient fake(clock);
    const slurm::Release built{23, 11, 4};

    fake.set_controller_release({23, 11, 10});
    auto check = check_slurm_release(&fake, built);
    EXPECT_EQ(check.status, CheckStatus::ok) << check.message;
    EXPECT_TRUE(mentions(check, "23.11.4"));
    EXPECT_TRUE(mentions(check, "23.11.10"));

    fake.set_controller_release({24, 11, 5});  // two families newer: still accepts us
    check = check_slurm_release(&fake, built);
    EXPECT_EQ(check.status, CheckStatus::warn) << check.message;
    EXPECT_TRUE(mentions(check, "24.11"));

    fake.set_controller_release({23, 2, 7});  // slurmctld older than us: refused
    check = check_slurm_release(&fake, built);
    EXPECT_EQ(check.status, CheckStatus::fail) << check.message;
    EXPECT_TRUE(mentions(check, "rebuild slurm-supervisor against Slurm 23.02"));

    fake.set_controller_release({25, 11, 0});  // four families newer: we are too old
    check = check_slurm_release(&fake, built);
    EXPECT_EQ(check.status, CheckStatus::fail) << check.message;
    EXPECT_TRUE(mentions(check, "25.11"));

    RefusingClient protocol(slurm::ErrorKind::release_mismatch);
    check = check_slurm_release(&protocol, built);
    EXPECT_EQ(check.status, CheckStatus::fail);
    EXPECT_TRUE(mentions(check, "rebuild"));

    fake.set_unreachable(true);
    EXPECT_EQ(check_slurm_release(&fake, built).status, CheckStatus::warn);
    EXPECT_EQ(check_slurm_release(nullptr, built).status, CheckStatus::warn);
}

TEST(Doctor, OperatorRightsAgainstTheRegistrations) {
    common::FakeClock clock;
    fakes::FakeSlurmClient fake(clock);
    const uid_t me = 1000;
    state::Registration mine;
    mine.job = common::JobId::parse("10").value();
    mine.owner_uid = me;
    mine.status = state::Status::enabled;
    mine.allowed_actions = {"requeue"};

    EXPECT_EQ(check_operator(&fake, std::vector{mine}, me).status, CheckStatus::ok);  // operator
    fake.set_operator(false);
    const auto plain = check_operator(&fake, std::vector{mine}, me);
    EXPECT_EQ(plain.status, CheckStatus::ok);
    EXPECT_TRUE(mentions(plain, "drain_node"));

    auto drains = mine;
    drains.allowed_actions = {"requeue", "drain_node"};
    const auto drain = check_operator(&fake, std::vector{drains}, me);
    EXPECT_EQ(drain.status, CheckStatus::warn);
    EXPECT_TRUE(mentions(drain, "10"));

    auto foreign = mine;
    foreign.owner_uid = me + 1;
    EXPECT_EQ(check_operator(&fake, std::vector{foreign}, me).status, CheckStatus::fail);
    foreign.status = state::Status::completed;  // no longer watched: nothing to act on
    EXPECT_EQ(check_operator(&fake, std::vector{foreign}, me).status, CheckStatus::ok);

    RefusingClient down(slurm::ErrorKind::controller_unreachable);
    EXPECT_EQ(check_operator(&down, {}, me).status, CheckStatus::warn);
    EXPECT_EQ(check_operator(nullptr, {}, me).status, CheckStatus::warn);
}

TEST(Doctor, NotificationChannels) {
    test_support::TempDir dir;
    notify::Settings settings;
    auto checks = check_notify(settings);
    ASSERT_EQ(checks.size(), 3U);
    EXPECT_EQ(checks[0].status, CheckStatus::ok);
    EXPECT_TRUE(mentions(checks[0], "not configured"));

    const auto secrets = dir.path() / "smtp.secrets";
    std::ofstream(secrets) << "user = bot\npassword = x\n";
    ::chmod(secrets.c_str(), 0600);
    settings.smtp_url = "smtp://127.0.0.1:2525";
    settings.smtp_secrets_file = secrets;
    EXPECT_EQ(check_notify(settings)[0].status, CheckStatus::ok);
    ::chmod(secrets.c_str(), 0644);  // readable by others: the dispatcher refuses it
    const auto open = check_notify(settings)[0];
    EXPECT_EQ(open.status, CheckStatus::fail);
    EXPECT_TRUE(mentions(open, "chmod 600")) << open.message << " / " << open.fix;

    settings.twilio_account_sid = "AC123";
    EXPECT_EQ(check_notify(settings)[1].status, CheckStatus::fail);  // no token file
    settings.twilio_secrets_file = dir.path() / "missing";
    EXPECT_EQ(check_notify(settings)[1].status, CheckStatus::fail);
}

TEST(Doctor, PagerDutyTargetsNeedARoutingKeyEachAndNoKeyIsShown) {
    test_support::TempDir dir;
    const auto find = [](const notify::Settings& settings) {
        const auto checks = check_notify(settings);
        const auto it = std::ranges::find(checks, "notify_pagerduty", &Check::name);
        return it == checks.end() ? Check{} : *it;
    };
    notify::Settings settings;
    auto check = find(settings);
    EXPECT_EQ(check.status, CheckStatus::ok);
    EXPECT_TRUE(mentions(check, "not configured")) << check.message;

    settings.default_targets = {"mailto:ops@example.org", "pagerduty:ops"};
    check = find(settings);
    EXPECT_EQ(check.status, CheckStatus::fail);
    EXPECT_TRUE(mentions(check, "pagerduty_secrets_file")) << check.message << " / " << check.fix;

    const auto secrets = dir.path() / "pagerduty.secret";
    std::ofstream(secrets) << "storage = key-storage-456\n";
    ::chmod(secrets.c_str(), 0600);
    settings.pagerduty_secrets_file = secrets;
    check = find(settings);
    EXPECT_EQ(check.status, CheckStatus::fail);  // no key named ops
    EXPECT_TRUE(mentions(check, "no routing key named 'ops'")) << check.message;
    EXPECT_TRUE(mentions(check, "ops = ROUTING_KEY")) << check.fix;

    std::ofstream(secrets) << "storage = key-storage-456\nops = key-ops-123\n";
    check = find(settings);
    EXPECT_EQ(check.status, CheckStatus::ok) << check.message << " / " << check.fix;
    EXPECT_TRUE(mentions(check, "https://events.pagerduty.com/...")) << check.message;
    EXPECT_TRUE(mentions(check, "routing keys for ops")) << check.message;

    ::chmod(secrets.c_str(), 0644);
    check = find(settings);
    EXPECT_EQ(check.status, CheckStatus::fail);
    EXPECT_TRUE(mentions(check, "chmod 600")) << check.fix;
    ::chmod(secrets.c_str(), 0600);
    for (const auto& each : check_notify(settings)) {
        EXPECT_FALSE(mentions(each, "key-ops-123")) << each.message << " / " << each.fix;
        EXPECT_FALSE(mentions(each, "key-storage-456")) << each.message << " / " << each.fix;
    }
}

TEST(Doctor, SmtpCredentialsWithoutTlsAndInTheUrlAreCalledOut) {
    test_support::TempDir dir;
    const auto secrets = dir.path() / "smtp.secrets";
    std::ofstream(secrets) << "user = bot\npassword = x\n";
    ::chmod(secrets.c_str(), 0600);
    notify::Settings settings;
    settings.smtp_secrets_file = secrets;
    settings.smtp_url = "smtp://mail.example.org:587";
    settings.smtp_tls = notify::SmtpTls::none;
    const auto find = [](const std::vector<Check>& checks, const std::string& name) {
        const auto it = std::ranges::find(checks, name, &Check::name);
        return it == checks.end() ? Check{} : *it;
    };
    auto tls = find(check_notify(settings), "notify_email_tls");
    EXPECT_EQ(tls.status, CheckStatus::fail);
    EXPECT_TRUE(mentions(tls, "clear text")) << tls.message;
    settings.smtp_tls = notify::SmtpTls::try_tls;
    tls = find(check_notify(settings), "notify_email_tls");
    EXPECT_EQ(tls.status, CheckStatus::warn);
    EXPECT_TRUE(mentions(tls, "STARTTLS")) << tls.message;
    settings.smtp_tls = notify::SmtpTls::required;
    EXPECT_TRUE(find(check_notify(settings), "notify_email_tls").name.empty());

    settings.smtp_secrets_file.clear();
    settings.smtp_url = "smtp://bot:hunter2@mail.example.org:587";
    const auto checks = check_notify(settings);
    EXPECT_EQ(find(checks, "notify_email_url").status, CheckStatus::warn);
    for (const auto& check : checks) {
        EXPECT_EQ(check.message.find("hunter2"), std::string::npos) << check.message;
    }
}

TEST(Doctor, SendTestReportsEachTargetWithTheServersAnswer) {
    notify::test::FakeSender sender;
    sender.script = {notify::SendResult{},
                     tl::unexpected(notify::SendError{"SMTP 550: no such user", true}),
                     tl::unexpected(notify::SendError{"HTTP: connection refused", false})};
    notify::Settings settings;
    const common::FakeClock clock;
    const auto checks = send_test_messages(
        sender, settings,
        {"mailto:a@example.org", "mailto:b@example.org", "https://hooks.example/x", "fax:123"},
        "login1", clock.now());
    ASSERT_EQ(checks.size(), 4U);
    EXPECT_EQ(checks[0].status, CheckStatus::ok);
    EXPECT_TRUE(mentions(checks[0], "mailto:a@example.org accepted")) << checks[0].message;
    EXPECT_EQ(checks[1].status, CheckStatus::fail);
    EXPECT_TRUE(mentions(checks[1], "SMTP 550: no such user"));
    EXPECT_TRUE(mentions(checks[1], "refused this message for good")) << checks[1].fix;
    EXPECT_EQ(checks[2].status, CheckStatus::fail);
    EXPECT_TRUE(mentions(checks[2], "reachable from this host")) << checks[2].fix;
    EXPECT_EQ(checks[3].status, CheckStatus::fail) << "a bad target is never sent";
    EXPECT_TRUE(mentions(checks[3], "fax:123"));
    ASSERT_EQ(sender.calls.size(), 3U);
    const auto& first = sender.calls[0].message;
    EXPECT_NE(first.subject.find("test message"), std::string::npos) << first.subject;
    EXPECT_NE(first.body.find("login1"), std::string::npos) << first.body;
    EXPECT_FALSE(first.sms.empty());
    EXPECT_NE(first.json.find("\"text\""), std::string::npos) << first.json;
    EXPECT_NE(first.unique_key, sender.calls[1].message.unique_key);
}

TEST(Doctor, SendTestWithoutTargetsUsesTheDefaultsOrSaysThereAreNone) {
    notify::test::FakeSender sender;
    notify::Settings settings;
    const common::FakeClock clock;
    auto checks = send_test_messages(sender, settings, {}, "login1", clock.now());
    ASSERT_EQ(checks.size(), 1U);
    EXPECT_EQ(checks[0].status, CheckStatus::fail);
    EXPECT_TRUE(mentions(checks[0], "default_targets"));
    EXPECT_TRUE(sender.calls.empty());

    settings.default_targets = {"sms:+15551234567"};
    checks = send_test_messages(sender, settings, {}, "login1", clock.now());
    ASSERT_EQ(checks.size(), 1U);
    EXPECT_EQ(checks[0].status, CheckStatus::ok);
    ASSERT_EQ(sender.calls.size(), 1U);
    EXPECT_EQ(sender.calls[0].target.address, "+15551234567");
}

TEST(Doctor, RenderingsAndExitStatus) {
    DoctorReport report;
    report.checks.push_back({"config", CheckStatus::ok, "loaded", ""});
    report.checks.push_back({"auth", CheckStatus::warn, "not checked", "fix slurmctld first"});
    EXPECT_FALSE(report.failed());
    report.checks.push_back({"slurmctld", CheckStatus::fail, "down", "start it"});
    EXPECT_TRUE(report.failed());
    EXPECT_EQ(render_text(report),
              "ok    config: loaded\n"
              "warn  auth: not checked; fix: fix slurmctld first\n"
              "FAIL  slurmctld: down; fix: start it\n");
    const auto json = render_json(report);
    EXPECT_EQ(json["ok"], false);
    EXPECT_EQ(json["checks"][2]["status"], "fail");
    EXPECT_EQ(json["checks"][2]["fix"], "start it");
    EXPECT_EQ(json["checks"].size(), 3U);
}

}  // namespace
}  // namespace ops
