// The page's script never turns text into markup: a job's name, log lines and paths are its
// owner's to choose (the browser test shows one named with markup; this holds on every build).
#include "web/dashboard_page.h"

#include <gtest/gtest.h>

#include <string>

namespace {

TEST(DashboardPage, TheScriptSetsTextNeverMarkup) {
    const auto script = web::dashboard_file("/dashboard.js");
    ASSERT_TRUE(script);
    const std::string text(script->body);
    EXPECT_NE(text.find("textContent"), std::string::npos);
    for (const char* writer : {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
                               "eval(", "new Function"}) {
        EXPECT_EQ(text.find(writer), std::string::npos) << writer;
    }
}

TEST(DashboardPage, OnlyItsThreeFilesAreServed) {
    EXPECT_TRUE(web::dashboard_file("/"));
    EXPECT_TRUE(web::dashboard_file("/dashboard.css"));
    EXPECT_FALSE(web::dashboard_file("/../etc/passwd"));
    EXPECT_FALSE(web::dashboard_file("/dashboard.js.map"));
}

}  // namespace
