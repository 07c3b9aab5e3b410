#include "pmi/wire2.hpp"

#include <gtest/gtest.h>

namespace psched::pmi {
namespace {

TEST(Pmi2Wire, ParsesPairsWithDoubledSemicolons) {
  auto c = ParseMessage2("cmd=kvs-put;key=a;value=x;;y=z;;;");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->name, "kvs-put");
  EXPECT_EQ(c->Get("key"), "a");
  EXPECT_EQ(c->Get("value"), "x;y=z;");  // split at the first '=', ";;" is one ';'
}

TEST(Pmi2Wire, TakesAnEmptyValueAndAMissingLastSemicolon) {
  auto c = ParseMessage2("cmd=kvs-get;jobid=;srcid=-1;key=k");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->Get("jobid"), "");
  EXPECT_EQ(c->Get("key"), "k");
}

TEST(Pmi2Wire, RejectsWhatIsNotACommand) {
  EXPECT_FALSE(ParseMessage2(""));
  EXPECT_FALSE(ParseMessage2("key=a;cmd=put;"));
  EXPECT_FALSE(ParseMessage2("cmd=;"));
  EXPECT_FALSE(ParseMessage2("cmd=put;novalue;"));
  EXPECT_FALSE(ParseMessage2("cmd=put;=a;"));
  EXPECT_FALSE(ParseMessage2("cmd=put;" + std::string(kPmi2KeyMax + 1, 'k') + "=a;"));
}

TEST(Pmi2Wire, FormatsTheLengthFieldAsTheClientReadsIt) {
  // libpmi2 reads 6 bytes, atoi()s them, then reads that many.
  EXPECT_EQ(FormatMessage2("kvs-put-response", {{"rc", "0"}}), "26    cmd=kvs-put-response;rc=0;");
  EXPECT_EQ(FormatMessage2("x", {{"v", "a;b"}}), "13    cmd=x;v=a;;b;");
}

TEST(Pmi2Wire, AnAppendedPairGrowsTheLengthField) {
  EXPECT_EQ(AppendPair2(FormatMessage2("kvs-put-response", {{"rc", "0"}}), "thrid", "0x7f;1"),
            "40    cmd=kvs-put-response;rc=0;thrid=0x7f;;1;");
  EXPECT_EQ(AppendPair2(FormatMessage2("x", {}), "k", "v"), "10    cmd=x;k=v;");
}

TEST(Pmi2Wire, SplitsAStreamIntoMessagesAcrossReads) {
  FrameSplitter f;
  const std::string two = FormatMessage2("job-getid", {}) + FormatMessage2("kvs-fence", {});
  f.Append(two.substr(0, 3));
  EXPECT_FALSE(f.Next());
  f.Append(two.substr(3, 10));
  EXPECT_FALSE(f.Next());
  f.Append(two.substr(13));
  auto first = f.Next();
  ASSERT_TRUE(first && *first);
  EXPECT_EQ(**first, "cmd=job-getid;");
  auto second = f.Next();
  ASSERT_TRUE(second && *second);
  EXPECT_EQ(**second, "cmd=kvs-fence;");
  EXPECT_FALSE(f.Next());
}

TEST(Pmi2Wire, ABadLengthFieldBreaksTheStreamOnce) {
  for (const char* bad : {"abcdefcmd=x;", "0     ", "99999999", "  -3  cmd"}) {
    FrameSplitter f;
    f.Append(bad);
    auto r = f.Next();
    ASSERT_TRUE(r) << bad;
    EXPECT_FALSE(*r) << bad;
    EXPECT_TRUE(f.broken());
    f.Append(FormatMessage2("job-getid", {}));
    EXPECT_FALSE(f.Next()) << "a broken stream yields nothing more";
  }
}

TEST(Pmi2Wire, FuzzEntryHoldsOnSamples) {
  for (const std::string& sample :
       {FormatMessage2("kvs-put", {{"key", "a;"}, {"value", ";;"}}), std::string("5     cmd=;"),
        std::string("3     a=b"), std::string("12    cmd=a;;b;x=y")}) {
    EXPECT_EQ(FuzzWire2(reinterpret_cast<const uint8_t*>(sample.data()), sample.size()), 0);
  }
}

}  // namespace
}  // namespace psched::pmi
