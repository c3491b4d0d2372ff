// Reading the fields of JSON the program wrote earlier and may find damaged, or written by an
// older or newer version (journal payloads, the intent log's step parameters). nlohmann's own
// `get<T>()` throws on a field of another type, and converts a floating-point number to an
// integer type unchecked (undefined for 1e400); these readers do neither.
//
// read_field() is lenient, for what is only shown or counted: a field that is missing, null or
// of another type leaves the target as it was, so the reader keeps its default.
// read_field_strictly() is for what is acted on: a missing or null field keeps the default, but
// a field of another type is an Error naming it. Neither throws.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace common {
namespace detail {

// `value` converted to T, or nullopt when it is of another type. An integer type takes only an
// integer that it can hold: 4294967296 is not a std::uint32_t, nor -1 (C++ would cut or wrap it).
template <typename T>
std::optional<T> json_as(const nlohmann::json& value) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        if (value.is_number_unsigned()) {
            const auto number = value.template get<std::uint64_t>();
            return std::in_range<T>(number) ? std::optional<T>(static_cast<T>(number))
                                            : std::nullopt;
        }
        if (value.is_number_integer()) {
            const auto number = value.template get<std::int64_t>();
            return std::in_range<T>(number) ? std::optional<T>(static_cast<T>(number))
                                            : std::nullopt;
        }
        return std::nullopt;
    } else {
        try {
            return value.template get<T>();
        } catch (const nlohmann::json::exception&) {
            return std::nullopt;
        }
    }
}

// The field, or null when `data` is not an object or has no such field.
inline const nlohmann::json* json_field(const nlohmann::json& data, std::string_view key) {
    if (!data.is_object()) {
        return nullptr;
    }
    const auto it = data.find(key);
    return it == data.end() || it->is_null() ? nullptr : &*it;
}

template <typename T>
inline constexpr bool is_optional_v = false;
template <typename T>
inline constexpr bool is_optional_v<std::optional<T>> = true;

template <typename T>
struct OptionalValue {
    using type = T;
};
template <typename T>
struct OptionalValue<std::optional<T>> {
    using type = T;
};

}  // namespace detail

// Sets `out` from data[key] when the field is there and of out's type (for a std::optional,
// of its value's type); a list with one element of another type is of another type.
template <typename T>
void read_field(const nlohmann::json& data, std::string_view key, T& out) {
    if (const auto* field = detail::json_field(data, key)) {
        if (auto value = detail::json_as<typename detail::OptionalValue<T>::type>(*field)) {
            out = std::move(*value);
        }
    }
}

// As read_field(), but a field of another type is an Error naming it.
template <typename T>
[[nodiscard]] Result<void> read_field_strictly(const nlohmann::json& data, std::string_view key,
                                               T& out) {
    const auto* field = detail::json_field(data, key);
    if (field == nullptr) {
        return {};
    }
    auto value = detail::json_as<typename detail::OptionalValue<T>::type>(*field);
    if (!value) {
        const std::string what = field->is_number_integer()
                                     ? field->dump() + ", outside what its type can hold"
                                     : std::string("a ") + field->type_name();
        return fail("\"" + std::string(key) + "\" is " + what + ", not what this version writes");
    }
    out = std::move(*value);
    return {};
}

// Sets data[key] only when `value` is set: an absent optional field is not written.
template <typename T>
void put_if_set(nlohmann::json& data, const char* key, const std::optional<T>& value) {
    if (value) {
        data[key] = *value;
    }
}

// `value` as JSON, null for nullopt.
template <typename T>
[[nodiscard]] nlohmann::json json_or_null(const std::optional<T>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// One list of a struct's fields for both directions. A codec writes it once:
//
//   template <typename Fields, Is<Payload> P>
//   void fields(Fields& f, P& payload) { f("key", payload.member); ... }
//
// and FieldWriter (P const) or FieldReader (P not) walks it. A plain field is always written.
// An optional is written only when set, unless it is f.nullable (then as null). f.unless_empty
// writes a list or a text only when it is not empty. f.within adds the range a number must be
// in (Bounds), which StrictFieldReader checks and names the field in its error. The reader
// reads every form as read_field() does. Fields::reads tells a list whose shape depends on the
// value which way it is walked.
//
// f.object and f.objects walk a nested struct (or a list of them) with its own list, through a
// `walk(fields, value)` the codec passes in (it calls the nested struct's fields()): a codec's
// fields() in an anonymous namespace is not found from here by argument-dependent lookup. The
// reader leaves the target as it was when the field is not an object (a list holding anything
// but objects). Only FieldWriter and FieldReader know them: nothing acted on is nested yet.
template <typename P, typename T>
concept Is = std::same_as<std::remove_const_t<P>, T>;

// How a field whose value is one of an enum's kinds (or a small value of a few) is stored: as
// its text. `from_text` gives nullopt for a text this version does not know (a newer version's
// kind, or a damaged row). `Text` is std::string for a text made up of parts.
template <typename E, typename Text = std::string_view>
struct TextNames {
    Text (*to_text)(E) = nullptr;
    std::optional<E> (*from_text)(std::string_view) = nullptr;
};

// The range of a number field, both ends included, and what a number in it is ("a time limit
// Slurm can take", in "minutes"), for the error that names a number outside it.
struct Bounds {
    std::int64_t lowest = 0;
    std::int64_t highest = 0;
    const char* what = "";
    const char* unit = "";
};

class FieldWriter {
  public:
    static constexpr bool reads = false;

    template <typename T>
    void operator()(const char* key, const T& value) {
        m_data[key] = value;
    }
    template <typename T>
    void operator()(const char* key, const std::optional<T>& value) {
        put_if_set(m_data, key, value);
    }
    template <typename T>
    void nullable(const char* key, const std::optional<T>& value) {
        m_data[key] = json_or_null(value);
    }
    template <typename T>
    void unless_empty(const char* key, const T& value) {
        if (!value.empty()) {
            m_data[key] = value;
        }
    }
    template <typename T>
    void within(const char* key, const T& value, const Bounds& /*bounds*/) {
        (*this)(key, value);
    }
    template <typename E, typename Text>
    void named(const char* key, const E& value, const TextNames<E, Text>& names) {
        m_data[key] = std::string(names.to_text(value));
    }
    template <typename E, typename Text>
    void named(const char* key, const std::optional<E>& value, const TextNames<E, Text>& names) {
        if (value) {
            named(key, *value, names);
        }
    }
    template <typename E, typename Text>
    void named(const char* key, const std::vector<E>& values, const TextNames<E, Text>& names) {
        auto list = nlohmann::json::array();
        for (const auto& value : values) {
            list.push_back(std::string(names.to_text(value)));
        }
        m_data[key] = std::move(list);
    }
    template <typename S, typename Walk>
    void object(const char* key, const S& value, Walk walk) {
        m_data[key] = written(value, walk);
    }
    template <typename S, typename Walk>
    void object(const char* key, const std::optional<S>& value, Walk walk) {
        if (value) {
            object(key, *value, walk);
        }
    }
    template <typename S, typename Walk>
    void objects(const char* key, const std::vector<S>& values, Walk walk) {
        auto list = nlohmann::json::array();
        for (const auto& value : values) {
            list.push_back(written(value, walk));
        }
        m_data[key] = std::move(list);
    }
    [[nodiscard]] nlohmann::json take() { return std::move(m_data); }

  private:
    template <typename S, typename Walk>
    static nlohmann::json written(const S& value, Walk walk) {
        FieldWriter inner;
        walk(inner, value);
        return inner.take();
    }

    nlohmann::json m_data = nlohmann::json::object();
};

class FieldReader {
  public:
    static constexpr bool reads = true;

    explicit FieldReader(const nlohmann::json& data) : m_data(data) {}

    template <typename T>
    void operator()(const char* key, T& out) {
        read_field(m_data, key, out);
    }
    template <typename T>
    void nullable(const char* key, T& out) {
        read_field(m_data, key, out);
    }
    template <typename T>
    void unless_empty(const char* key, T& out) {
        read_field(m_data, key, out);
    }
    template <typename T>
    void within(const char* key, T& out, const Bounds& /*bounds*/) {
        read_field(m_data, key, out);
    }
    template <typename T, typename E, typename Text>
    void named(const char* key, T& out, const TextNames<E, Text>& names) {
        std::optional<std::string> text;
        read_field(m_data, key, text);
        if (text) {
            if (auto value = names.from_text(*text)) {
                out = *value;
            }
        }
    }
    // A text this version does not know is left out of the list.
    template <typename E, typename Text>
    void named(const char* key, std::vector<E>& out, const TextNames<E, Text>& names) {
        std::optional<std::vector<std::string>> texts;
        read_field(m_data, key, texts);
        if (!texts) {
            return;
        }
        out.clear();
        for (const auto& text : *texts) {
            if (auto value = names.from_text(text)) {
                out.push_back(*value);
            }
        }
    }
    template <typename S, typename Walk>
    void object(const char* key, S& out, Walk walk) {
        const auto* field = detail::json_field(m_data, key);
        if (field == nullptr || !field->is_object()) {
            return;
        }
        if constexpr (detail::is_optional_v<S>) {
            out = read(*field, typename S::value_type{}, walk);
        } else {
            out = read(*field, std::move(out), walk);
        }
    }
    template <typename S, typename Walk>
    void objects(const char* key, std::vector<S>& out, Walk walk) {
        const auto* field = detail::json_field(m_data, key);
        if (field == nullptr || !field->is_array() ||
            !std::ranges::all_of(*field, [](const nlohmann::json& e) { return e.is_object(); })) {
            return;
        }
        std::vector<S> values;
        values.reserve(field->size());
        for (const auto& element : *field) {
            values.push_back(read(element, S{}, walk));
        }
        out = std::move(values);
    }

  private:
    template <typename S, typename Walk>
    static S read(const nlohmann::json& data, S value, Walk walk) {
        FieldReader inner(data);
        walk(inner, value);
        return value;
    }

    const nlohmann::json& m_data;
};

// As FieldReader, with read_field_strictly(): what is acted on. The first field of another
// type is the error; the fields after it are not read.
class StrictFieldReader {
  public:
    static constexpr bool reads = true;

    explicit StrictFieldReader(const nlohmann::json& data) : m_data(data) {}

    template <typename T>
    void operator()(const char* key, T& out) {
        if (m_result) {
            m_result = read_field_strictly(m_data, key, out);
        }
    }
    template <typename T>
    void nullable(const char* key, T& out) {
        (*this)(key, out);
    }
    template <typename T>
    void unless_empty(const char* key, T& out) {
        (*this)(key, out);
    }
    // A number of the field's type but outside `bounds` is the error too.
    template <typename T>
    void within(const char* key, T& out, const Bounds& bounds) {
        (*this)(key, out);
        if (!m_result) {
            return;
        }
        const auto number = [&]() -> std::optional<std::int64_t> {
            if constexpr (detail::is_optional_v<T>) {
                return out ? std::optional<std::int64_t>(*out) : std::nullopt;
            } else {
                return out;
            }
        }();
        if (number && (*number < bounds.lowest || *number > bounds.highest)) {
            m_result = fail("\"" + std::string(key) + "\" is " + std::to_string(*number) +
                            ", not " + bounds.what + " (" + std::to_string(bounds.lowest) + " to " +
                            std::to_string(bounds.highest) + " " + bounds.unit + ")");
        }
    }
    // A text this version does not know is the error too.
    template <typename T, typename E, typename Text>
    void named(const char* key, T& out, const TextNames<E, Text>& names) {
        std::optional<std::string> text;
        (*this)(key, text);
        if (!m_result || !text) {
            return;
        }
        if (auto value = names.from_text(*text)) {
            out = *value;
        } else {
            m_result = fail("\"" + std::string(key) + "\" is \"" + *text +
                            "\", not a name this version knows");
        }
    }
    [[nodiscard]] Result<void> result() const { return m_result; }

  private:
    const nlohmann::json& m_data;
    Result<void> m_result;
};

}  // namespace common
