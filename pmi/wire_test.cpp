#include "pmi/wire.hpp"

#include <gtest/gtest.h>

namespace psched::pmi {
namespace {

TEST(PmiWire, ParsesCommandAndTuplesInOrder) {
  auto c = ParseLine("cmd=put kvsname=psched.1.2 key=a value=x=y");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->name, "put");
  ASSERT_EQ(c->args.size(), 3u);
  EXPECT_EQ(c->Get("kvsname"), "psched.1.2");
  EXPECT_EQ(c->Get("value"), "x=y");  // split at the first '=' only
  EXPECT_FALSE(c->Get("missing"));
}

TEST(PmiWire, ToleratesExtraBlanksAndEmptyValues) {
  auto c = ParseLine("  cmd=get   key=  \tkvsname=k \r");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->Get("key"), "");
  EXPECT_EQ(c->Get("kvsname"), "k");
}

TEST(PmiWire, WordsWithoutEqualsContinueTheValue) {
  auto c = ParseLine("cmd=abort exitcode=3 message=it went  wrong");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->Get("message"), "it went wrong");
}

TEST(PmiWire, RejectsWhatIsNotACommand) {
  EXPECT_FALSE(ParseLine(""));
  EXPECT_FALSE(ParseLine("   "));
  EXPECT_FALSE(ParseLine("hello"));
  EXPECT_FALSE(ParseLine("key=a cmd=put"));
  EXPECT_FALSE(ParseLine("cmd= key=a"));
  EXPECT_FALSE(ParseLine("cmd=put =a"));
  EXPECT_FALSE(ParseLine("cmd=put " + std::string(kMaxLine, 'x')));
}

TEST(PmiWire, FormatsOneLine) {
  EXPECT_EQ(FormatLine("get_result", {{"rc", "0"}, {"value", "v"}}),
            "cmd=get_result rc=0 value=v\n");
  EXPECT_EQ(WireText("no such key=x\n"), "no_such_key_x_");
}

TEST(PmiWire, SplitsLinesAcrossReads) {
  LineSplitter s;
  s.Append("cmd=init pmi_ver");
  EXPECT_FALSE(s.Next());
  s.Append("sion=1 pmi_subversion=1\ncmd=get_maxes\ncmd=ba");
  auto first = s.Next();
  ASSERT_TRUE(first && *first);
  EXPECT_EQ(**first, "cmd=init pmi_version=1 pmi_subversion=1");
  auto second = s.Next();
  ASSERT_TRUE(second && *second);
  EXPECT_EQ(**second, "cmd=get_maxes");
  EXPECT_FALSE(s.Next());
}

TEST(PmiWire, AnOverlongLineIsOneErrorAndTheNextLineStillParses) {
  LineSplitter s;
  s.Append(std::string(kMaxLine + 10, 'x'));
  auto bad = s.Next();
  ASSERT_TRUE(bad);
  EXPECT_FALSE(*bad);
  s.Append(std::string(5000, 'y'));
  EXPECT_FALSE(s.Next());  // still the same line: no second error
  s.Append("zzz\ncmd=get_appnum\n");
  auto good = s.Next();
  ASSERT_TRUE(good && *good);
  EXPECT_EQ(**good, "cmd=get_appnum");
}

TEST(PmiWire, FuzzEntryTakesArbitraryBytes) {
  const std::string inputs[] = {"",
                                "\n\n",
                                "cmd=\n",
                                "=\n=",
                                std::string(3000, '='),
                                "cmd=a b=c d e\ncmd=x\x01=\xff\n",
                                "mcmd=spawn\nnprocs=2\n",
                                "mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=1\nspawnssofar=1\n"
                                "argcnt=0\npreput_num=0\ninfo_num=0\nendcmd\ncmd=x\n",
                                "mcmd=spawn\nendcmd\nmcmd=spawn\nno pair\nendcmd\n"};
  for (const auto& in : inputs)
    EXPECT_EQ(FuzzWire(reinterpret_cast<const uint8_t*>(in.data()), in.size()), 0);
}

}  // namespace
}  // namespace psched::pmi
