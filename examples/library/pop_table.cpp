// SPDX-License-Identifier: BSD-3-Clause
// Prints the POP metrics of a scaling series as a tab-separated table, with the runs' ideal-network
// runtimes: what a tool built on popsim's library looks like.
//   pop_table run_2.prv run_4.prv
#include <popsim/popsim.hpp>

#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

namespace {

void print_row(const popsim::Metric& metric) {
    std::cout << std::string(2 * static_cast<std::size_t>(metric.level), ' ') << metric.label;
    for (const auto& value : metric.values) {
        std::cout << '\t';
        if (!value)
            std::cout << '-';
        else if (metric.unit == "fraction")
            std::cout << std::fixed << std::setprecision(2) << 100 * *value << '%';
        else if (metric.unit == "count")
            std::cout << std::fixed << std::setprecision(0) << *value;
        else if (metric.unit == "ns")
            std::cout << std::fixed << std::setprecision(6) << *value / 1e9;
        else
            std::cout << std::fixed << std::setprecision(2) << *value;
    }
    std::cout << '\n';
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: pop_table TRACE...\n";
        return 1;
    }
    try {
        const popsim::Analysis analysis = popsim::analyze({argv + 1, argv + argc});
        const popsim::MetricTable& table = analysis.table;
        std::cout << table.description << "\n\n" << table.column_title;
        for (const auto& column : table.columns) std::cout << '\t' << column;
        std::cout << '\n';
        for (const auto& metric : table.metrics) print_row(metric);
        for (const auto& metric : table.raw) print_row(metric);
    } catch (const popsim::Error& e) {
        std::cerr << "pop_table: " << e.what() << '\n';
        return e.kind() == popsim::Error::Kind::bad_input ? 2 : 1;
    }
}
