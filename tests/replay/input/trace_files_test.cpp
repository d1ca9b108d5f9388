// SPDX-License-Identifier: BSD-3-Clause
// The files each kind of trace consists of, as its tools lay them out: Paraver's .pcf and .row
// beside the .prv, bgzip's and gztool's indexes beside a .prv.gz, an OTF2 archive's definitions
// and folder beside its anchor.
#include "replay/input/trace_files.hpp"

#include <doctest/doctest.h>

using popsim::replay::trace_files;
using Files = std::vector<std::string>;

TEST_CASE("trace files: Paraver, gzipped Paraver, OTF2 and Dimemas") {
    CHECK(trace_files("run/a.prv").files == Files{"run/a.prv", "run/a.pcf", "run/a.row"});
    CHECK(trace_files("run/a.prv").folders.empty());
    CHECK(trace_files("a.prv.gz").files ==
          Files{"a.prv.gz", "a.pcf", "a.row", "a.prv.gz.gzi", "a.prv.gzi"});
    CHECK(trace_files("s/traces.otf2").files == Files{"s/traces.otf2", "s/traces.def"});
    CHECK(trace_files("s/traces.otf2").folders == Files{"s/traces"});
    CHECK(trace_files("traces.otf2").folders == Files{"traces"});
    CHECK(trace_files("a.dim").files == Files{"a.dim"});
}
