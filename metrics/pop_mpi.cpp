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
    if (s.ideal) {
        const double ideal_runtime = static_cast<double>(s.ideal->runtime);
        if (convention == SerTransConvention::modelfactors) {
            e.serialization = ratio(static_cast<double>(s.ideal->max_useful), ideal_runtime);
            e.transfer = ratio(e.communication, *e.serialization);
        } else {
            e.transfer = ratio(ideal_runtime, runtime);
            e.serialization = ratio(e.communication, *e.transfer);
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
    if (s.ideal) {
        const double ideal_runtime = static_cast<double>(s.ideal->runtime);
        e.transfer = ratio(ideal_runtime, runtime);
        e.serialization = 1.0 - ratio(ideal_runtime - max, runtime);
    }
    return e;
}

} // namespace popsim::metrics
