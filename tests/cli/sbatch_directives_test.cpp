// The parsing behind `supervisor sbatch`: #SUPERVISOR directives (leading block only, quoting,
// line numbers in errors, the options of `register` and no other) and the split of an sbatch
// command line into its options, the script and the script's arguments.
#include "sbatch_directives.h"

#include <gtest/gtest.h>

namespace {

using cli::parse_directives;
using cli::split_sbatch_arguments;

TEST(SbatchDirectives, ReadsTheRegisterOptionsOfTheLeadingBlock) {
    const auto parsed = parse_directives(
        "#!/bin/bash\n"
        "#SBATCH -J train\n"
        "\n"
        "# an ordinary comment\n"
        "#SUPERVISOR --checkpoint-dir /scratch/run1/ckpt\n"
        "#SUPERVISOR --allow requeue,reduce_batch_size --max-attempts 4\n"
        "   # indented comments do not end the block\n"
        "#SUPERVISOR --knob batch_size=64:env=BATCH_SIZE:min=8 --stall-timeout 20s\n"
        "#SUPERVISOR --notify mailto:a@example.org --notify https://hook.example.org/x\n"
        "echo start\n"
        "#SUPERVISOR --max-attempts 9\n",
        "train.sbatch");
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(parsed->lines, 4);
    const auto& o = parsed->options;
    EXPECT_EQ(o.checkpoint_dir, "/scratch/run1/ckpt");
    EXPECT_EQ(o.allow, (std::vector<std::string>{"requeue", "reduce_batch_size"}));
    EXPECT_EQ(o.max_attempts, 4U);  // the line after `echo` is not a directive
    EXPECT_EQ(o.knobs, (std::vector<std::string>{"batch_size=64:env=BATCH_SIZE:min=8"}));
    EXPECT_EQ(o.stall_timeout, "20s");
    EXPECT_EQ(o.notify,
              (std::vector<std::string>{"mailto:a@example.org", "https://hook.example.org/x"}));
}

TEST(SbatchDirectives, NoDirectivesGiveRegistersDefaults) {
    const auto parsed = parse_directives("#!/bin/sh\n#SBATCH -n 1\nsrun hostname\n", "a.sh");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->lines, 0);
    EXPECT_EQ(parsed->options.allow, (std::vector<std::string>{"requeue"}));
    EXPECT_EQ(parsed->options.max_attempts, 3U);
    EXPECT_EQ(parsed->options.stall_timeout, "30m");
}

TEST(SbatchDirectives, RepeatableOptionsAddUpAcrossLines) {
    const auto parsed = parse_directives(
        "#SUPERVISOR --allow requeue\n"
        "#SUPERVISOR --allow exclude_node\n"
        "#SUPERVISOR --knob batch_size=64:env=BS\n"
        "#SUPERVISOR --knob workers=8:env=NW\n",
        "a.sh");
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(parsed->options.allow, (std::vector<std::string>{"requeue", "exclude_node"}));
    EXPECT_EQ(parsed->options.knobs.size(), 2U);
}

TEST(SbatchDirectives, QuotingCommentsAndEscapes) {
    const auto words = cli::directive_words(
        R"( --progress-pattern '^step [0-9]+/' --checkpoint-dir "/scratch/my run" a\ b # note)");
    ASSERT_TRUE(words);
    EXPECT_EQ(*words, (std::vector<std::string>{"--progress-pattern", "^step [0-9]+/",
                                                "--checkpoint-dir", "/scratch/my run", "a b"}));
    const auto parsed = parse_directives(
        "#SUPERVISOR --progress-pattern '^step [0-9]+/'  # the step lines\n"
        "#SUPERVISOR --checkpoint-dir \"/scratch/my run\"\n",
        "a.sh");
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(parsed->options.progress_pattern, "^step [0-9]+/");
    EXPECT_EQ(parsed->options.checkpoint_dir, "/scratch/my run");
}

TEST(SbatchDirectives, ErrorsNameTheScriptTheLineAndTheFix) {
    struct Case {
        const char* text;
        const char* where;
        const char* what;
    };
    const Case cases[] = {
        {"#!/bin/bash\n#SBATCH -n 1\n#SUPERVISOR --alow requeue\n", "run.sh:3", "--alow"},
        {"#SUPERVISOR --allow requeue,fly\n", "run.sh:1", "fly"},
        {"#\n#SUPERVISOR --knob batch_size=sixty:env=BS\n", "run.sh:2", "batch_size"},
        {"#SUPERVISOR --stall-timeout 5x\n", "run.sh:1", "--stall-timeout"},
        {"#SUPERVISOR --progress-pattern 'step ('\n", "run.sh:1", "--progress-pattern"},
        {"#SUPERVISOR --checkpoint-dir \"/a\n", "run.sh:1", "unmatched"},
        {"#SUPERVISOR requeue\n", "run.sh:1", "requeue"},
        {"#SUPERVISOR --max-attempts 2\n#SUPERVISOR --max-attempts 3\n", "run.sh:2",
         "max-attempts"},
        {"#SUPERVISOR --max-attempts 0\n", "run.sh:1", "--max-attempts"},
        {"#SUPERVISOR --expect-rate fast\n", "run.sh:1", "--expect-rate 'fast'"},
        {"#SUPERVISOR --expect-rate 0\n", "run.sh:1", "less than one step per hour"},
        // --expect-rate reads the steps --progress-pattern finds: none on any line
        {"#SUPERVISOR --stall-timeout 1h\n#SUPERVISOR --expect-rate 6000\n", "run.sh:2",
         "--expect-rate needs --progress-pattern"},
        // one value per option, as on the command line: a list is a comma list or a repeat
        {"#SUPERVISOR --allow requeue exclude_node\n", "run.sh:1", "exclude_node"},
        {"#SUPERVISOR --notify mailto:a@example.org mailto:b@example.org\n", "run.sh:1",
         "mailto:b@example.org"},
    };
    for (const auto& c : cases) {
        const auto parsed = parse_directives(c.text, "run.sh");
        ASSERT_FALSE(parsed) << c.text;
        EXPECT_TRUE(parsed.error().message.starts_with(std::string(c.where) + ":"))
            << c.text << " -> " << parsed.error().message;
        EXPECT_NE(parsed.error().message.find(c.what), std::string::npos)
            << c.text << " -> " << parsed.error().message;
        EXPECT_NE(parsed.error().hint.find("Nothing was submitted"), std::string::npos)
            << parsed.error().hint;
    }
}

TEST(SbatchDirectives, AnExpectedRateGoesWithAPatternOnAnyLine) {
    const auto parsed = parse_directives(
        "#SUPERVISOR --expect-rate 100/min\n"
        "#SUPERVISOR --progress-pattern '^step [0-9]+'\n",
        "a.sh");
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(parsed->options.expect_rate, "100/min");
    const auto request = cli::registration_request(common::JobId{7, {}}, parsed->options);
    ASSERT_TRUE(request) << request.error().message;
    EXPECT_EQ(request->expect_steps_per_hour, 6000);
    EXPECT_NE(cli::register_command_line(common::JobId{7, {}}, parsed->options)
                  .find("--expect-rate 100/min"),
              std::string::npos);
}

TEST(SbatchDirectives, OnlyTheMagicWordAtTheStartOfALineCounts) {
    const auto parsed = parse_directives(
        " #SUPERVISOR --allow fly\n"
        "#SUPERVISORS --allow fly\n"
        "## SUPERVISOR --allow fly\n",
        "a.sh");
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(parsed->lines, 0);
}

TEST(SbatchDirectives, ReadsTheSbatchLinesForRequeueOpenModeAndParsable) {
    const auto parsed = parse_directives(
        "#SBATCH --no-requeue\n"
        "#SBATCH --open-mode=truncate -J x\n"
        "#SBATCH --parsable\n",
        "a.sh");
    ASSERT_TRUE(parsed);
    EXPECT_TRUE(parsed->sbatch.no_requeue);
    EXPECT_TRUE(parsed->sbatch.open_mode);
    EXPECT_TRUE(parsed->sbatch.parsable);
    EXPECT_FALSE(parsed->sbatch.requeue);
}

TEST(SbatchArguments, FindsTheScriptAfterOptionsWithAndWithoutValues) {
    const auto split =
        split_sbatch_arguments({"-J", "train", "-H", "--time=10", "--partition", "debug", "-n2",
                                "--parsable", "job.sh", "--lr", "0.1", "-J", "x"});
    ASSERT_TRUE(split.script);
    EXPECT_EQ(*split.script, "job.sh");
    EXPECT_EQ(split.options,
              (std::vector<std::string>{"-J", "train", "-H", "--time=10", "--partition", "debug",
                                        "-n2", "--parsable"}));
    EXPECT_EQ(split.script_args, (std::vector<std::string>{"--lr", "0.1", "-J", "x"}));
    EXPECT_TRUE(split.flags.parsable);
    EXPECT_FALSE(split.flags.no_requeue);
}

TEST(SbatchArguments, FlagsAndOptionalValues) {
    const auto split = split_sbatch_arguments(
        {"--no-requeue", "--open-mode", "append", "-Q", "--exclusive", "--nice", "run.sh"});
    ASSERT_TRUE(split.script);
    EXPECT_EQ(*split.script, "run.sh");
    EXPECT_TRUE(split.flags.no_requeue);
    EXPECT_TRUE(split.flags.open_mode);
    EXPECT_TRUE(split.flags.quiet);

    const auto wrap = split_sbatch_arguments({"--wrap", "sleep 10", "-o", "x.out"});
    EXPECT_FALSE(wrap.script);
    EXPECT_TRUE(wrap.flags.wrap);
    EXPECT_EQ(wrap.options.size(), 4U);

    const auto dashdash = split_sbatch_arguments({"-t", "5", "--", "-weird.sh", "a"});
    ASSERT_TRUE(dashdash.script);
    EXPECT_EQ(*dashdash.script, "-weird.sh");
    EXPECT_TRUE(split_sbatch_arguments({"--version"}).flags.info);
}

}  // namespace
