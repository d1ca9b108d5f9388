// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/pop_mpi.hpp"

#include "metrics/ratio.hpp"

namespace popsim::metrics {

MpiEfficiencies mpi_multiplicative(const TraceSummary& s, SerTransConvention convention) {
    MpiEfficiencies e;
    const double runtime = static_cast<double>(s.runtime);
    const double avg = s.useful_average();
    const double max = static_cast<double>(s.useful_max());
    e.parallel = ratio(avg, runtime);
    e.load_balance = ratio(avg, max);
    e.communication = ratio(max, runtime);
    const double startup = static_cast<double>(s.startup.traced);
    e.startup = ratio(runtime - startup, runtime);
    if (s.ideal) {
        const double ideal_runtime = static_cast<double>(s.ideal->runtime);
        // Serialisation and Transfer split what is left of CommE once start-up is out of it.
        const double rest = ratio(e.communication, e.startup);
        if (convention == SerTransConvention::modelfactors) {
            // Dimemas' own ratio, as modelfactors takes it: so StartE x TE is modelfactors'
            // Transfer (its CSV's, simulator/reports/metric_table.cpp).
            e.serialization = ratio(static_cast<double>(s.ideal->max_useful), ideal_runtime);
            e.transfer = ratio(rest, *e.serialization);
        } else {
            // The ideal run without its own start-up: tasks waiting in MPI_Init's barrier for
            // tasks not created yet (none in Extrae's traces).
            e.transfer =
                ratio(ideal_runtime - static_cast<double>(s.startup.ideal), runtime - startup);
            e.serialization = ratio(rest, *e.transfer);
        }
    }
    if (s.has_counters && s.cycles > 0) {
        // A trace that counts cycles but not instructions has no IPC (not an IPC of 0).
        if (s.instructions > 0)
            e.ipc = static_cast<double>(s.instructions) / static_cast<double>(s.cycles);
        // cycles per ns = GHz
        e.frequency_ghz = ratio(static_cast<double>(s.cycles), s.useful_total());
    }
    return e;
}

MpiAdditiveEfficiencies mpi_additive(const TraceSummary& s) {
    MpiAdditiveEfficiencies e;
    const double runtime = static_cast<double>(s.runtime);
    const double avg = s.useful_average();
    const double max = static_cast<double>(s.useful_max());
    e.parallel = ratio(avg, runtime);
    e.load_balance = 1.0 - ratio(max - avg, runtime);
    e.communication = ratio(max, runtime);
    const double startup = static_cast<double>(s.startup.traced);
    e.startup = 1.0 - ratio(startup, runtime);
    if (s.ideal) {
        // The ideal run without its own start-up (MPI_Init's barrier waiting for late tasks).
        const double ideal_runtime =
            static_cast<double>(s.ideal->runtime) - static_cast<double>(s.startup.ideal);
        e.transfer = 1.0 - ratio(runtime - startup - ideal_runtime, runtime);
        e.serialization = 1.0 - ratio(ideal_runtime - max, runtime);
    }
    return e;
}

} // namespace popsim::metrics
