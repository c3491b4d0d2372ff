// SubmitRequest's JSON form (what the supervisor stores) and submit_request_from (a snapshot
// turned back into a submission).
#include "slurm/submit_request.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace {

using namespace std::chrono_literals;

slurm::SubmitRequest full_request() {
    slurm::SubmitRequest r;
    r.script = "#!/bin/bash\n#SBATCH -N 2\necho \"é\\t\"\n";
    r.name = "train";
    r.partition = "gpu";
    r.account = "proj";
    r.qos = "high";
    r.work_dir = "/home/u/run";
    r.std_out = "/logs/%x-%j.out";
    r.std_err = "/logs/%x-%j.err";
    r.std_in = "/dev/null";
    r.open_mode_append = true;
    r.time_limit = 1440;
    r.min_nodes = 2;
    r.max_nodes = 4;
    r.num_tasks = 8;
    r.ntasks_per_node = 4;
    r.cpus_per_task = 16;
    r.pn_min_memory = 4096;
    r.mem_per_cpu = true;
    r.tres_per_node = "gres:gpu:4";
    r.excluded_nodes = "n3";
    r.required_nodes = "n[1-2]";
    r.comment = "resubmitted";
    r.features = "a100&ib";
    r.sharing = slurm::NodeSharing::exclusive;
    r.reservation = "maint";
    r.licenses = "matlab:2";
    r.time_min = 30;
    r.nice = -5;
    r.wckey = "wk";
    r.mail_type = 0x7;
    r.mail_user = "u@example.org";
    r.dependency = "afterok:12?afterany:13_*";
    r.tres_per_job = "gres:gpu:8";
    r.tres_per_task = "gres:gpu:1";
    r.tres_per_socket = "gres:gpu:2";
    r.cpus_per_tres = "gres:gpu:4";
    r.mem_per_tres = "gres:gpu:1024";
    r.ntasks_per_tres = 1;
    r.tres_bind = "gres:gpu:closest";
    r.tres_freq = "gpu:high";
    r.ntasks_per_socket = 2;
    r.ntasks_per_core = 1;
    r.sockets_per_node = 2;
    r.cores_per_socket = 8;
    r.threads_per_core = 1;
    r.requeue = false;
    r.hold = true;
    r.environment = {"PATH=/usr/bin", "EMPTY=", "WITH_EQUALS=a=b"};
    r.argv = {"./train.sbatch", "--lr", "3e-4", "two words"};
    r.user_id = 1000;
    r.group_id = 100;
    return r;
}

TEST(SubmitRequestJson, RoundTripKeepsEveryField) {
    const auto request = full_request();
    const auto back = slurm::submit_request_from_json_text(slurm::to_json_text(request));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, request);
}

TEST(SubmitRequestJson, BytesThatAreNotUtf8RoundTripExactly) {
    // A script path, an argument and an environment value a job's owner may give: a resubmit
    // must use them byte for byte, and writing them must not throw.
    auto request = full_request();
    request.script = "#!/bin/sh\necho \xff\n";
    request.work_dir = "/work/run\xfe";
    request.argv = {"/work/train\xff.sh", "--tag=\xc3(", "plain"};
    request.environment = {"A=1", "LABEL=\xed\xa0\x80"};
    const auto json = slurm::to_json(request);
    EXPECT_EQ(json.at("work_dir").at("bytes_hex"), "2f776f726b2f72756efe");
    EXPECT_EQ(json.at("argv").at(2), "plain");
    std::string text;
    ASSERT_NO_THROW(text = slurm::to_json_text(request));
    const auto back = slurm::submit_request_from_json_text(text);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, request);
}

TEST(SubmitRequestJson, MalformedBytesFormIsRefusedNamingTheKey) {
    for (const char* bad : {R"({"bytes_hex": "abc"})", R"({"bytes_hex": "zz"})",
                            R"({"bytes_hex": "ff", "more": 1})", R"({"bytes_hex": 7})"}) {
        auto json = slurm::to_json(full_request());
        json["work_dir"] = nlohmann::json::parse(bad);
        const auto back = slurm::submit_request_from_json(json);
        ASSERT_FALSE(back) << bad;
        EXPECT_NE(back.error().message.find("\"work_dir\""), std::string::npos)
            << back.error().message;
    }
}

TEST(SubmitRequestJson, RoundTripKeepsUnsetOptionalsUnset) {
    slurm::SubmitRequest request;
    request.script = "#!/bin/sh\n";
    request.environment = {"A=1"};
    const auto json = slurm::to_json(request);
    EXPECT_TRUE(json.at("time_limit").is_null());
    EXPECT_TRUE(json.at("user_id").is_null());
    const auto back = slurm::submit_request_from_json(json);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, request);
    EXPECT_FALSE(back->time_limit);
    EXPECT_FALSE(back->pn_min_memory);
}

// The first problem reading `json`, or "" when it reads fine.
std::string problem_with(const nlohmann::json& json) {
    const auto result = slurm::submit_request_from_json(json);
    return result ? std::string() : result.error().message;
}

TEST(SubmitRequestJson, MissingKeyIsNamed) {
    auto json = slurm::to_json(full_request());
    json.erase("partition");
    EXPECT_NE(problem_with(json).find("missing key \"partition\""), std::string::npos)
        << problem_with(json);
}

TEST(SubmitRequestJson, UnknownKeyIsNamed) {
    auto json = slurm::to_json(full_request());
    json["gpus_per_task"] = 2;
    EXPECT_NE(problem_with(json).find("unknown key \"gpus_per_task\""), std::string::npos)
        << problem_with(json);
}

TEST(SubmitRequestJson, WrongTypesAndRangesAreRefusedNamingTheKey) {
    const std::pair<const char*, nlohmann::json> bad[] = {
        {"name", 3},
        {"hold", "yes"},
        {"min_nodes", -1},
        {"min_nodes", 1.5},
        {"min_nodes", nullptr},      // not optional
        {"ntasks_per_node", 70000},  // a uint16_t field
        {"time_limit", "1h"},
        {"environment", "A=1"},
        {"environment", nlohmann::json::array({"A=1", 2})},
    };
    for (const auto& [key, value] : bad) {
        auto json = slurm::to_json(full_request());
        json[key] = value;
        const auto problem = problem_with(json);
        EXPECT_NE(problem.find(std::string("\"") + key + "\""), std::string::npos)
            << key << " = " << value.dump() << ": " << problem;
    }
}

// A request stored before the options from "features" on were carried: read as not giving
// them, never refused (an upgrade must not break the specs of jobs already registered).
TEST(SubmitRequestJson, RequestStoredBeforeTheLaterOptionsReadsWithThemNotGiven) {
    const auto old = nlohmann::json::parse(R"({
        "script": "#!/bin/sh\nsleep 1\n", "name": "old", "partition": "debug",
        "account": "", "qos": "", "work_dir": "/w", "std_out": "/w/1.out", "std_err": "",
        "std_in": "", "open_mode_append": true, "time_limit": 10, "min_nodes": 1,
        "max_nodes": null, "num_tasks": 2, "ntasks_per_node": null, "cpus_per_task": null,
        "pn_min_memory": 100, "mem_per_cpu": false, "tres_per_node": "gres:gpu:1",
        "excluded_nodes": "", "required_nodes": "", "comment": "c", "requeue": false,
        "hold": false, "environment": ["A=1"], "argv": ["./run.sh"], "user_id": 1000,
        "group_id": 100})");
    const auto read = slurm::submit_request_from_json(old);
    ASSERT_TRUE(read) << read.error().message;
    slurm::SubmitRequest expected;
    expected.script = "#!/bin/sh\nsleep 1\n";
    expected.name = "old";
    expected.partition = "debug";
    expected.work_dir = "/w";
    expected.std_out = "/w/1.out";
    expected.open_mode_append = true;
    expected.time_limit = 10;
    expected.min_nodes = 1;
    expected.num_tasks = 2;
    expected.pn_min_memory = 100;
    expected.tres_per_node = "gres:gpu:1";
    expected.comment = "c";
    expected.requeue = false;
    expected.environment = {"A=1"};
    expected.argv = {"./run.sh"};
    expected.user_id = 1000;
    expected.group_id = 100;
    EXPECT_EQ(*read, expected);
    // Written again, it has every key, and reads back the same.
    const auto again = slurm::submit_request_from_json(slurm::to_json(*read));
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(*again, expected);
    EXPECT_TRUE(slurm::to_json(*read).contains("features"));
}

TEST(SubmitRequestJson, LaterKeysAreStillCheckedWhenPresent) {
    const std::pair<const char*, nlohmann::json> bad[] = {
        {"sharing", "shared"},
        {"sharing", 1},
        {"nice", 1.5},
        {"nice", 3000000000LL},
        {"nice", 18446744073709551615ULL},
        {"nice", -3000000000LL},
        {"mail_type", -1},
        {"mail_type", 70000},
        {"ntasks_per_tres", "one"},
        {"features", 3},
        {"time_min", "1h"},
    };
    for (const auto& [key, value] : bad) {
        auto json = slurm::to_json(full_request());
        json[key] = value;
        const auto problem = problem_with(json);
        EXPECT_NE(problem.find(std::string("\"") + key + "\""), std::string::npos)
            << key << " = " << value.dump() << ": " << problem;
    }
    auto json = slurm::to_json(full_request());
    json["nice"] = 19;
    json["sharing"] = "oversubscribe";
    const auto read = slurm::submit_request_from_json(json);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(read->nice, 19);
    EXPECT_EQ(read->sharing, slurm::NodeSharing::oversubscribe);
}

TEST(SubmitRequestJson, TextThatIsNotAnObjectIsAnErrorNotACrash) {
    for (const char* text : {"", "{", "[1,2]", "null", "\"text\"", "{\"script\": }"}) {
        const auto result = slurm::submit_request_from_json_text(text);
        ASSERT_FALSE(result) << text;
        EXPECT_FALSE(result.error().message.empty());
        EXPECT_FALSE(result.error().hint.empty());
    }
}

slurm::JobSnapshot snapshot() {
    slurm::JobSnapshot job;
    job.id = common::JobId{1234, 7};  // an array task: the request is a plain job
    job.name = "train";
    job.user_id = 1000;
    job.group_id = 100;
    job.state = slurm::JobState::failed;
    job.held = true;
    job.partition = "gpu";
    job.account = "proj";
    job.qos = "high";
    job.work_dir = "/home/u/run";
    job.std_out = "/logs/train-1234_7.out";
    job.std_err = "/logs/train-1234_7.err";
    job.std_in = "/dev/null";
    job.time_limit = 90min;
    job.num_nodes = 2;
    job.max_nodes = 2;
    job.num_tasks = 8;
    job.ntasks_per_node = 4;
    job.cpus_per_task = 16;
    job.pn_min_memory = 2048;
    job.mem_per_cpu = true;
    job.tres_per_node = "gres:gpu:4";
    job.excluded_nodes = "n3";
    job.required_nodes = "n[1-2]";
    job.comment = "first run";
    job.features = "a100&ib";
    job.sharing = slurm::NodeSharing::exclusive;
    job.reservation = "maint";
    job.licenses = "matlab:2";
    job.time_min = 30;
    job.nice = -5;
    job.wckey = "wk";
    job.mail_type = 0x7;
    job.mail_user = "u@example.org";
    job.dependency = "afterok:12(unfulfilled)?afterany:13_*(failed)";
    job.tres_per_job = "gres:gpu:8";
    job.tres_per_task = "gres:gpu:1";
    job.tres_per_socket = "gres:gpu:2";
    job.cpus_per_tres = "gres:gpu:4";
    job.mem_per_tres = "gres:gpu:1024";
    job.ntasks_per_tres = 1;
    job.tres_bind = "gres:gpu:closest";
    job.tres_freq = "gpu:high";
    job.ntasks_per_socket = 2;
    job.ntasks_per_core = 1;
    job.sockets_per_node = 2;
    job.cores_per_socket = 8;
    job.threads_per_core = 1;
    job.requeueable = true;
    job.command = "/home/u/run/train.sbatch --steps 20  --lr=3e-4";
    job.command_has_arguments = true;  // as slurmctld up to 23.11 reports it, on any build
    return job;
}

TEST(SubmitRequestFrom, CopiesTheOptionsScriptAndEnvironment) {
    const auto request =
        slurm::submit_request_from(snapshot(), "#!/bin/sh\ntrain\n", {"A=1", "B=2"});
    slurm::SubmitRequest expected;
    expected.script = "#!/bin/sh\ntrain\n";
    expected.environment = {"A=1", "B=2"};
    expected.name = "train";
    expected.partition = "gpu";
    expected.account = "proj";
    expected.qos = "high";
    expected.work_dir = "/home/u/run";
    expected.std_out = "/logs/train-1234_7.out";
    expected.std_err = "/logs/train-1234_7.err";
    expected.std_in = "/dev/null";
    expected.open_mode_append = true;  // keep the old run's log
    expected.time_limit = 90;
    expected.min_nodes = 2;
    expected.max_nodes = 2;
    expected.num_tasks = 8;
    expected.ntasks_per_node = 4;
    expected.cpus_per_task = 16;
    expected.pn_min_memory = 2048;
    expected.mem_per_cpu = true;
    expected.tres_per_node = "gres:gpu:4";
    expected.excluded_nodes = "n3";
    expected.required_nodes = "n[1-2]";
    expected.comment = "first run";
    expected.features = "a100&ib";
    expected.sharing = slurm::NodeSharing::exclusive;
    expected.reservation = "maint";
    expected.licenses = "matlab:2";
    expected.time_min = 30;
    expected.nice = -5;
    expected.wckey = "wk";
    expected.mail_type = 0x7;
    expected.mail_user = "u@example.org";
    expected.dependency = "afterok:12?afterany:13_*";
    expected.tres_per_job = "gres:gpu:8";
    expected.tres_per_task = "gres:gpu:1";
    expected.tres_per_socket = "gres:gpu:2";
    expected.cpus_per_tres = "gres:gpu:4";
    expected.mem_per_tres = "gres:gpu:1024";
    expected.ntasks_per_tres = 1;
    expected.tres_bind = "gres:gpu:closest";
    expected.tres_freq = "gpu:high";
    expected.ntasks_per_socket = 2;
    expected.ntasks_per_core = 1;
    expected.sockets_per_node = 2;
    expected.cores_per_socket = 8;
    expected.threads_per_core = 1;
    expected.requeue = true;
    expected.hold = false;  // a held snapshot still gives a job that runs
    expected.user_id = 1000;
    expected.group_id = 100;
    expected.argv = {"/home/u/run/train.sbatch", "--steps", "20", "--lr=3e-4"};
    EXPECT_EQ(request, expected);
}

TEST(SubmitRequestFrom, CommandIsSplitAtBlanksAndAStdinScriptHasNoArgv) {
    EXPECT_EQ(slurm::command_words("./run.sh a  b "),
              (std::vector<std::string>{"./run.sh", "a", "b"}));
    EXPECT_EQ(slurm::command_words("/x/run.sh"), (std::vector<std::string>{"/x/run.sh"}));
    EXPECT_TRUE(slurm::command_words("").empty());
    EXPECT_TRUE(slurm::command_words("   ").empty());
    auto job = snapshot();
    job.command.clear();  // sbatch < script: Slurm shows Command=(null)
    EXPECT_TRUE(slurm::submit_request_from(job, "#!/bin/sh\n", {"A=1"}).argv.empty());
}

TEST(SubmitRequestFrom, APathAloneIsKeptWholeBlanksAndAll) {
    // From 24.05 Command= is the script's path alone: a path with blanks (the owner chose it)
    // is one word, never split into a path and made-up arguments.
    auto job = snapshot();
    job.command_has_arguments = false;
    job.command = "/home/u/my run/train --steps 20.sbatch";
    EXPECT_EQ(slurm::submit_request_from(job, "#!/bin/sh\n", {"A=1"}).argv,
              (std::vector<std::string>{"/home/u/my run/train --steps 20.sbatch"}));
    job.command.clear();  // a script read from stdin still has no argv
    EXPECT_TRUE(slurm::submit_request_from(job, "#!/bin/sh\n", {"A=1"}).argv.empty());
}

TEST(SubmitRequestFrom, UnsplitStderrIsLeftOutAndUnlimitedTimeStaysUnset) {
    auto job = snapshot();
    job.std_err = job.std_out;  // the snapshot repeats stdout when there was no --error
    job.time_limit.reset();
    job.max_nodes.reset();
    job.pn_min_memory.reset();
    job.mem_per_cpu = false;
    job.requeueable = false;
    const auto request = slurm::submit_request_from(job, "#!/bin/sh\n", {"A=1"});
    EXPECT_EQ(request.std_out, job.std_out);
    EXPECT_EQ(request.std_err, "");
    EXPECT_FALSE(request.time_limit);
    EXPECT_FALSE(request.max_nodes);
    EXPECT_FALSE(request.pn_min_memory);
    EXPECT_FALSE(request.requeue);
}

}  // namespace

namespace {

std::optional<std::string> replaced(std::string_view job) {
    if (job == "12") {
        return "15";
    }
    if (job == "13_4") {
        return "16";
    }
    return std::nullopt;
}

}  // namespace

TEST(DependencyOption, StatesAreDroppedAndFulfilledDependenciesLeftOut) {
    EXPECT_EQ(slurm::dependency_option(""), "");
    EXPECT_EQ(slurm::dependency_option("afterok:12(unfulfilled)"), "afterok:12");
    EXPECT_EQ(slurm::dependency_option("afterok:12(unfulfilled),afterany:13_*(failed)"),
              "afterok:12,afterany:13_*");
    EXPECT_EQ(slurm::dependency_option("afterok:12(fulfilled)?after:14+5(unfulfilled)"),
              "after:14+5");
    EXPECT_EQ(slurm::dependency_option("singleton(unfulfilled)"), "singleton");
    EXPECT_EQ(slurm::dependency_option("afterok:12(fulfilled)"), "");
    // Already in sbatch's form (a later release, or a fake): kept.
    EXPECT_EQ(slurm::dependency_option("afterok:12:13"), "afterok:12:13");
}

TEST(RepointDependency, ReplacedJobsArePointedAtTheirReplacement) {
    EXPECT_EQ(slurm::repoint_dependency("", replaced), "");
    EXPECT_EQ(slurm::repoint_dependency("afterok:12", replaced), "afterok:15");
    EXPECT_EQ(slurm::repoint_dependency("afterok:12:14,afterany:13_4", replaced),
              "afterok:15:14,afterany:16");
    EXPECT_EQ(slurm::repoint_dependency("after:12+5?afternotok:11", replaced),
              "after:15+5?afternotok:11");
    // A whole array, an id nobody replaced and a singleton stay as they are.
    EXPECT_EQ(slurm::repoint_dependency("afterok:13_*,singleton", replaced),
              "afterok:13_*,singleton");
    EXPECT_EQ(slurm::repoint_dependency("afterok:120", replaced), "afterok:120");
}

TEST(OptionsNotCarried, NamesTheArrayTaskAndUnreportedArguments) {
    auto job = snapshot();  // an array task, its arguments reported
    job.not_carried = {"--deadline"};
    auto options = slurm::options_not_carried(job, false);
    ASSERT_EQ(options.size(), 2U);
    EXPECT_EQ(options[0], "--deadline");
    EXPECT_NE(options[1].find("--array (task 7"), std::string::npos) << options[1];

    job.id = common::JobId{1234, std::nullopt};
    job.not_carried.clear();
    EXPECT_TRUE(slurm::options_not_carried(job, false).empty());
    job.command_has_arguments = false;  // 24.05+: the arguments are not reported
    options = slurm::options_not_carried(job, false);
    ASSERT_EQ(options.size(), 1U);
    EXPECT_NE(options[0].find("arguments"), std::string::npos);
    EXPECT_TRUE(slurm::options_not_carried(job, true).empty());  // supervisor sbatch knew them
}
