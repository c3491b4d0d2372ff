// Test-only writers of checkpoint files: a minimal zip writer (stored entries, optionally with
// every Zip64 record: 64-bit sizes in the extra fields, the Zip64 end record and its locator,
// as torch.save writes them), a safetensors writer, a temp directory with mtime control, and
// what scan() found there, by name. CRCs are left 0: the validators under test do not read data.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "recovery/checkpoints/scan.h"
#include "tests/support/temp_dir.h"

namespace recovery::checkpoints::test {

namespace fs = std::filesystem;

inline void put(std::string& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) {
        out += static_cast<char>((value >> (8 * i)) & 0xFF);
    }
}

struct ZipEntry {
    std::string name;
    std::string data;
};

struct ZipOptions {
    bool zip64 = false;
    std::string comment;
};

inline std::string make_zip(const std::vector<ZipEntry>& entries, const ZipOptions& options = {}) {
    std::string out;
    std::string central;
    const std::uint64_t all_ones = 0xFFFFFFFF;
    for (const auto& entry : entries) {
        const std::uint64_t offset = out.size();
        put(out, 0x04034b50, 4);
        put(out, options.zip64 ? 45 : 20, 2);
        put(out, 0, 2);  // flags
        put(out, 0, 2);  // stored
        put(out, 0, 4);  // time, date
        put(out, 0, 4);  // crc
        put(out, entry.data.size(), 4);
        put(out, entry.data.size(), 4);
        put(out, entry.name.size(), 2);
        put(out, 0, 2);
        out += entry.name + entry.data;

        put(central, 0x02014b50, 4);
        put(central, options.zip64 ? 45 : 20, 2);
        put(central, options.zip64 ? 45 : 20, 2);
        put(central, 0, 2);
        put(central, 0, 2);
        put(central, 0, 4);
        put(central, 0, 4);
        put(central, options.zip64 ? all_ones : entry.data.size(), 4);
        put(central, options.zip64 ? all_ones : entry.data.size(), 4);
        put(central, entry.name.size(), 2);
        put(central, options.zip64 ? 28 : 0, 2);
        put(central, 0, 2);  // comment
        put(central, 0, 2);  // disk
        put(central, 0, 2);  // internal attributes
        put(central, 0, 4);  // external attributes
        put(central, options.zip64 ? all_ones : offset, 4);
        central += entry.name;
        if (options.zip64) {
            put(central, 0x0001, 2);
            put(central, 24, 2);
            put(central, entry.data.size(), 8);
            put(central, entry.data.size(), 8);
            put(central, offset, 8);
        }
    }
    const std::uint64_t central_offset = out.size();
    out += central;
    if (options.zip64) {
        const std::uint64_t record_offset = out.size();
        put(out, 0x06064b50, 4);
        put(out, 44, 8);
        put(out, 45, 2);
        put(out, 45, 2);
        put(out, 0, 4);
        put(out, 0, 4);
        put(out, entries.size(), 8);
        put(out, entries.size(), 8);
        put(out, central.size(), 8);
        put(out, central_offset, 8);
        put(out, 0x07064b50, 4);
        put(out, 0, 4);
        put(out, record_offset, 8);
        put(out, 1, 4);
    }
    put(out, 0x06054b50, 4);
    put(out, 0, 2);
    put(out, 0, 2);
    put(out, options.zip64 ? 0xFFFF : entries.size(), 2);
    put(out, options.zip64 ? 0xFFFF : entries.size(), 2);
    put(out, options.zip64 ? all_ones : central.size(), 4);
    put(out, options.zip64 ? all_ones : central_offset, 4);
    put(out, options.comment.size(), 2);
    out += options.comment;
    return out;
}

// A zip laid out like torch.save's: archive/data.pkl, archive/data/0, archive/version.
inline std::string torch_like_zip(std::size_t tensor_bytes = 64, bool zip64 = true) {
    return make_zip({{"archive/data.pkl", std::string("\x80\x02}q\x00.", 6)},
                     {"archive/data/0", std::string(tensor_bytes, '\x01')},
                     {"archive/version", "3\n"}},
                    ZipOptions{zip64, ""});
}

struct Tensor {
    std::string name;
    std::string dtype;
    std::vector<std::uint64_t> shape;
    std::uint64_t bytes;
};

inline std::string make_safetensors(const std::vector<Tensor>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    std::uint64_t offset = 0;
    for (const auto& t : tensors) {
        header[t.name] = {
            {"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes}}};
        offset += t.bytes;
    }
    header["__metadata__"] = {{"format", "pt"}};
    const auto text = header.dump();
    std::string out;
    put(out, text.size(), 8);
    return out + text + std::string(offset, '\x02');
}

// A fresh TempDir for each test, with helpers that set mtimes explicitly (no wall clock).
class TempTree : public ::testing::Test {
  protected:
    // Base instant of the tests; `at(s)` is s seconds after it.
    static common::TimePoint at(int seconds) {
        return common::TimePoint{std::chrono::seconds{1'800'000'000 + seconds}};
    }
    static void set_time(const fs::path& path, int seconds) {
        fs::last_write_time(path, std::chrono::file_clock::from_sys(at(seconds)));
    }
    // Writes `relative` with `content` and mtime at(seconds); parents created (mtime untouched).
    fs::path write(const std::string& relative, const std::string& content, int seconds = 0) {
        const auto path = m_dir / relative;
        fs::create_directories(path.parent_path());
        std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
        set_time(path, seconds);
        return path;
    }
    // Sets the mtime of a directory and everything in it.
    void age(const std::string& relative, int seconds) {
        const auto root = m_dir / relative;
        for (const auto& entry : fs::recursive_directory_iterator(root)) {
            set_time(entry.path(), seconds);
        }
        set_time(root, seconds);
    }
    test_support::TempDir m_temp{"ckpt-scan"};
    fs::path m_dir = m_temp.path();
};

// What scan() found in `dir`; an empty Scan, and a failed test, when it failed.
inline Scan scanned(const fs::path& dir, const ScanOptions& options = {}) {
    auto result = scan(dir, options);
    EXPECT_TRUE(result) << (result ? "" : result.error().message);
    return result ? *result : Scan{};
}

// The candidates' file names, in the scan's order.
inline std::vector<std::string> names(const Scan& s) {
    std::vector<std::string> out;
    for (const auto& c : s.candidates) {
        out.push_back(c.path.filename().string());
    }
    return out;
}

// The candidate of that file name; an empty one, and a failed test, when there is none.
inline const Candidate& named(const Scan& s, const std::string& name) {
    const auto it = std::find_if(s.candidates.begin(), s.candidates.end(),
                                 [&](const Candidate& c) { return c.path.filename() == name; });
    if (it == s.candidates.end()) {
        ADD_FAILURE() << "no candidate " << name;
        static const Candidate none{};
        return none;
    }
    return *it;
}

// The chosen candidate's file name, or "<none>".
inline std::string chosen_name(const Scan& s) {
    return s.chosen ? s.candidates.at(*s.chosen).path.filename().string() : "<none>";
}

}  // namespace recovery::checkpoints::test
