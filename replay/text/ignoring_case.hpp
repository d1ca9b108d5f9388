// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Comparing what people type with names, ASCII case ignored: "MPI_allreduce" is MPI_Allreduce,
// "OpenMP" the model openmp.
#include <string_view>

namespace popsim::replay {

/// Whether `a` and `b` are the same letter, ASCII case ignored.
bool same_letter(char a, char b);
/// Whether `a` and `b` are the same text, ASCII case ignored.
bool equal_ignoring_case(std::string_view a, std::string_view b);

} // namespace popsim::replay
