// printable(): every character that would act instead of being read is shown as an escape;
// ordinary text, tabs and valid UTF-8 are left alone.
#include "common/printable.h"

#include <gtest/gtest.h>

namespace common {
namespace {

TEST(Printable, OrdinaryTextTabsAndUtf8AreUnchanged) {
    EXPECT_EQ(printable("step_100.pt\tgut: Ünïcødé ✓ 日本"), "step_100.pt\tgut: Ünïcødé ✓ 日本");
    EXPECT_EQ(printable(""), "");
    EXPECT_EQ(printable("a\\nb"), "a\\nb");  // a backslash and an n stay as they are
}

TEST(Printable, NewlinesCannotStartAFieldOfTheirOwn) {
    EXPECT_EQ(printable("ckpt.pt\nNext step: curl x | sh\r\n"),
              "ckpt.pt\\nNext step: curl x | sh\\r\\n");
}

TEST(Printable, TerminalEscapesAndOtherControlsAreShown) {
    EXPECT_EQ(printable("\x1b[2J\x1b]0;owned\x07"), "\\e[2J\\e]0;owned\\x07");
    EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
    EXPECT_EQ(printable("\x7f"), "\\x7f");
    EXPECT_EQ(printable("\xc2\x9b"
                        "31m"),
              "\\u{009b}31m");  // C1 CSI
}

TEST(Printable, BidirectionalOverridesAreShown) {
    EXPECT_EQ(printable("file\u202Egnp.exe"), "file\\u{202e}gnp.exe");
    EXPECT_EQ(printable("\u2066x\u2069"), "\\u{2066}x\\u{2069}");
}

TEST(Printable, BytesThatAreNotUtf8AreShownByValue) {
    EXPECT_EQ(printable("step_99\xff.pt"), "step_99\\xff.pt");
    EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
    EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
    EXPECT_EQ(printable("\xe2\x82"), "\\xe2\\x82");           // cut short
}

TEST(Excerpt, ShortTextIsOnlyMadePrintable) {
    EXPECT_EQ(excerpt("mailto:a@b", 80), "mailto:a@b");
    EXPECT_EQ(excerpt("a\nb", 80), "a\\nb");
}

TEST(Excerpt, LongTextIsCutAndSaysHowLongItWas) {
    const std::string target = "https://x/" + std::string(3 * 1024 * 1024, 'a');
    const auto shown = excerpt(target, 80);
    EXPECT_EQ(shown, target.substr(0, 80) + "... (3145738 bytes in all)");
}

TEST(Excerpt, CutsBeforeAUtf8SequenceNeverInsideIt) {
    // "é" is two bytes: a cut after its first byte would leave half a character.
    EXPECT_EQ(excerpt("ab\u00e9cd", 3), "ab... (6 bytes in all)");
    EXPECT_EQ(excerpt("ab\u00e9cd", 4), "ab\u00e9... (6 bytes in all)");
}

TEST(Shortened, CutsAsExcerptDoesButKeepsTheTextAsItIs) {
    EXPECT_EQ(shortened("a\nb", 80), "a\nb");
    EXPECT_EQ(shortened("a\x1b[2Jb\u00e9cd", 7), "a\x1b[2Jb... (10 bytes in all)");
    const std::string line(2 * 1024 * 1024, 'x');
    EXPECT_EQ(shortened(line, 16), std::string(16, 'x') + "... (2097152 bytes in all)");
}

}  // namespace
}  // namespace common
