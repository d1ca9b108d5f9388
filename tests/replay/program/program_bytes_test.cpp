// SPDX-License-Identifier: BSD-3-Clause
#include "replay/program/program_bytes.hpp"

#include "replay/program/replay_program.hpp"
#include "same_program.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <stdexcept>

using namespace popsim;
using namespace popsim::replay;

namespace {

void check_round_trip(const ReplayProgram& program) {
    std::string bytes;
    program_to_bytes(program, bytes);
    test::check_same_program(program_from_bytes(bytes), program, false);
    // Cut anywhere, or with a byte more, the bytes are refused, never read past their end.
    for (const std::size_t cut :
         {std::size_t{0}, std::size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
        CAPTURE(cut);
        CHECK_THROWS_AS(program_from_bytes(std::string_view(bytes).substr(0, cut)),
                        std::invalid_argument);
    }
    CHECK_THROWS_AS(program_from_bytes(bytes + '\0'), std::invalid_argument);
}

} // namespace

TEST_CASE("program bytes: every array read back, on synthetic programs") {
    for (const auto& [name, description] : test::k_streaming_cases) {
        CAPTURE_BINDING(name);
        check_round_trip(build_replay_program(
            test::read_quiet(test::synth_trace("program_bytes", description)), {}));
    }
    // OpenMP worker threads and their barriers.
    check_round_trip(build_replay_program(
        test::read_quiet(test::synth_trace("program_bytes_omp", test::k_omp_example)), {}));
}

TEST_CASE("program bytes: every array read back, on a real trace") {
    const auto lammps = test::shared_data("lammps-melt/lammps_melt_4.prv.gz");
    check_round_trip(build_replay_program(test::read_quiet(lammps), {}));
}

TEST_CASE("program bytes: a count larger than the bytes left is refused before it is allocated") {
    std::string bytes(4, '\0'); // tasks
    const std::uint64_t huge = std::uint64_t{1} << 60;
    bytes.append(reinterpret_cast<const char*>(&huge), sizeof huge);
    CHECK_THROWS_AS(program_from_bytes(bytes), std::invalid_argument);
}
