// validate_safetensors (validators.h). The format: an 8-byte little-endian header length N, N
// bytes of JSON {"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {}},
// then the tensors' bytes, offsets relative to the end of the header. The reference
// implementation requires the offsets to tile the data exactly (no gaps, no overlaps), so the
// largest end offset is the data size: a save cut short is shorter than its header promises.
// Reads 8 + N bytes, whatever the file's size, and parses the header as a stream of events
// (no JSON tree), so its cost stays N bytes plus one small record per tensor.
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

// The header read as SAX events: only each tensor's dtype, shape and data_offsets are kept, so
// a header of N bytes costs N bytes and its spans, not the many times N of a JSON tree (a 90 MB
// header would take gigabytes). The first problem found ends the parse with its reason.
class HeaderReader final : public nlohmann::json_sax<nlohmann::json> {
  public:
    using json = nlohmann::json;

    [[nodiscard]] std::vector<Span>& spans() { return m_spans; }
    [[nodiscard]] const std::string& failure() const { return m_failure; }

    bool start_object(std::size_t) override { return open_container(true); }
    bool start_array(std::size_t) override { return open_container(false); }
    bool end_object() override { return close_container(); }
    bool end_array() override { return close_container(); }
    bool key(std::string& key) override {
        if (m_depth == 1) {
            m_name = key;
            m_skipping = key == "__metadata__";
        } else if (m_depth == 2) {
            m_field = key;
        }
        return true;
    }
    bool number_unsigned(json::number_unsigned_t value) override {
        if (!in_ours()) {
            return value_elsewhere();
        }
        if (m_field == "shape") {
            m_tensor.overflow =
                m_tensor.overflow ||
                __builtin_mul_overflow(m_tensor.elements, value, &m_tensor.elements);
            return true;
        }
        if (m_tensor.offsets == 2) {
            return fail("tensor '" + m_name + "' has no valid data_offsets");
        }
        m_tensor.offset[m_tensor.offsets++] = value;
        return true;
    }
    bool number_integer(json::number_integer_t) override { return scalar(); }
    bool number_float(json::number_float_t, const json::string_t&) override { return scalar(); }
    bool boolean(bool) override { return scalar(); }
    bool null() override { return scalar(); }
    bool binary(json::binary_t&) override { return scalar(); }
    bool string(json::string_t& value) override {
        if (!m_skipping && m_depth == 2 && m_field == "dtype") {
            m_tensor.dtype = value;
            m_tensor.has_dtype = true;
            return true;
        }
        return scalar();
    }
    bool parse_error(std::size_t position, const std::string&,
                     const nlohmann::detail::exception&) override {
        return fail("header is not valid JSON (error at byte " + std::to_string(position) + ")");
    }

  private:
    struct Tensor {
        std::string dtype;
        bool has_dtype = false;
        bool has_shape = false;
        bool has_offsets = false;
        std::uint64_t elements = 1;
        bool overflow = false;
        std::uint64_t offset[2] = {0, 0};
        int offsets = 0;
    };

    bool fail(std::string why) {
        if (m_failure.empty()) {
            m_failure = std::move(why);
        }
        return false;
    }
    [[nodiscard]] bool ours(const std::string& field) const {
        return field == "shape" || field == "data_offsets";
    }
    // Directly inside a tensor's shape or data_offsets array.
    [[nodiscard]] bool in_ours() const { return !m_skipping && m_depth == 3 && ours(m_field); }
    bool bad_field() {
        return fail(m_field == "shape" ? "tensor '" + m_name + "' has a bad shape"
                                       : "tensor '" + m_name + "' has no valid data_offsets");
    }
    // depth 0: the header itself; 1: a tensor; 2: a field of a tensor; deeper: inside a field.
    bool value_elsewhere() {
        if (m_depth == 0) {
            return fail("header is not a JSON object");
        }
        if (m_skipping) {
            return true;
        }
        if (m_depth == 1) {
            return fail("tensor '" + m_name + "' is not an object");
        }
        return m_depth >= 3 && ours(m_field) ? bad_field() : true;
    }
    bool scalar() { return in_ours() ? bad_field() : value_elsewhere(); }

    bool open_container(bool object) {
        const auto depth = m_depth++;
        if (depth == 0) {
            return object ? true : fail("header is not a JSON object");
        }
        if (m_skipping) {
            return true;
        }
        if (depth == 1) {
            m_tensor = Tensor{};
            return object ? true : fail("tensor '" + m_name + "' is not an object");
        }
        if (depth == 2 && ours(m_field)) {
            (m_field == "shape" ? m_tensor.has_shape : m_tensor.has_offsets) = !object;
            return object ? bad_field() : true;
        }
        return depth >= 3 && ours(m_field) ? bad_field() : true;
    }
    bool close_container() {
        --m_depth;
        if (m_depth != 1) {
            return true;
        }
        if (m_skipping) {
            m_skipping = false;
            return true;
        }
        return finish_tensor();
    }

    bool finish_tensor() {
        const auto& t = m_tensor;
        if (!t.has_offsets || t.offsets != 2 || t.offset[0] > t.offset[1]) {
            return fail("tensor '" + m_name + "' has no valid data_offsets");
        }
        if (!t.has_dtype || !t.has_shape) {
            return fail("tensor '" + m_name + "' has no dtype or shape");
        }
        if (const auto size = element_size(t.dtype)) {
            std::uint64_t bytes = 0;
            if (t.overflow || __builtin_mul_overflow(t.elements, *size, &bytes)) {
                return fail("tensor '" + m_name +
                            "' has a shape whose size overflows 64 bits: corrupt");
            }
            if (bytes != t.offset[1] - t.offset[0]) {
                return fail("tensor '" + m_name + "' spans " +
                            std::to_string(t.offset[1] - t.offset[0]) +
                            " bytes but its shape and dtype need " + std::to_string(bytes));
            }
        }
        m_spans.push_back({t.offset[0], t.offset[1], m_name});
        return true;
    }

    int m_depth = 0;
    bool m_skipping = false;
    std::string m_name;
    std::string m_field;
    Tensor m_tensor;
    std::vector<Span> m_spans;
    std::string m_failure;
};

}  // namespace

Validation validate_safetensors(const std::filesystem::path& path, ReadBudget& budget) {
    auto file = ReadOnlyFile::open(path, budget);
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
    HeaderReader reader;
    if (!nlohmann::json::sax_parse(text, &reader)) {
        return fail(reader.failure().empty() ? "header is not a JSON object" : reader.failure());
    }
    text = std::string();
    auto& spans = reader.spans();
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
