// validate_safetensors (validators.h). The format: an 8-byte little-endian header length N, N
// bytes of JSON {"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {}},
// then the tensors' bytes, offsets relative to the end of the header. The reference
// implementation requires the offsets to tile the data exactly (no gaps, no overlaps), so the
// largest end offset is the data size: a save cut short is shorter than its header promises.
// Reads 8 + N bytes, whatever the file's size.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recovery/checkpoints/read_only_file.h"
#include "recovery/checkpoints/validators.h"

namespace recovery::checkpoints {
namespace {

// The format's own limit on the header (100 MB).
constexpr std::uint64_t k_max_header = 100'000'000;

// Bytes per element of safetensors' dtypes; unknown dtypes skip the shape check.
std::optional<std::uint64_t> element_size(const std::string& dtype) {
    static const std::map<std::string, std::uint64_t> sizes{
        {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1},
        {"U16", 2},  {"I16", 2}, {"F16", 2}, {"BF16", 2},    {"U32", 4},
        {"I32", 4},  {"F32", 4}, {"U64", 8}, {"I64", 8},     {"F64", 8}};
    const auto found = sizes.find(dtype);
    return found == sizes.end() ? std::nullopt : std::optional(found->second);
}

struct Span {
    std::uint64_t begin;
    std::uint64_t end;
    std::string name;
};

}  // namespace

Validation validate_safetensors(const std::filesystem::path& path) {
    auto file = ReadOnlyFile::open(path);
    if (!file) {
        return {false, file.error().message, 0};
    }
    const auto fail = [&](const std::string& why) {
        return Validation{false, "safetensors: " + why, file->bytes_read()};
    };
    std::string prefix;
    if (!file->read_at(0, 8, prefix)) {
        return fail(file->size() == 0 ? "empty file" : "shorter than its 8-byte header length");
    }
    std::uint64_t header_length = 0;
    for (int i = 7; i >= 0; --i) {
        header_length =
            (header_length << 8) | static_cast<unsigned char>(prefix[static_cast<unsigned>(i)]);
    }
    if (header_length > k_max_header || header_length > file->size() - 8) {
        return fail("header length " + std::to_string(header_length) +
                    " does not fit in a file of " + std::to_string(file->size()) +
                    " bytes: truncated or not safetensors");
    }
    std::string text;
    if (!file->read_at(8, header_length, text)) {
        return fail("cannot read the header");
    }
    const auto header = nlohmann::json::parse(text, nullptr, false);
    if (header.is_discarded() || !header.is_object()) {
        return fail("header is not a JSON object");
    }
    std::vector<Span> spans;
    for (const auto& [name, tensor] : header.items()) {
        if (name == "__metadata__") {
            continue;
        }
        const auto offsets =
            tensor.is_object() ? tensor.value("data_offsets", nlohmann::json()) : nlohmann::json();
        if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
            !offsets[1].is_number_unsigned() || offsets[0] > offsets[1]) {
            return fail("tensor '" + name + "' has no valid data_offsets");
        }
        Span span{offsets[0].get<std::uint64_t>(), offsets[1].get<std::uint64_t>(), name};
        const auto dtype = tensor.value("dtype", nlohmann::json());
        const auto shape = tensor.value("shape", nlohmann::json());
        if (!dtype.is_string() || !shape.is_array()) {
            return fail("tensor '" + name + "' has no dtype or shape");
        }
        if (const auto size = element_size(dtype.get<std::string>())) {
            std::uint64_t bytes = *size;
            for (const auto& dimension : shape) {
                if (!dimension.is_number_unsigned()) {
                    return fail("tensor '" + name + "' has a bad shape");
                }
                bytes *= dimension.get<std::uint64_t>();
            }
            if (bytes != span.end - span.begin) {
                return fail("tensor '" + name + "' spans " + std::to_string(span.end - span.begin) +
                            " bytes but its shape and dtype need " + std::to_string(bytes));
            }
        }
        spans.push_back(std::move(span));
    }
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    std::uint64_t expected = 0;
    for (const auto& span : spans) {
        if (span.begin != expected) {
            return fail("tensor '" + span.name + "' starts at " + std::to_string(span.begin) +
                        ", not at " + std::to_string(expected) + ": gap or overlap in the data");
        }
        expected = span.end;
    }
    const auto data_size = file->size() - 8 - header_length;
    if (expected != data_size) {
        return fail("header describes " + std::to_string(expected) +
                    " bytes of data but the file holds " + std::to_string(data_size) +
                    (expected > data_size ? ": truncated (cut short or still being written)" : ""));
    }
    return {true,
            "safetensors: " + std::to_string(spans.size()) + " tensors, header offsets match the " +
                std::to_string(data_size) + " data bytes",
            file->bytes_read()};
}

}  // namespace recovery::checkpoints
