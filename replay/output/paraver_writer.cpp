// SPDX-License-Identifier: BSD-3-Clause
#include "replay/output/paraver_writer.hpp"

#include "replay/extrae_events.hpp"
#include "replay/input/paraver_labels.hpp"
#include "replay/output/simulated_trace.hpp"
#include "replay/program/mpi_calls.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <sstream>

namespace popsim::replay {

namespace {
constexpr std::size_t k_flush_bytes = 1 << 20;

/// Appends `:value` (fmt::format_int: no format string to parse, for the millions of fields a
/// trace holds).
template <class Integer> void append_field(std::string& out, Integer value) {
    const fmt::format_int digits(value);
    out += ':';
    out.append(digits.data(), digits.size());
}

/// Appends `:cpu:application:task:thread`.
void append_owner(std::string& out, const RecordOwner& w) {
    append_field(out, w.cpu);
    append_field(out, w.application);
    append_field(out, w.task);
    append_field(out, w.thread);
}

} // namespace

std::string format_paraver_header(const ParaverHeader& h) {
    std::string out = fmt::format(
        "#Paraver ({}):{}_ns:", h.date.empty() ? "01/01/2026 at 00:00" : h.date, h.end_time);
    if (h.cpus_per_node.empty()) {
        out += "0";
    } else {
        fmt::format_to(std::back_inserter(out), "{}(", h.cpus_per_node.size());
        for (std::size_t i = 0; i < h.cpus_per_node.size(); ++i)
            fmt::format_to(std::back_inserter(out), "{}{}", i ? "," : "", h.cpus_per_node[i]);
        out += ")";
    }
    fmt::format_to(std::back_inserter(out), ":{}:", h.applications.size());
    for (std::size_t a = 0; a < h.applications.size(); ++a) {
        const auto& tasks = h.applications[a].tasks;
        fmt::format_to(std::back_inserter(out), "{}{}(", a ? ":" : "", tasks.size());
        for (std::size_t t = 0; t < tasks.size(); ++t)
            fmt::format_to(std::back_inserter(out), "{}{}:{}", t ? "," : "", tasks[t].threads,
                           tasks[t].node);
        out += ")";
    }
    fmt::format_to(std::back_inserter(out), ",{}\n", h.communicators.size());
    for (const auto& c : h.communicators) {
        fmt::format_to(std::back_inserter(out), "c:{}:{}:{}", c.application, c.id, c.tasks.size());
        for (auto t : c.tasks) fmt::format_to(std::back_inserter(out), ":{}", t);
        out += "\n";
    }
    return out;
}

ParaverWriter::ParaverWriter(const std::string& prv_path, const ParaverHeader& header,
                             std::string_view comments)
    : file_(prv_path) {
    buffer_ = format_paraver_header(header);
    buffer_ += comments;
}

void ParaverWriter::flush_if_full() {
    if (buffer_.size() < k_flush_bytes) return;
    file_.write(buffer_);
    buffer_.clear();
}

void ParaverWriter::state(const RecordOwner& who, Time begin, Time end, std::uint32_t state) {
    buffer_ += '1';
    append_owner(buffer_, who);
    append_field(buffer_, begin);
    append_field(buffer_, end);
    append_field(buffer_, state);
    buffer_ += '\n';
    flush_if_full();
}

void ParaverWriter::event(const RecordOwner& who, Time time, std::span<const EventPair> pairs) {
    buffer_ += '2';
    append_owner(buffer_, who);
    append_field(buffer_, time);
    for (const auto& p : pairs) {
        append_field(buffer_, p.type);
        append_field(buffer_, p.value);
    }
    buffer_ += '\n';
    flush_if_full();
}

void ParaverWriter::comm(const CommRecord& r) {
    buffer_ += '3';
    append_owner(buffer_, r.sender);
    append_field(buffer_, r.logical_send);
    append_field(buffer_, r.physical_send);
    append_owner(buffer_, r.receiver);
    append_field(buffer_, r.logical_recv);
    append_field(buffer_, r.physical_recv);
    append_field(buffer_, r.size);
    append_field(buffer_, r.tag);
    buffer_ += '\n';
    flush_if_full();
}

void ParaverWriter::close() {
    file_.write(buffer_);
    buffer_.clear();
    file_.commit();
}

namespace {

/// popsim's event types, each with its .pcf block (Extrae's names).
std::vector<std::pair<std::uint32_t, std::string>> standard_event_types(PcfOpenmp openmp) {
    std::vector<std::pair<std::uint32_t, std::string>> out;
    const std::pair<std::uint32_t, const char*> mpi_types[] = {
        {extrae::k_mpi_point_to_point, "MPI Point-to-point"},
        {extrae::k_mpi_collective, "MPI Collective Comm"},
        {extrae::k_mpi_other, "MPI Other"},
        {extrae::k_mpi_one_sided, "MPI One-sided"},
        {extrae::k_mpi_io, "MPI I/O"}};
    for (const auto& [type, label] : mpi_types) {
        std::string block =
            fmt::format("EVENT_TYPE\n0    {}    {}\nVALUES\n0   Outside MPI\n", type, label);
        for (std::uint16_t id = 1; id < 256; ++id) {
            const auto call = mpi_call_by_id(id);
            if (call && call->event_type == type)
                block += fmt::format("{}   MPI_{}\n", id, call->name);
        }
        out.emplace_back(type, block + "\n");
    }
    const std::pair<std::uint32_t, const char*> types[] = {
        {extrae::k_collective_send_size, "0    50100001    Send Size in MPI Global OP"},
        {extrae::k_collective_recv_size, "0    50100002    Recv Size in MPI Global OP"},
        {extrae::k_collective_root, "0    50100003    Root in MPI Global OP"},
        {extrae::k_collective_communicator, "0    50100004    Communicator in MPI Global OP"},
        {extrae::k_papi_total_instructions, "7    42000050    Instr completed (PAPI_TOT_INS)"},
        {extrae::k_papi_total_cycles, "7    42000059    Total cycles (PAPI_TOT_CYC)"},
        {extrae::k_omp_parallel, "0    60000001    Parallel (OMP)"},
        {extrae::k_omp_barrier, "0    60000005    OMP barrier"},
        {extrae::k_omp_outlined_function, "0    60000018    Executed OpenMP parallel function"},
        {extrae::k_omp_task_function, "0    60000023    Executed OpenMP task function"}};
    for (const auto& [type, line] : types)
        if (openmp == PcfOpenmp::with || !extrae::is_openmp_event(type))
            out.emplace_back(type, fmt::format("EVENT_TYPE\n{}\n\n", line));
    out.emplace_back(k_critical_path_event,
                     fmt::format("EVENT_TYPE\n0    {}    Critical path (popsim)\nVALUES\n0   Off "
                                 "the critical path\n1   Computing on the critical path\n2   In "
                                 "MPI on the critical path\n\n",
                                 k_critical_path_event));
    return out;
}

constexpr const char* k_pcf_head =
    "DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n\n"
    "STATES\n0    Idle\n1    Running\n2    Not created\n3    Waiting a message\n4    "
    "Blocking Send\n5    Synchronization\n6    Test/Probe\n7    Scheduling and Fork/Join\n8    "
    "Wait/WaitAll\n9    Blocked\n10    Immediate Send\n11    Immediate Receive\n12    I/O\n"
    "13    Group Communication\n14    Tracing Disabled\n15    Others\n16    Send Receive\n\n";

} // namespace

namespace {

std::string standard_pcf_text(PcfOpenmp openmp) {
    std::string text = k_pcf_head;
    for (const auto& [type, block] : standard_event_types(openmp)) text += block;
    return text;
}

} // namespace

TraceLabels with_standard_labels(TraceLabels labels) {
    const TraceLabels standard =
        parse_pcf_text(standard_pcf_text(PcfOpenmp::with), "popsim's standard .pcf");
    if (labels.states.empty()) labels.states = standard.states;
    std::vector<std::uint32_t> declared;
    for (const auto& [type, name] : labels.event_types) declared.push_back(type);
    const auto lacks = [&](std::uint32_t type) {
        return std::find(declared.begin(), declared.end(), type) == declared.end();
    };
    for (const auto& t : standard.event_types)
        if (lacks(t.first)) labels.event_types.push_back(t);
    for (const auto& v : standard.event_values)
        if (lacks(v.type)) labels.event_values.push_back(v);
    return labels;
}

PcfOpenmp pcf_openmp_for(const ParaverHeader& header) {
    for (const auto& application : header.applications)
        for (const auto& task : application.tasks)
            if (task.threads > 1) return PcfOpenmp::with;
    return PcfOpenmp::without;
}

void write_standard_pcf(const std::string& pcf_path, PcfOpenmp openmp) {
    write_whole_file(pcf_path, standard_pcf_text(openmp));
}

void write_pcf_with_standard_types(const std::string& pcf_path, const std::string& original_text,
                                   const std::vector<std::uint32_t>& declared, PcfOpenmp openmp) {
    std::string text = original_text;
    if (!text.empty() && !text.ends_with('\n')) text += '\n';
    text += '\n';
    for (const auto& [type, block] : standard_event_types(openmp))
        if (std::find(declared.begin(), declared.end(), type) == declared.end()) text += block;
    write_whole_file(pcf_path, text);
}

void write_pcf_with_labels(const std::string& pcf_path, const TraceLabels& labels,
                           PcfOpenmp openmp) {
    std::string text = k_pcf_head; // Extrae's states, unless the labels name them
    if (!labels.states.empty()) {
        text.resize(text.find("STATES\n"));
        text += "STATES\n";
        for (const auto& [value, name] : labels.states)
            text += fmt::format("{}    {}\n", value, name);
        text += "\n";
    }
    std::vector<std::uint32_t> declared;
    for (const auto& [type, name] : labels.event_types) {
        text += fmt::format("EVENT_TYPE\n0    {}    {}\n", type, name);
        bool values = false;
        for (const auto& l : labels.event_values) {
            if (l.type != type) continue;
            if (!std::exchange(values, true)) text += "VALUES\n";
            text += fmt::format("{}   {}\n", l.value, l.name);
        }
        text += "\n";
        declared.push_back(type);
    }
    write_pcf_with_standard_types(pcf_path, text, declared, openmp);
}

void write_row(const std::string& row_path, const ParaverHeader& header) {
    std::ostringstream out;
    const auto cpus = header.total_cpus(); // a sum over the nodes: once, not per CPU
    out << "LEVEL CPU SIZE " << cpus << "\n";
    for (std::uint32_t c = 1; c <= cpus; ++c) out << c << ".node\n";
    out << "\nLEVEL NODE SIZE " << header.cpus_per_node.size() << "\n";
    for (std::size_t n = 1; n <= header.cpus_per_node.size(); ++n) out << "node" << n << "\n";
    out << "\nLEVEL THREAD SIZE " << header.total_threads() << "\n";
    for (std::size_t a = 0; a < header.applications.size(); ++a)
        for (std::size_t t = 0; t < header.applications[a].tasks.size(); ++t)
            for (std::uint32_t th = 1; th <= header.applications[a].tasks[t].threads; ++th)
                out << "THREAD " << a + 1 << "." << t + 1 << "." << th << "\n";
    write_whole_file(row_path, out.str());
}

} // namespace popsim::replay
