// The line alignment behind `lanaikit compare`: an edit's unchanged lines keep their
// partners whatever was inserted, deleted or changed around them.
#include "sim/profile_compare.h"

#include <gtest/gtest.h>

namespace lanaikit::sim {
namespace {

TEST(ProfileCompare, MatchLinesFollowsInsertionsDeletionsAndChanges) {
  const std::vector<std::string> a = {"a", "b", "c", "d", "e"};
  EXPECT_EQ(match_lines(a, a), (std::vector<int>{0, 1, 2, 3, 4}));
  // Two lines inserted after "b": the rest move down by two.
  EXPECT_EQ(match_lines(a, {"a", "b", "x", "y", "c", "d", "e"}), (std::vector<int>{0, 1, 4, 5, 6}));
  // "c" deleted, "d" changed: neither has a partner.
  EXPECT_EQ(match_lines(a, {"a", "b", "D", "e"}), (std::vector<int>{0, 1, -1, -1, 3}));
  // Everything replaced; and empty files.
  EXPECT_EQ(match_lines({"p", "q"}, {"r"}), (std::vector<int>{-1, -1}));
  EXPECT_EQ(match_lines({}, {"r"}), std::vector<int>{});
  EXPECT_EQ(match_lines({"p"}, {}), (std::vector<int>{-1}));
  // Repeated lines pair in order, not all with the first.
  EXPECT_EQ(match_lines({"}", "x", "}"}, {"}", "y", "x", "}"}), (std::vector<int>{0, 2, 3}));
}

TEST(ProfileCompare, UnreadableFilesAlignByLineNumber) {
  const std::vector<LineCost> a = {{"/nonexistent/a.c", 3, "f", 10, 12}, {"/nonexistent/lib.h", 7, "g", 5, 5}};
  const std::vector<LineCost> b = {{"/nonexistent/b.c", 3, "f", 14, 16}, {"/nonexistent/lib.h", 7, "g", 5, 5}};
  const auto rows = align_lines(a, b, {{"/nonexistent/a.c", "/nonexistent/b.c"}});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].line_a, 3u);
  EXPECT_EQ(rows[0].line_b, 3u);
  EXPECT_EQ(rows[0].delta(), 4);
  EXPECT_EQ(rows[1].file_a, "/nonexistent/lib.h");
  EXPECT_EQ(rows[1].file_b, "/nonexistent/lib.h");
  EXPECT_EQ(rows[1].delta(), 0);
}

} // namespace
} // namespace lanaikit::sim
