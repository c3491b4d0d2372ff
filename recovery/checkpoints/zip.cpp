// validate_zip and validate_torch_file (validators.h). The zip structure (APPNOTE.TXT): local
// header + data per entry, then the central directory (one record per entry), then for Zip64
// the Zip64 end record and its locator, then the end-of-central-directory record with an
// optional comment of up to 64 KiB. A save that stopped early has no end record; a corrupt one
// has offsets that point past what is there. Everything is checked against the file size
// before it is read. The central directory is read front to back through a window of 1 MiB,
// so a directory that is garbage from its first entry costs one window, not the size its end
// record claims; a well-formed one costs its size + 30 bytes and a name per entry, all charged
// to the scan's ReadBudget. Entries must not overlap (each local header + data ends before
// the next begins), which also catches a directory whose entries all point at one header.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recovery/checkpoints/read_only_file.h"
#include "recovery/checkpoints/validators.h"

namespace recovery::checkpoints {
namespace {

constexpr std::uint32_t k_eocd_signature = 0x06054b50;
constexpr std::uint32_t k_locator_signature = 0x07064b50;
constexpr std::uint32_t k_zip64_eocd_signature = 0x06064b50;
constexpr std::uint32_t k_central_signature = 0x02014b50;
constexpr std::uint32_t k_local_signature = 0x04034b50;
constexpr std::uint64_t k_eocd_size = 22;
constexpr std::uint64_t k_locator_size = 20;
constexpr std::uint64_t k_zip64_eocd_size = 56;
constexpr std::uint64_t k_central_size = 46;
constexpr std::uint64_t k_local_size = 30;
constexpr std::uint64_t k_max_comment = 0xFFFF;
// A central directory larger than this, or with more entries, is not a checkpoint: torch.save
// writes one entry per tensor storage (thousands for the largest models).
constexpr std::uint64_t k_max_central_directory = std::uint64_t{256} << 20;
constexpr std::uint64_t k_max_entries = 1'000'000;
// How much of the central directory one read brings in.
constexpr std::uint64_t k_directory_window = std::uint64_t{1} << 20;
constexpr std::uint16_t k_zip64_extra_id = 0x0001;
constexpr std::uint16_t k_data_descriptor_flag = 0x0008;
// The smallest data descriptor (CRC + two 32-bit sizes, no signature).
constexpr std::uint64_t k_min_data_descriptor = 12;

std::uint64_t le(std::string_view buffer, std::uint64_t at, int bytes) {
    std::uint64_t value = 0;
    for (int i = bytes - 1; i >= 0; --i) {
        value = (value << 8) | static_cast<unsigned char>(buffer[at + static_cast<unsigned>(i)]);
    }
    return value;
}

std::string with_commas(std::uint64_t n) {
    const auto digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) {
            out += ',';
        }
        out += digits[i];
    }
    return out;
}

// Where the central directory is, from the end records.
struct Directory {
    std::uint64_t entries = 0;
    std::uint64_t size = 0;
    std::uint64_t offset = 0;
    std::uint64_t end_records = 0;  // offset of the first end record (Zip64 or classic)
    bool zip64 = false;
};

struct Failure {
    std::string reason;
};

template <typename T>
using Step = tl::expected<T, Failure>;

tl::unexpected<Failure> bad(std::string reason) {
    return tl::unexpected<Failure>(Failure{std::move(reason)});
}

Step<Directory> read_zip64_records(ReadOnlyFile& file, std::uint64_t locator_at) {
    std::string locator;
    if (!file.read_at(locator_at, k_locator_size, locator)) {
        return bad("cannot read the Zip64 locator");
    }
    const auto record_at = le(locator, 8, 8);
    if (le(locator, 16, 4) > 1) {
        return bad("multi-disk (spanned) archive: not a checkpoint file");
    }
    if (record_at > locator_at || locator_at - record_at < k_zip64_eocd_size) {
        return bad("Zip64 end record offset " + std::to_string(record_at) +
                   " does not fit before its locator at " + std::to_string(locator_at));
    }
    std::string record;
    if (!file.read_at(record_at, k_zip64_eocd_size, record) ||
        le(record, 0, 4) != k_zip64_eocd_signature) {
        return bad("no Zip64 end record at offset " + std::to_string(record_at) +
                   " where the locator points: corrupt");
    }
    if (le(record, 16, 4) != 0 || le(record, 20, 4) != 0 ||
        le(record, 24, 8) != le(record, 32, 8)) {
        return bad("multi-disk (spanned) archive: not a checkpoint file");
    }
    return Directory{le(record, 32, 8), le(record, 40, 8), le(record, 48, 8), record_at, true};
}

Step<Directory> read_end_records(ReadOnlyFile& file) {
    const auto size = file.size();
    if (size < k_eocd_size) {
        return bad(size == 0 ? "empty file"
                             : "too small for a zip archive (" + std::to_string(size) + " bytes)");
    }
    const auto tail_size = std::min(size, k_max_comment + k_eocd_size);
    const auto tail_at = size - tail_size;
    std::string tail;
    if (!file.read_at(tail_at, tail_size, tail)) {
        return bad("cannot read the last " + std::to_string(tail_size) + " bytes");
    }
    // The record is followed by exactly its comment, so a signature whose comment length does
    // not reach the end of the file is data, not the record.
    std::optional<std::uint64_t> found;
    for (auto i = tail_size - k_eocd_size + 1; i-- > 0;) {
        if (le(tail, i, 4) == k_eocd_signature &&
            le(tail, i + 20, 2) == tail_size - i - k_eocd_size) {
            found = i;
            break;
        }
    }
    if (!found) {
        return bad("no end-of-central-directory record in the last " + with_commas(tail_size) +
                   " bytes: truncated (a save cut short or still being written) or not a zip");
    }
    const auto eocd_at = tail_at + *found;
    const auto disk = le(tail, *found + 4, 2);
    const auto directory_disk = le(tail, *found + 6, 2);
    const auto disk_entries = le(tail, *found + 8, 2);
    Directory directory{le(tail, *found + 10, 2), le(tail, *found + 12, 4),
                        le(tail, *found + 16, 4), eocd_at, false};
    std::string locator_signature;
    if (eocd_at >= k_locator_size && file.read_at(eocd_at - k_locator_size, 4, locator_signature) &&
        le(locator_signature, 0, 4) == k_locator_signature) {
        return read_zip64_records(file, eocd_at - k_locator_size);
    }
    if (directory.entries == 0xFFFF || directory.size == 0xFFFFFFFF ||
        directory.offset == 0xFFFFFFFF) {
        return bad("end record says Zip64 but there is no Zip64 locator before it: corrupt");
    }
    if (disk != 0 || directory_disk != 0 || disk_entries != directory.entries) {
        return bad("multi-disk (spanned) archive: not a checkpoint file");
    }
    return directory;
}

// The 64-bit values of a central directory entry that its 32-bit fields mark as 0xFFFFFFFF,
// from its Zip64 extra field (in the fixed order: uncompressed, compressed, local offset).
bool apply_zip64_extra(const std::string& extra, std::uint64_t& uncompressed,
                       std::uint64_t& compressed, std::uint64_t& local_offset) {
    for (std::uint64_t at = 0; at + 4 <= extra.size();) {
        const auto id = le(extra, at, 2);
        const auto length = le(extra, at + 2, 2);
        if (at + 4 + length > extra.size()) {
            return false;
        }
        if (id == k_zip64_extra_id) {
            std::uint64_t field = at + 4;
            for (auto* value : {&uncompressed, &compressed, &local_offset}) {
                if (*value != 0xFFFFFFFF) {
                    continue;
                }
                if (field + 8 > at + 4 + length) {
                    return false;
                }
                *value = le(extra, field, 8);
                field += 8;
            }
            return true;
        }
        at += 4 + length;
    }
    return uncompressed != 0xFFFFFFFF && compressed != 0xFFFFFFFF && local_offset != 0xFFFFFFFF;
}

struct Walk {
    std::uint64_t entries = 0;
    bool has_data_pkl = false;
};

// The central directory through a sliding window (see the top of this file).
class DirectoryReader {
  public:
    DirectoryReader(ReadOnlyFile& file, std::uint64_t offset, std::uint64_t size)
        : m_file(file), m_offset(offset), m_size(size) {}

    // Bytes [at, at + length) of the directory; nullopt past its end or when the read fails.
    // Valid until the next call.
    std::optional<std::string_view> view(std::uint64_t at, std::uint64_t length) {
        if (at > m_size || length > m_size - at) {
            return std::nullopt;
        }
        if (!m_loaded || at < m_window_at || at + length > m_window_at + m_window.size()) {
            const auto want = std::min(m_size - at, std::max(length, k_directory_window));
            m_loaded = m_file.read_at(m_offset + at, want, m_window);
            if (!m_loaded) {
                return std::nullopt;
            }
            m_window_at = at;
        }
        return std::string_view(m_window).substr(at - m_window_at, length);
    }

  private:
    ReadOnlyFile& m_file;
    std::uint64_t m_offset;
    std::uint64_t m_size;
    std::string m_window;
    std::uint64_t m_window_at = 0;
    bool m_loaded = false;
};

// Where an entry's local header and data lie in the file, to check that none overlap.
struct Extent {
    std::uint64_t begin;
    std::uint64_t end;
    std::uint64_t entry;
};

Step<Walk> check_no_overlap(std::vector<Extent>& extents, Walk walk) {
    std::sort(extents.begin(), extents.end(),
              [](const Extent& a, const Extent& b) { return a.begin < b.begin; });
    for (std::size_t i = 1; i < extents.size(); ++i) {
        if (extents[i].begin < extents[i - 1].end) {
            return bad("entries " + std::to_string(extents[i - 1].entry) + " and " +
                       std::to_string(extents[i].entry) + " overlap (local headers at " +
                       with_commas(extents[i - 1].begin) + " and " + with_commas(extents[i].begin) +
                       "): corrupt");
        }
    }
    return walk;
}

Step<Walk> walk_entries(ReadOnlyFile& file, const Directory& directory) {
    if (directory.size > k_max_central_directory || directory.entries > k_max_entries) {
        return bad("central directory of " + with_commas(directory.size) + " bytes and " +
                   with_commas(directory.entries) +
                   " entries is implausibly large for a checkpoint (at most " +
                   with_commas(k_max_central_directory) + " bytes and " +
                   with_commas(k_max_entries) + " entries are read)");
    }
    if (directory.entries > directory.size / k_central_size) {
        return bad(std::to_string(directory.entries) +
                   " entries cannot fit in a central directory of " +
                   std::to_string(directory.size) + " bytes: corrupt");
    }
    DirectoryReader central(file, directory.offset, directory.size);
    Walk walk;
    std::vector<Extent> extents;
    extents.reserve(directory.entries);
    std::uint64_t at = 0;
    std::string local;
    for (std::uint64_t k = 0; k < directory.entries; ++k) {
        const auto fixed = central.view(at, k_central_size);
        if (!fixed || le(*fixed, 0, 4) != k_central_signature) {
            return bad("central directory entry " + std::to_string(k) +
                       " is not where it should be: corrupt");
        }
        const auto flags = le(*fixed, 8, 2);
        std::uint64_t compressed = le(*fixed, 20, 4);
        std::uint64_t uncompressed = le(*fixed, 24, 4);
        const auto name_length = le(*fixed, 28, 2);
        const auto extra_length = le(*fixed, 30, 2);
        const auto comment_length = le(*fixed, 32, 2);
        std::uint64_t local_offset = le(*fixed, 42, 4);
        const auto variable =
            central.view(at + k_central_size, name_length + extra_length + comment_length);
        if (!variable) {
            return bad("central directory entry " + std::to_string(k) + " runs past the directory");
        }
        const auto name = std::string(variable->substr(0, name_length));
        if (!apply_zip64_extra(std::string(variable->substr(name_length, extra_length)),
                               uncompressed, compressed, local_offset)) {
            return bad("entry '" + name + "': Zip64 sizes missing from its extra field");
        }
        // Header and name must lie before the central directory; then the header tells the
        // length of its own extra field, which the data follows.
        if (local_offset > directory.offset ||
            directory.offset - local_offset < k_local_size + name_length ||
            !file.read_at(local_offset, k_local_size + name_length, local) ||
            le(local, 0, 4) != k_local_signature) {
            return bad("entry '" + name + "': no local header at offset " +
                       std::to_string(local_offset) + ": corrupt");
        }
        if (le(local, 26, 2) != name_length ||
            local.compare(k_local_size, name_length, name) != 0) {
            return bad("entry '" + name + "': its local header names another file: corrupt");
        }
        // No sum below can wrap: every term is checked against what is left before the
        // directory first (a Zip64 size near 2^64 must not pass by wrapping around).
        const auto data_at = local_offset + k_local_size + name_length + le(local, 28, 2);
        const auto descriptor = (flags & k_data_descriptor_flag) ? k_min_data_descriptor : 0;
        if (data_at > directory.offset || compressed > directory.offset - data_at ||
            descriptor > directory.offset - data_at - compressed) {
            return bad("entry '" + name + "': " + with_commas(compressed) +
                       " bytes of data at offset " + with_commas(data_at) +
                       " run into the central directory at " + with_commas(directory.offset) +
                       ": corrupt");
        }
        extents.push_back({local_offset, data_at + compressed + descriptor, k});
        if (name.size() >= 8 && name.compare(name.size() - 8, 8, "data.pkl") == 0) {
            walk.has_data_pkl = true;
        }
        ++walk.entries;
        at += k_central_size + variable->size();
    }
    if (at != directory.size) {
        return bad("central directory has " + std::to_string(directory.size - at) +
                   " bytes after its " + std::to_string(directory.entries) + " entries: corrupt");
    }
    return check_no_overlap(extents, walk);
}

// torch.save's legacy format starts with pickle protocol 2 (0x80 0x02) and a pickled long
// (LONG1, 10 bytes): the magic number 0x1950a86a20f9469cfc6c.
constexpr unsigned char k_legacy_magic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c,
                                            0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};

}  // namespace

Validation validate_zip(const std::filesystem::path& path, ReadBudget& budget) {
    auto file = ReadOnlyFile::open(path, budget);
    if (!file) {
        return {false, file.error().message, 0};
    }
    const auto checked = read_end_records(*file).and_then(
        [&](const Directory& directory) -> Step<std::pair<Directory, Walk>> {
            if (directory.offset > directory.end_records ||
                directory.end_records - directory.offset < directory.size) {
                return bad("central directory (offset " + with_commas(directory.offset) + ", " +
                           with_commas(directory.size) + " bytes) runs past its end record at " +
                           with_commas(directory.end_records) + ": truncated or corrupt");
            }
            return walk_entries(*file, directory).map([&](const Walk& walk) {
                return std::make_pair(directory, walk);
            });
        });
    if (!checked) {
        return {false, "zip: " + checked.error().reason, file->bytes_read()};
    }
    const auto& [directory, walk] = *checked;
    std::string reason = "zip" + std::string(directory.zip64 ? " (Zip64)" : "") + ": " +
                         with_commas(walk.entries) +
                         " entries, central directory and local headers match the size (" +
                         with_commas(file->size()) + " bytes)";
    if (walk.has_data_pkl) {
        reason += ", torch archive (data.pkl)";
    }
    return {true, reason + "; CRCs not checked", file->bytes_read()};
}

Validation validate_torch_file(const std::filesystem::path& path, ReadBudget& budget) {
    auto file = ReadOnlyFile::open(path, budget);
    if (!file) {
        return {false, file.error().message, 0};
    }
    std::string head;
    if (file->size() >= 1 && file->read_at(0, 1, head) &&
        static_cast<unsigned char>(head[0]) == k_legacy_magic[0]) {
        if (!file->read_at(0, sizeof k_legacy_magic, head) ||
            !std::equal(
                std::begin(k_legacy_magic), std::end(k_legacy_magic), head.begin(),
                [](unsigned char a, char b) { return a == static_cast<unsigned char>(b); })) {
            return {false, "starts like a pickle but without torch.save's magic number",
                    file->bytes_read()};
        }
        return {true,
                "legacy torch.save (pickle) format, " + with_commas(file->size()) +
                    " bytes: only its magic number was checked; this format has no index, so "
                    "completeness cannot be verified without reading it all",
                file->bytes_read()};
    }
    const auto opened_bytes = file->bytes_read();
    auto zip = validate_zip(path, budget);
    zip.bytes_read += opened_bytes;
    return zip;
}

}  // namespace recovery::checkpoints
