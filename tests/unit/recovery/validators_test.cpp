// The single-file validators (recovery/checkpoints/validators.h) on real torch.save output
// (tests/data/checkpoints, written by make_fixtures.py) and on hand-made zips and safetensors:
// good files pass, every cut of a file fails, corrupt structures fail, and bytes_read stays
// small on large files.
#include "recovery/checkpoints/validators.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checkpoint_files.h"
#include "tests/support/text.h"

namespace recovery::checkpoints::test {
namespace {

using test_support::read_text;

const fs::path k_fixtures = SUPERVISOR_CHECKPOINT_FIXTURES;

class Validators : public TempTree {
  protected:
    ReadBudget m_budget;
};

TEST_F(Validators, RealTorchSaveZipIsValidAndReadOnlyItsStructure) {
    const auto v = validate_zip(k_fixtures / "torch_zip.pt", m_budget);
    EXPECT_TRUE(v.ok) << v.reason;
    EXPECT_NE(v.reason.find("Zip64"), std::string::npos) << v.reason;
    EXPECT_NE(v.reason.find("5 entries"), std::string::npos) << v.reason;
    EXPECT_NE(v.reason.find("data.pkl"), std::string::npos) << v.reason;
    EXPECT_GT(v.bytes_read, 0u);
}

TEST_F(Validators, EveryCutOfARealTorchSaveZipIsRejected) {
    const auto bytes = read_text(k_fixtures / "torch_zip.pt");
    ASSERT_GT(bytes.size(), 1000u);
    // Every 7th byte, and every byte of the last 120 (the end records and the last entries).
    std::vector<std::size_t> cuts;
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        if (cut % 7 == 0 || cut + 120 >= bytes.size()) {
            cuts.push_back(cut);
        }
    }
    for (const auto cut : cuts) {
        const auto path = write("cut.pt", bytes.substr(0, cut));
        const auto v = validate_zip(path, m_budget);
        EXPECT_FALSE(v.ok) << "cut at " << cut << ": " << v.reason;
        EXPECT_FALSE(validate_torch_file(path, m_budget).ok) << "cut at " << cut;
    }
}

TEST_F(Validators, LegacyTorchSaveIsOnlyCheckedForItsMagicAndSaysSo) {
    const auto v = validate_torch_file(k_fixtures / "torch_legacy.pt", m_budget);
    EXPECT_TRUE(v.ok) << v.reason;
    EXPECT_NE(v.reason.find("legacy"), std::string::npos) << v.reason;
    EXPECT_NE(v.reason.find("cannot be verified"), std::string::npos) << v.reason;
    EXPECT_FALSE(validate_zip(k_fixtures / "torch_legacy.pt", m_budget).ok);
    const auto not_torch = write(
        "pickle.pt", std::string("\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", 14));
    EXPECT_FALSE(validate_torch_file(not_torch, m_budget).ok);
}

TEST_F(Validators, EmptyAndTinyFilesAreRejected) {
    EXPECT_EQ(validate_zip(write("empty.pt", ""), m_budget).reason, "zip: empty file");
    EXPECT_FALSE(validate_zip(write("tiny.pt", "PK\x03\x04"), m_budget).ok);
    EXPECT_FALSE(validate_zip(m_dir / "missing.pt", m_budget).ok);
}

TEST_F(Validators, HandMadeClassicZipWithACommentIsValid) {
    const auto path =
        write("classic.pt", make_zip({{"a/data.pkl", "xyz"}, {"a/data/0", "12345678"}},
                                     ZipOptions{false, "a comment"}));
    const auto v = validate_zip(path, m_budget);
    EXPECT_TRUE(v.ok) << v.reason;
    EXPECT_EQ(v.reason.find("Zip64"), std::string::npos) << v.reason;
    EXPECT_NE(v.reason.find("2 entries"), std::string::npos) << v.reason;
}

TEST_F(Validators, HandMadeZip64IsParsedThroughItsLocatorAndExtraFields) {
    const auto v = validate_zip(write("z64.pt", torch_like_zip(100, true)), m_budget);
    EXPECT_TRUE(v.ok) << v.reason;
    EXPECT_NE(v.reason.find("Zip64"), std::string::npos) << v.reason;
    EXPECT_NE(v.reason.find("3 entries"), std::string::npos) << v.reason;
}

// Offsets of the records near the end of a make_zip(..., zip64) file.
constexpr std::size_t k_eocd = 22;
constexpr std::size_t k_locator = 20;

TEST_F(Validators, Zip64LocatorPointingElsewhereIsRejected) {
    auto bytes = torch_like_zip(100, true);
    const auto locator_at = bytes.size() - k_eocd - k_locator;
    bytes[locator_at + 8] = static_cast<char>(bytes[locator_at + 8] - 1);  // record offset - 1
    const auto v = validate_zip(write("z64.pt", bytes), m_budget);
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.reason.find("Zip64 end record"), std::string::npos) << v.reason;
}

TEST_F(Validators, Zip64ValuesWithoutALocatorAreRejected) {
    auto bytes = torch_like_zip(100, true);
    const auto locator_at = bytes.size() - k_eocd - k_locator;
    bytes[locator_at] = 'X';  // the locator's signature
    const auto v = validate_zip(write("z64.pt", bytes), m_budget);
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.reason.find("no Zip64 locator"), std::string::npos) << v.reason;
}

TEST_F(Validators, EntryWhoseDataRunsIntoTheCentralDirectoryIsRejected) {
    auto bytes = make_zip({{"a/data.pkl", "xyz"}, {"a/data/0", std::string(64, 'x')}});
    // Second central directory entry's compressed size (offset 20 in the entry) made larger.
    const auto central = bytes.find("PK\x01\x02");
    const auto second = bytes.find("PK\x01\x02", central + 4);
    bytes[second + 20] = static_cast<char>(200);
    const auto v = validate_zip(write("overlap.pt", bytes), m_budget);
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.reason.find("run into the central directory"), std::string::npos) << v.reason;
}

TEST_F(Validators, LocalHeaderThatIsNotThereIsRejected) {
    auto bytes = make_zip({{"a/data.pkl", "xyz"}, {"a/data/0", std::string(64, 'x')}});
    const auto second_local = bytes.find("PK\x03\x04", 4);
    bytes[second_local + 2] = 'Z';
    const auto v = validate_zip(write("nolocal.pt", bytes), m_budget);
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.reason.find("no local header"), std::string::npos) << v.reason;
}

TEST_F(Validators, CentralDirectoryPastItsEndRecordIsRejected) {
    auto bytes = make_zip({{"a/data.pkl", "xyz"}});
    const auto eocd = bytes.size() - k_eocd;
    bytes[eocd + 12] = static_cast<char>(bytes[eocd + 12] + 10);  // directory size + 10
    const auto v = validate_zip(write("long.pt", bytes), m_budget);
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.reason.find("runs past its end record"), std::string::npos) << v.reason;
}

// Byte offsets inside one central directory entry (APPNOTE 4.3.12).
constexpr std::size_t k_central_flags = 8;
constexpr std::size_t k_central_fixed = 46;

TEST_F(Validators, Zip64SizePlusDescriptorThatWrapsAroundIsRejected) {
    auto bytes = torch_like_zip(64, true);
    // The data entry gets a data descriptor and a Zip64 compressed size of 2^64 - 4: plus the
    // 12-byte descriptor it wraps to 8, which would fit before the central directory.
    const auto entry = bytes.find("PK\x01\x02", bytes.find("PK\x01\x02") + 4);
    bytes[entry + k_central_flags] = 0x08;
    const auto name_length = std::string("archive/data/0").size();
    const auto compressed_at = entry + k_central_fixed + name_length + 4 + 8;
    for (int i = 0; i < 8; ++i) {
        bytes[compressed_at + i] = static_cast<char>(0xFF);
    }
    bytes[compressed_at] = static_cast<char>(0xFC);
    const auto v = validate_zip(write("wrap.pt", bytes), m_budget);
    EXPECT_FALSE(v.ok) << v.reason;
    EXPECT_NE(v.reason.find("run into the central directory"), std::string::npos) << v.reason;
}

TEST_F(Validators, CentralDirectoryEntriesSharingOneLocalHeaderAreRejected) {
    // Two central directory entries, both for the one local header of a 1-entry archive.
    auto bytes = make_zip({{"archive/data.pkl", "xyz"}});
    const auto central = bytes.find("PK\x01\x02");
    const auto eocd = bytes.size() - k_eocd;
    const auto record = bytes.substr(central, eocd - central);
    bytes.insert(eocd, record);
    const auto new_eocd = eocd + record.size();
    bytes[new_eocd + 8] = 2;   // entries on this disk
    bytes[new_eocd + 10] = 2;  // entries in all
    bytes[new_eocd + 12] = static_cast<char>(2 * record.size());
    const auto v = validate_zip(write("shared.pt", bytes), m_budget);
    EXPECT_FALSE(v.ok) << v.reason;
    EXPECT_NE(v.reason.find("overlap"), std::string::npos) << v.reason;
}

TEST_F(Validators, SparseFileClaimingAHugeCentralDirectoryCostsOneWindow) {
    // 200 MiB of holes, then an end record whose central directory is all of them.
    const std::uint64_t hole = std::uint64_t{200} << 20;
    std::string eocd;
    put(eocd, 0x06054b50, 4);
    put(eocd, 0, 4);
    put(eocd, 1000, 2);
    put(eocd, 1000, 2);
    put(eocd, hole, 4);
    put(eocd, 0, 4);
    put(eocd, 0, 2);
    const auto path = m_dir / "sparse.pt";
    {
        std::ofstream out(path, std::ios::binary);
        out.seekp(static_cast<std::streamoff>(hole));
        out << eocd;
    }
    const auto v = validate_zip(path, m_budget);
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.reason.find("entry 0 is not where it should be"), std::string::npos) << v.reason;
    EXPECT_LE(v.bytes_read, (std::uint64_t{1} << 20) + 65'557u + 4);  // + the locator's signature
}

TEST_F(Validators, ReadBudgetIsSharedAndSaysWhenItRunsOut) {
    const auto path = write("ok.pt", torch_like_zip(64, true));
    ReadBudget small(ReadLimits{200, std::chrono::seconds(30)});
    const auto v = validate_zip(path, small);
    EXPECT_FALSE(v.ok);
    EXPECT_TRUE(small.exhausted());
    EXPECT_NE(small.exhausted_because().find("read budget of 0 MiB"), std::string::npos)
        << small.exhausted_because();
    EXPECT_LE(small.bytes_charged(), 200u);
    EXPECT_FALSE(small.charge(1));  // exhausted for good
}

TEST_F(Validators, DirectoryEntriesAreChargedToTheSameBudget) {
    ReadBudget budget(ReadLimits{1024, std::chrono::seconds(30), 3});
    EXPECT_TRUE(budget.charge_entry());
    EXPECT_TRUE(budget.charge_entry());
    EXPECT_TRUE(budget.charge_entry());
    EXPECT_FALSE(budget.charge_entry());
    EXPECT_NE(budget.exhausted_because().find("budget of 3 directory entries per scan"),
              std::string::npos)
        << budget.exhausted_because();
    EXPECT_FALSE(budget.charge(1)) << "one budget: entries spent stop reads too";
}

TEST_F(Validators, LargeZipReadsOnlyItsTailAndHeaders) {
    const std::size_t data = 4 << 20;
    const auto path = write("big.pt", torch_like_zip(data, true));
    const auto v = validate_zip(path, m_budget);
    ASSERT_TRUE(v.ok) << v.reason;
    // The 64 KiB + 22 tail, the central directory (inside the tail here), 3 local headers.
    EXPECT_LE(v.bytes_read, 65'557u + 3 * 200u);
    EXPECT_LT(v.bytes_read, fs::file_size(path) / 50);
}

TEST_F(Validators, SafetensorsGoodFileIsValid) {
    const auto path = write("model.safetensors", make_safetensors({{"w", "F32", {4, 3}, 48},
                                                                   {"b", "BF16", {4}, 8},
                                                                   {"mask", "BOOL", {2, 2}, 4}}));
    const auto v = validate_safetensors(path, m_budget);
    EXPECT_TRUE(v.ok) << v.reason;
    EXPECT_NE(v.reason.find("3 tensors"), std::string::npos) << v.reason;
    EXPECT_LT(v.bytes_read, fs::file_size(path));  // the data bytes are not read
}

TEST_F(Validators, EveryCutOfASafetensorsFileIsRejected) {
    const auto bytes = make_safetensors({{"w", "F32", {4, 3}, 48}, {"b", "F16", {4}, 8}});
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        const auto v =
            validate_safetensors(write("cut.safetensors", bytes.substr(0, cut)), m_budget);
        EXPECT_FALSE(v.ok) << "cut at " << cut;
    }
    EXPECT_TRUE(validate_safetensors(write("whole.safetensors", bytes), m_budget).ok);
}

TEST_F(Validators, SafetensorsWithExtraDataIsRejected) {
    const auto v = validate_safetensors(
        write("long.safetensors", make_safetensors({{"w", "F32", {2}, 8}}) + "extra"), m_budget);
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.reason.find("holds"), std::string::npos) << v.reason;
}

TEST_F(Validators, SafetensorsBadHeadersAreRejected) {
    std::string length;
    put(length, 1'000'000, 8);
    EXPECT_FALSE(
        validate_safetensors(write("a.safetensors", length + "{}"), m_budget).ok);  // too long
    std::string json = "{\"w\": [1, 2]}";
    std::string prefix;
    put(prefix, json.size(), 8);
    EXPECT_FALSE(
        validate_safetensors(write("b.safetensors", prefix + json), m_budget).ok);  // no offsets
    json = "not json at all";
    prefix.clear();
    put(prefix, json.size(), 8);
    EXPECT_FALSE(validate_safetensors(write("c.safetensors", prefix + json), m_budget).ok);
    // Shape and dtype need 12 * 4 bytes, offsets give 40.
    json = R"({"w": {"dtype": "F32", "shape": [4, 3], "data_offsets": [0, 40]}})";
    prefix.clear();
    put(prefix, json.size(), 8);
    const auto v = validate_safetensors(
        write("d.safetensors", prefix + json + std::string(40, 'x')), m_budget);
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.reason.find("shape and dtype need 48"), std::string::npos) << v.reason;
    // A gap between tensors.
    json = R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},)"
           R"( "b": {"dtype": "U8", "shape": [4], "data_offsets": [8, 12]}})";
    prefix.clear();
    put(prefix, json.size(), 8);
    const auto gap = validate_safetensors(
        write("e.safetensors", prefix + json + std::string(12, 'x')), m_budget);
    EXPECT_FALSE(gap.ok);
    EXPECT_NE(gap.reason.find("gap or overlap"), std::string::npos) << gap.reason;
}

TEST_F(Validators, SafetensorsShapeWhoseSizeOverflowsIsRejected) {
    // 2^32 * 2^32 elements wrap to 0, which would match empty data_offsets.
    const std::string json =
        R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 0]}})";
    std::string prefix;
    put(prefix, json.size(), 8);
    const auto v = validate_safetensors(write("wrap.safetensors", prefix + json), m_budget);
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.reason.find("overflows"), std::string::npos) << v.reason;
}

TEST_F(Validators, SafetensorsHeaderShapesThatAreNotTensorsAreRejected) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {R"([1, 2])", "not a JSON object"},
        {R"({"w": 5})", "is not an object"},
        {R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", "bad shape"},
        {R"({"w": {"dtype": "F32", "shape": [[1]], "data_offsets": [0, 4]}})", "bad shape"},
        {R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4, 8]}})", "data_offsets"},
        {R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": {"a": 1}}})", "data_offsets"},
        {R"({"w": {"shape": [1], "data_offsets": [0, 4]}})", "no dtype or shape"},
        {R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]})", "not valid JSON"},
    };
    for (const auto& [json, expected] : cases) {
        std::string prefix;
        put(prefix, json.size(), 8);
        const auto v =
            validate_safetensors(write("h.safetensors", prefix + json + "abcd"), m_budget);
        EXPECT_FALSE(v.ok) << json;
        EXPECT_NE(v.reason.find(expected), std::string::npos) << json << " -> " << v.reason;
    }
    // Unknown fields and metadata of any shape are not ours to judge.
    const std::string fine =
        R"({"__metadata__": {"a": [1, {"b": null}]}, "w": {"dtype": "U8", "shape": [4],)"
        R"( "data_offsets": [0, 4], "extra": {"x": [true, -1.5]}}})";
    std::string prefix;
    put(prefix, fine.size(), 8);
    const auto v =
        validate_safetensors(write("fine.safetensors", prefix + fine + "abcd"), m_budget);
    EXPECT_TRUE(v.ok) << v.reason;
}

}  // namespace
}  // namespace recovery::checkpoints::test
