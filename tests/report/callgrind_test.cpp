#include "report/callgrind_out.h"

#include "test_util.h"

#include <gtest/gtest.h>

#include <sstream>

namespace lanaikit::report {
namespace {

using testing::TempDir;

std::vector<CostLine> sample_costs(const std::string& src) {
  return {
      {src, "main", 3, 10, 12},
      {src, "main", 4, 5, 9},
      {src, "send_handler", 8, 1000, 1500},
      {src, "send_handler", 9, 200, 260},
      {"firmware/lib/memcpy.s", "memcpy", 12, 3000, 3300},
  };
}

std::vector<CallArc> sample_calls(const std::string& src) {
  return {
      {"main", src, 4, "send_handler", src, 2, 4500, 5060, 8},
      {"send_handler", src, 9, "memcpy", "firmware/lib/memcpy.s", 2, 3000, 3300, 10},
  };
}

TEST(Callgrind, WritesTheFormatWithCompressedNamesAndTotals) {
  std::ostringstream s;
  write_callgrind(s, "lanaikit echo\n--sizes 4", sample_costs("echo.c"), sample_calls("echo.c"));
  EXPECT_EQ(s.str(),
            "# callgrind format\n"
            "version: 1\n"
            "creator: lanaikit\n"
            "cmd: lanaikit echo --sizes 4\n"
            "positions: line\n"
            "event: Ir : Instructions executed\n"
            "event: Cycles : Chip cycles\n"
            "events: Ir Cycles\n"
            "summary: 4215 5081\n"
            "\n"
            "fl=(1) echo.c\n"
            "fn=(1) main\n"
            "3 10 12\n"
            "4 5 9\n"
            "cfn=(2) send_handler\n"
            "calls=2 8\n"
            "4 4500 5060\n"
            "\n"
            "fl=(1)\n"
            "fn=(2)\n"
            "8 1000 1500\n"
            "9 200 260\n"
            "cfi=(2) firmware/lib/memcpy.s\n"
            "cfn=(3) memcpy\n"
            "calls=2 10\n"
            "9 3000 3300\n"
            "\n"
            "fl=(2)\n"
            "fn=(3)\n"
            "12 3000 3300\n"
            "\n"
            "totals: 4215 5081\n");
}

TEST(Callgrind, UncompressedNamesAndErrors) {
  std::ostringstream s;
  CallgrindOptions o;
  o.compress_names = false;
  write_callgrind(s, "x", {{"a.c", "f", 1, 1, 1}, {"a.c", "f", 2, 1, 1}}, {}, o);
  EXPECT_NE(s.str().find("fl=a.c\nfn=f\n1 1 1\n2 1 1\n"), std::string::npos) << s.str();
  EXPECT_THROW(write_callgrind(s, "x", {{"a\n.c", "f", 1, 1, 1}}), std::invalid_argument);
}

// callgrind_annotate (from valgrind) must read the file and print the totals we wrote.
TEST(Callgrind, CallgrindAnnotateReadsIt) {
  if (!testing::have_program("callgrind_annotate")) GTEST_SKIP() << "callgrind_annotate not installed";
  TempDir dir;
  // A real source file, so --auto=yes can annotate its lines.
  const std::string src = (dir / "echo.c").string();
  testing::write_file(dir / "echo.c",
                      "// line 1\n#include <x.h>\nint main(void) {\n  return send_handler();\n}\n"
                      "// line 6\n\nint send_handler(void) {\n  memcpy(buf, msg, 64);\n  return 0;\n}\n");
  {
    std::ofstream out(dir / "callgrind.out.1");
    write_callgrind(out, "lanaikit echo", sample_costs(src), sample_calls(src));
  }
  std::string out;
  ASSERT_EQ(testing::run("cd " + dir.path().string() + " && callgrind_annotate --threshold=100 callgrind.out.1", &out), 0) << out;
  EXPECT_NE(out.find("Events recorded:  Ir Cycles"), std::string::npos) << out;
  EXPECT_NE(out.find("4,215"), std::string::npos) << out;
  EXPECT_NE(out.find("5,081"), std::string::npos) << out;
  // Per-function self totals ("file:function"); the source sits in the cwd, so its
  // directory is stripped.
  EXPECT_TRUE(testing::counts_before(out, "firmware/lib/memcpy.s:memcpy", "3,000", "3,300"))
      << out;
  EXPECT_TRUE(testing::counts_before(out, "echo.c:send_handler", "1,200", "1,760"))
      << out;
  EXPECT_TRUE(testing::counts_before(out, "echo.c:main", "15", "21")) << out;

  // Inclusive totals follow the call arcs.
  ASSERT_EQ(testing::run("cd " + dir.path().string() + " && callgrind_annotate --threshold=100 --inclusive=yes callgrind.out.1", &out), 0)
      << out;
  EXPECT_TRUE(testing::counts_before(out, "echo.c:main", "4,515", "5,081")) << out;

  // Per-line counts in the annotated source.
  ASSERT_EQ(testing::run("cd " + dir.path().string() + " && callgrind_annotate --auto=yes callgrind.out.1", &out), 0)
      << out;
  EXPECT_TRUE(testing::counts_before(out, "int send_handler(void) {", "1,000", "1,500"))
      << out;
  EXPECT_TRUE(testing::counts_before(out, "int main(void) {", "10", "12")) << out;
  EXPECT_TRUE(testing::counts_before(out, "memcpy(buf, msg, 64);", "200", "260"))
      << out;
}

} // namespace
} // namespace lanaikit::report
