// The secrets file: read when private, refused (naming the file and `chmod 600`) when group or
// others can read it, and format errors with the line.
#include <sys/stat.h>

#include <fstream>

#include "notify/secrets.h"
#include "support.h"

namespace notify::test {
namespace {

using test_support::TempDir;

std::filesystem::path write(const TempDir& dir, const std::string& text, mode_t mode) {
    const auto file = dir.path() / "smtp.secret";
    std::ofstream(file) << text;
    ::chmod(file.c_str(), mode);
    return file;
}

TEST(Secrets, APrivateFileIsRead) {
    TempDir dir;
    const auto file =
        write(dir, "# SMTP login\nuser = robot@example.org\npassword= s3 cr=t \n", 0600);
    const auto credentials = read_secrets(file);
    ASSERT_TRUE(credentials) << credentials.error().message;
    EXPECT_EQ(credentials->user, "robot@example.org");
    EXPECT_EQ(credentials->password, "s3 cr=t");
    EXPECT_TRUE(read_secrets(write(dir, "password = x\n", 0400)));
}

TEST(Secrets, AFileOthersCanReadIsRefusedWithTheFix) {
    TempDir dir;
    for (const mode_t mode : {0644, 0640, 0604, 0620, 0660}) {
        const auto file = write(dir, "password = x\n", mode);
        const auto credentials = read_secrets(file);
        ASSERT_FALSE(credentials) << std::oct << mode;
        EXPECT_NE(credentials.error().message.find(file.string()), std::string::npos);
        EXPECT_NE(credentials.error().message.find("group or others"), std::string::npos);
        EXPECT_EQ(credentials.error().hint, "chmod 600 " + file.string());
    }
}

TEST(Secrets, MissingFileDirectoryAndBadLinesAreErrors) {
    TempDir dir;
    EXPECT_FALSE(read_secrets(dir.path() / "none"));
    EXPECT_FALSE(read_secrets(dir.path()));
    const auto no_equals = read_secrets(write(dir, "user robot\n", 0600));
    ASSERT_FALSE(no_equals);
    EXPECT_NE(no_equals.error().message.find("smtp.secret:1"), std::string::npos);
    const auto unknown = read_secrets(write(dir, "user = a\ntoken = b\n", 0600));
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().message.find("smtp.secret:2: unknown key 'token'"),
              std::string::npos);
}

TEST(Secrets, ARoutingKeyIsFoundByNameAmongSeveral) {
    TempDir dir;
    const auto file =
        write(dir, "# PagerDuty services\nops = key-ops-123\nstorage = key-storage-456\n", 0600);
    EXPECT_EQ(read_routing_key(file, "ops").value_or(""), "key-ops-123");
    EXPECT_EQ(read_routing_key(file, "storage").value_or(""), "key-storage-456");

    const auto missing = read_routing_key(file, "network");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("no routing key named 'network'"), std::string::npos);
    EXPECT_EQ(missing.error().hint.find("key-"), std::string::npos);
    EXPECT_EQ(missing.error().message.find("key-"), std::string::npos);
    EXPECT_NE(missing.error().hint.find("network = ROUTING_KEY"), std::string::npos);

    EXPECT_FALSE(read_routing_key(write(dir, "ops =\n", 0600), "ops"));  // empty: no key
    EXPECT_FALSE(read_routing_key(write(dir, "= key\n", 0600), ""));     // no name
    const auto open = read_routing_key(write(dir, "ops = key-ops-123\n", 0644), "ops");
    ASSERT_FALSE(open);
    EXPECT_NE(open.error().hint.find("chmod 600"), std::string::npos);
    EXPECT_EQ(open.error().message.find("key-ops-123"), std::string::npos);
}

}  // namespace
}  // namespace notify::test
