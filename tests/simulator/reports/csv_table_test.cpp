// SPDX-License-Identifier: BSD-3-Clause
// popsim's own CSV dialect (issue 36, item 8): RFC 4180's quoting, by hand.
#include "simulator/reports/csv_table.hpp"

#include <doctest/doctest.h>

using popsim::simulator::csv_line;

TEST_CASE("csv table: ',' between fields, quoted only when a field needs it (RFC 4180)") {
    CHECK(csv_line({"run", "time_ns"}) == "run,time_ns\n");
    // A call site with a comma, a name with quotes, an undefined number (empty), a line break.
    CHECK(csv_line({"solve(int, double)", "say \"hi\"", "", "a\nb"}) ==
          "\"solve(int, double)\",\"say \"\"hi\"\"\",,\"a\nb\"\n");
}
