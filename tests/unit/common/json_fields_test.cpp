// One fields list read and written (common/json_fields.h): a number's bounds are checked by the
// strict reader only, in the list's order, and its error names the field and the range.
#include "common/json_fields.h"

#include <cstdint>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

struct Limits {
    std::int64_t minutes = 0;
    std::optional<std::int64_t> ceiling;
    std::string note;
};

constexpr common::Bounds k_minutes{1, 90, "a limit this test takes", "minutes"};

template <typename Fields, common::Is<Limits> P>
void fields(Fields& f, P& limits) {
    f.within("minutes", limits.minutes, k_minutes);
    f.within("ceiling", limits.ceiling, k_minutes);
    f("note", limits.note);
}

common::Result<Limits> read_strictly(const std::string& text) {
    const auto data = nlohmann::json::parse(text);
    Limits limits;
    common::StrictFieldReader reader(data);
    fields(reader, limits);
    if (auto result = reader.result(); !result) {
        return tl::unexpected(result.error());
    }
    return limits;
}

TEST(FieldBounds, BothEndsAreInsideAndAnAbsentOptionalIsNotChecked) {
    auto lowest = read_strictly(R"({"minutes": 1, "ceiling": 90})");
    ASSERT_TRUE(lowest) << lowest.error().message;
    EXPECT_EQ(lowest->minutes, 1);
    EXPECT_EQ(lowest->ceiling, 90);
    auto without = read_strictly(R"({"minutes": 90})");
    ASSERT_TRUE(without) << without.error().message;
    EXPECT_FALSE(without->ceiling);
}

TEST(FieldBounds, ANumberOutsideIsAnErrorNamingTheFieldAndTheRange) {
    const auto below = read_strictly(R"({"minutes": 0})");
    ASSERT_FALSE(below);
    EXPECT_EQ(below.error().message,
              "\"minutes\" is 0, not a limit this test takes (1 to 90 minutes)");
    const auto above = read_strictly(R"({"minutes": 5, "ceiling": 91})");
    ASSERT_FALSE(above);
    EXPECT_NE(above.error().message.find("\"ceiling\" is 91"), std::string::npos);
}

TEST(FieldBounds, TheFirstBadFieldIsTheErrorAndTheFieldsAfterItAreNotRead) {
    const auto both = read_strictly(R"({"minutes": 500, "ceiling": "soon", "note": "x"})");
    ASSERT_FALSE(both);
    EXPECT_NE(both.error().message.find("\"minutes\" is 500"), std::string::npos);
}

TEST(FieldBounds, TheWriterWritesTheNumberAndTheLenientReaderTakesItUnchecked) {
    common::FieldWriter writer;
    const Limits limits{.minutes = 500, .ceiling = std::nullopt, .note = "n"};
    fields(writer, limits);
    const auto written = writer.take();
    EXPECT_EQ(written, nlohmann::json::parse(R"({"minutes": 500, "note": "n"})"));
    Limits read;
    common::FieldReader reader(written);
    fields(reader, read);
    EXPECT_EQ(read.minutes, 500);
}

}  // namespace

namespace {

enum class Colour { red, green };

std::string_view colour_text(Colour colour) {
    return colour == Colour::red ? "red" : "green";
}

std::optional<Colour> colour_of(std::string_view text) {
    if (text == "red") {
        return Colour::red;
    }
    if (text == "green") {
        return Colour::green;
    }
    return std::nullopt;
}

struct Paint {
    Colour colour = Colour::red;
    std::optional<Colour> trim;
};

constexpr common::TextNames<Colour> k_colours{&colour_text, &colour_of};

template <typename Fields, common::Is<Paint> P>
void fields(Fields& f, P& paint) {
    f.named("colour", paint.colour, k_colours);
    f.named("trim", paint.trim, k_colours);
}

TEST(FieldNames, AnEnumIsWrittenAsItsTextAndAnUnsetOptionalNotAtAll) {
    common::FieldWriter writer;
    const Paint paint{Colour::green, std::nullopt};
    fields(writer, paint);
    EXPECT_EQ(writer.take(), nlohmann::json::parse(R"({"colour":"green"})"));
}

TEST(FieldNames, ATextTheReaderDoesNotKnowLeavesTheFieldOrIsTheStrictReadersError) {
    const auto data = nlohmann::json::parse(R"({"colour":"mauve","trim":"green"})");
    Paint lenient;
    common::FieldReader reader(data);
    fields(reader, lenient);
    EXPECT_EQ(lenient.colour, Colour::red);
    EXPECT_EQ(lenient.trim, Colour::green);
    Paint strict;
    common::StrictFieldReader strict_reader(data);
    fields(strict_reader, strict);
    ASSERT_FALSE(strict_reader.result());
    EXPECT_EQ(strict_reader.result().error().message,
              "\"colour\" is \"mauve\", not a name this version knows");
}

}  // namespace
