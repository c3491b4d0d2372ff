// One fields list read and written (common/json_fields.h): a number's bounds are checked by the
// strict reader only, in the list's order, and its error names the field and the range. A
// nested struct, or a list of them, is walked by its own list.
#include "common/json_fields.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

struct Leaf {
    std::string name;
    std::int64_t size = 0;
};

struct Tree {
    std::optional<Leaf> top;
    std::vector<Leaf> leaves;
};

template <typename Fields, common::Is<Leaf> P>
void fields(Fields& f, P& leaf) {
    f("name", leaf.name);
    f("size", leaf.size);
}

constexpr auto k_walk = [](auto& f, auto& value) { fields(f, value); };

template <typename Fields, common::Is<Tree> P>
void fields(Fields& f, P& tree) {
    f.object("top", tree.top, k_walk);
    f.objects("leaves", tree.leaves, k_walk);
}

Tree read(const std::string& text) {
    const auto data = nlohmann::json::parse(text);
    Tree tree;
    common::FieldReader reader(data);
    fields(reader, tree);
    return tree;
}

TEST(FieldObjects, ANestedStructAndAListOfThemAreWrittenAsObjectsAndReadBack) {
    const Tree tree{Leaf{"a", 1}, {Leaf{"b", 2}, Leaf{"c", 3}}};
    common::FieldWriter writer;
    fields(writer, tree);
    const auto data = writer.take();
    EXPECT_EQ(data, nlohmann::json::parse(R"({"top":{"name":"a","size":1},)"
                                          R"("leaves":[{"name":"b","size":2},)"
                                          R"({"name":"c","size":3}]})"));
    const auto back = read(data.dump());
    ASSERT_TRUE(back.top);
    EXPECT_EQ(back.top->name, "a");
    ASSERT_EQ(back.leaves.size(), 2U);
    EXPECT_EQ(back.leaves[1].size, 3);

    common::FieldWriter without_top;
    const Tree empty;
    fields(without_top, empty);
    EXPECT_EQ(without_top.take(), nlohmann::json::parse(R"({"leaves":[]})"))
        << "an unset optional is not written; an empty list is";
}

TEST(FieldObjects, WhatIsNoObjectKeepsTheDefault) {
    const auto tree = read(R"({"top":"a","leaves":[{"name":"b"}, 4]})");
    EXPECT_FALSE(tree.top);
    EXPECT_TRUE(tree.leaves.empty());
    const auto partial = read(R"({"top":{"size":"big"},"leaves":[{"name":"b"}]})");
    ASSERT_TRUE(partial.top);
    EXPECT_EQ(partial.top->size, 0) << "a field of another type inside keeps its default";
    ASSERT_EQ(partial.leaves.size(), 1U);
    EXPECT_EQ(partial.leaves[0].name, "b");
}

}  // namespace
