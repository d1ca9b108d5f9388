// SPDX-License-Identifier: BSD-3-Clause
#include "replay/network/dimemas_config.hpp"

#include "replay/input/input_file.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace popsim::replay::network {

namespace {

struct Record {
    std::string name;
    std::vector<std::string> fields; // strings without their quotes
    std::uint64_t line = 0;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw TraceError(path, 0, "cannot open");
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

/// Where the brace opened at `open` closes (braces nest, as in "[N] {nodes}"; quoted text does not
/// count); npos without one.
std::size_t matching_brace(const std::string& text, std::size_t open) {
    if (open == std::string::npos) return open;
    int depth = 0;
    bool quoted = false;
    for (std::size_t k = open; k < text.size(); ++k) {
        if (text[k] == '"') quoted = !quoted;
        if (quoted) continue;
        if (text[k] == '{') ++depth;
        if (text[k] == '}' && --depth == 0) return k;
    }
    return std::string::npos;
}

/// The records of a .cfg: `"name" {field, field, ...};;`, skipping /* */ comments and # lines.
std::vector<Record> parse_records(const std::string& path, const std::string& text) {
    std::vector<Record> records;
    std::uint64_t line = 1;
    std::size_t i = 0;
    auto fail = [&](const std::string& cause) { throw TraceError(path, line, cause); };
    while (i < text.size()) {
        const char c = text[i];
        if (c == '\n') {
            ++line;
            ++i;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        if (text.compare(i, 2, "/*") == 0) {
            const auto end = text.find("*/", i + 2);
            if (end == std::string::npos) fail("unterminated /* comment");
            line += static_cast<std::uint64_t>(
                std::count(text.begin() + static_cast<std::ptrdiff_t>(i),
                           text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
            i = end + 2;
            continue;
        }
        if (c == '#') {
            i = text.find('\n', i);
            if (i == std::string::npos) break;
            continue;
        }
        if (c != '"') fail(fmt::format("expected a record (\"name\" {{...}};;), found '{}'", c));
        Record r;
        r.line = line;
        const auto name_end = text.find('"', i + 1);
        if (name_end == std::string::npos) fail("unterminated record name");
        r.name = text.substr(i + 1, name_end - i - 1);
        i = text.find('{', name_end);
        const auto close = matching_brace(text, i);
        if (i == std::string::npos || close == std::string::npos)
            fail(fmt::format("record \"{}\" is not {{...}};;", r.name));
        if (text.compare(close, 3, "};;") != 0)
            fail(fmt::format("record \"{}\" ends with '}}' without ';;'", r.name));
        std::string field;
        bool quoted = false;
        for (std::size_t k = i + 1; k < close; ++k) {
            const char f = text[k];
            if (f == '"') {
                quoted = !quoted;
                continue;
            }
            if (f == ',' && !quoted) {
                r.fields.push_back(field);
                field.clear();
                continue;
            }
            if (f == '\n') ++line;
            if (quoted || !std::isspace(static_cast<unsigned char>(f))) field += f;
        }
        r.fields.push_back(field);
        records.push_back(std::move(r));
        i = close + 3;
    }
    return records;
}

class FieldReader {
  public:
    FieldReader(const std::string& path, const Record& r, std::size_t expected)
        : path_(path), r_(r) {
        if (r.fields.size() != expected) {
            throw TraceError(path, r.line,
                             fmt::format("\"{}\" has {} fields, expected {}", r.name,
                                         r.fields.size(), expected));
        }
    }
    double number(std::size_t i, const char* what) const {
        double v = 0;
        const auto& f = r_.fields[i];
        const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
        if (ec != std::errc{} || end != f.data() + f.size()) {
            throw TraceError(
                path_, r_.line,
                fmt::format("\"{}\" field {} ({}): '{}' is not a number", r_.name, i + 1, what, f));
        }
        if (!std::isfinite(v) || v < 0) fail(i, what, "must be a finite number >= 0", f);
        return v;
    }
    /// A number > 0 (a speed ratio).
    double positive(std::size_t i, const char* what) const {
        const double v = number(i, what);
        if (v <= 0) fail(i, what, "must be greater than 0", r_.fields[i]);
        return v;
    }
    std::uint32_t count(std::size_t i, const char* what) const {
        const double v = number(i, what);
        if (v != std::floor(v) || v > 1e6)
            fail(i, what, "must be a whole number from 0 to 1000000", r_.fields[i]);
        return static_cast<std::uint32_t>(v);
    }
    /// A whole number up to 2^32 - 1 (an event type or value).
    std::uint32_t whole(std::size_t i, const char* what) const {
        const double v = number(i, what);
        if (v != std::floor(v) || v > 4294967295.0)
            fail(i, what, "must be a whole number from 0 to 4294967295", r_.fields[i]);
        return static_cast<std::uint32_t>(v);
    }
    Time seconds(std::size_t i, const char* what) const {
        const double s = number(i, what);
        if (s * 1e9 > static_cast<double>(k_max_time))
            fail(i, what, "is longer than 2^62 ns", r_.fields[i]);
        return static_cast<Time>(std::llround(s * 1e9));
    }
    const std::string& text(std::size_t i) const { return r_.fields[i]; }

    [[noreturn]] void fail(std::size_t i, const char* what, const char* rule,
                           const std::string& value) const {
        throw TraceError(
            path_, r_.line,
            fmt::format("\"{}\" field {} ({}) {}: '{}'", r_.name, i + 1, what, rule, value));
    }

  private:
    const std::string& path_;
    const Record& r_;
};

/// One machine only: several machines and a wide-area network between them are not modelled.
constexpr const char* k_one_machine =
    "popsim models one machine, not several joined by a wide-area network";

void require_first_machine(const FieldReader& f, std::size_t machine_field) {
    if (f.count(machine_field, "machine ID") != 0)
        f.fail(machine_field, "machine ID", fmt::format("must be 0: {}", k_one_machine).c_str(),
               f.text(machine_field));
}

void read_environment(const std::string& path, const Record& r, DimemasParameters& p) {
    const FieldReader f(
        path, r,
        7); // name, machine id, architecture, nodes, bandwidth MB/s, buses, collective model
    require_first_machine(f, 1);
    p.nodes = f.count(3, "number of nodes");
    if (p.nodes == 0) f.fail(3, "number of nodes", "must be at least 1", f.text(3));
    p.inter_bandwidth_mbps = f.number(4, "network bandwidth (MB/s)");
    p.buses = f.count(5, "number of buses");
    // The model of the operations the collectives file does not list, in both phases.
    using Stages = CollectiveModel::Stages;
    const Stages models[] = {Stages::none, Stages::constant, Stages::linear, Stages::logarithmic};
    const auto model = f.count(6, "collective communications model");
    if (model > 3)
        f.fail(6, "collective communications model",
               "must be 0 (none), 1 (constant), 2 (linear) or 3 (logarithmic)", f.text(6));
    p.default_collective.fan_in = p.default_collective.fan_out = models[model];
}

/// One node's model, as a "multi node information" or "node information" record describes it.
struct NodeModel {
    std::uint32_t cpus = 0;
    double cpu_ratio = 1;
    Time intra_latency = 0;
    double intra_bandwidth_mbps = 0;
    std::uint32_t intra_in_links = 0, intra_out_links = 0;
    Time inter_latency = 0;
    std::uint32_t in_links = 0, out_links = 0;
    bool operator==(const NodeModel&) const = default;
};

/// The model from its fields after the architecture name: CPUs, speed ratio, intra-node latency,
/// bandwidth, buses, input and output links, inter-node latency, input and output links (the
/// layout of "multi node information" and of Dimemas 5's "node information").
NodeModel read_node_model(const FieldReader& f, std::size_t cpus_field) {
    NodeModel n;
    const std::size_t i = cpus_field;
    n.cpus = f.count(i, "processors per node");
    if (n.cpus == 0) f.fail(i, "processors per node", "must be at least 1", f.text(i));
    n.cpu_ratio = f.positive(i + 1, "relative processor speed");
    n.intra_latency = f.seconds(i + 2, "intra-node latency (s)");
    n.intra_bandwidth_mbps = f.number(i + 3, "intra-node bandwidth (MB/s)");
    // Buses cannot hold back instantaneous transfers: only a limit on timed ones is refused.
    if (f.count(i + 4, "intra-node buses") != 0 && n.intra_bandwidth_mbps > 0)
        f.fail(i + 4, "intra-node buses",
               "must be 0 with an intra-node bandwidth: limits on messages within a node are not "
               "modelled",
               f.text(i + 4));
    n.intra_in_links = f.count(i + 5, "intra-node input links");
    n.intra_out_links = f.count(i + 6, "intra-node output links");
    n.inter_latency = f.seconds(i + 7, "inter-node latency (s)");
    n.in_links = f.count(i + 8, "inter-node input links");
    n.out_links = f.count(i + 9, "inter-node output links");
    return n;
}

/// Dimemas 4's "node information" (11 fields: machine, node, architecture, CPUs, input and output
/// links, local and remote startup, speed ratio, memory bandwidth, external startup), converted as
/// Dimemas' DimemasUpdateCFG does: the memory path gets one half-duplex link per task and one bus
/// per CPU.
NodeModel read_dimemas4_node(const FieldReader& f) {
    NodeModel n;
    n.cpus = f.count(3, "number of processors");
    if (n.cpus == 0) f.fail(3, "number of processors", "must be at least 1", f.text(3));
    n.in_links = f.count(4, "number of input links");
    n.out_links = f.count(5, "number of output links");
    n.intra_latency = f.seconds(6, "startup on local communication (s)");
    n.inter_latency = f.seconds(7, "startup on remote communication (s)");
    n.cpu_ratio = f.positive(8, "relative processor speed");
    n.intra_bandwidth_mbps = f.number(9, "memory bandwidth (MB/s)");
    if (n.intra_bandwidth_mbps > 0)
        f.fail(9, "memory bandwidth (MB/s)",
               "must be 0: Dimemas 4 nodes take one intra-node bus per CPU, and limits on messages "
               "within a node are not modelled",
               f.text(9));
    n.intra_in_links = 1;
    n.intra_out_links = 0;
    return n;
}

void apply_node_model(const NodeModel& n, DimemasParameters& p) {
    p.cpus_per_node = n.cpus;
    p.cpu_ratio = n.cpu_ratio;
    p.intra_latency = n.intra_latency;
    p.intra_bandwidth_mbps = n.intra_bandwidth_mbps;
    p.intra_in_links = n.intra_in_links;
    p.intra_out_links = n.intra_out_links;
    p.inter_latency = n.inter_latency;
    p.in_links = n.in_links;
    p.out_links = n.out_links;
}

void read_wide_area_network(const std::string& path, const Record& r) {
    const FieldReader f(path, r, 7);
    if (f.count(1, "number of machines") > 1)
        f.fail(1, "number of machines", fmt::format("must be 1: {}", k_one_machine).c_str(),
               f.text(1));
    if (f.count(2, "dedicated connections") != 0)
        f.fail(2, "dedicated connections",
               "must be 0: connections between machines are not modelled", f.text(2));
}

/// "configuration files": the collectives file is read; a scheduler other than Dimemas' default
/// FIFO, a file system model and random value distributions are not modelled.
void read_configuration_files(const std::string& path, const Record& r, DimemasParameters& p) {
    const FieldReader f(path, r, 4);
    const char* unmodelled[] = {"scheduler definition file", "file system definition file", nullptr,
                                "random values (sensitivity) file"};
    for (std::size_t i = 0; i < 4; ++i)
        if (unmodelled[i] != nullptr && !f.text(i).empty())
            f.fail(i, unmodelled[i], "must be \"\": popsim does not model it", f.text(i));
    if (f.text(2).empty()) return;
    p.collectives_file = (std::filesystem::path(path).parent_path() / f.text(2)).string();
    read_collectives_file(p.collectives_file, p);
}

/// "mapping information": the trace's name, its number of tasks and "[N] {node, node, ...}".
void read_explicit_mapping(const std::string& path, const Record& r, DimemasParameters& p) {
    if (r.fields.size() < 3)
        throw TraceError(path, r.line,
                         fmt::format("\"mapping information\" has {} fields, expected the trace, "
                                     "its number of tasks and [N] {{nodes}}",
                                     r.fields.size()));
    std::string list;
    for (std::size_t i = 2; i < r.fields.size(); ++i) list += (i > 2 ? "," : "") + r.fields[i];
    const auto open = list.find('{'), close = list.rfind('}');
    std::vector<std::uint32_t> nodes;
    bool valid = list.starts_with('[') && open != std::string::npos && close == list.size() - 1;
    if (valid) {
        std::istringstream items(list.substr(open + 1, close - open - 1));
        std::string item;
        while (valid && std::getline(items, item, ',')) {
            std::uint32_t node = 0;
            const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), node);
            valid = ec == std::errc{} && end == item.data() + item.size();
            nodes.push_back(node);
        }
    }
    const Record leading{r.name, {r.fields[0], r.fields[1]}, r.line}; // the fields before the list
    const auto task_count = FieldReader(path, leading, 2).count(1, "number of tasks");
    std::uint32_t declared = 0;
    if (valid) {
        const auto [end, ec] = std::from_chars(list.data() + 1, list.data() + open, declared);
        valid =
            ec == std::errc{} && *end == ']' && declared == nodes.size() && declared == task_count;
    }
    if (!valid)
        throw TraceError(path, r.line,
                         fmt::format("\"mapping information\" field 3 (nodes of the tasks): '{}' "
                                     "is not [{}] {{node, ...}}, one node per task",
                                     list, task_count));
    p.node_of_task = std::move(nodes);
}

/// "predefined mapping information": an optional trace name, then FILL_NODES, INTERLEAVED or
/// "N TASKS_PER_NODE".
void read_mapping(const std::string& path, const Record& r, DimemasParameters& p) {
    const FieldReader f(path, r, r.fields.size() == 2 ? 2 : 1);
    const std::string& map = f.text(r.fields.size() - 1);
    using TaskMap = DimemasParameters::TaskMap;
    if (map == "FILL_NODES") {
        p.task_map = TaskMap::fill_nodes;
        return;
    }
    if (map == "INTERLEAVED") {
        p.task_map = TaskMap::interleaved;
        return;
    }
    std::istringstream words(map);
    long long n = 0; // signed: "-1" must not wrap to 4294967295
    std::string kind;
    if (!(words >> n >> kind) || kind != "TASKS_PER_NODE" || n < 1 || n > 1'000'000) {
        throw TraceError(path, r.line,
                         fmt::format("\"predefined mapping information\": '{}' is not FILL_NODES, "
                                     "INTERLEAVED or 'N TASKS_PER_NODE' with N from 1 to 1000000",
                                     map));
    }
    p.task_map = TaskMap::tasks_per_node;
    p.tasks_per_node = static_cast<std::uint32_t>(n);
}

} // namespace

namespace {

/// A configuration names its collectives file: a directory or a FIFO there would be read as an
/// empty file or block, so anything but a regular file is refused.
void require_regular_file(const std::string& path) {
    if (!readable_input_file(path)) throw TraceError(path, 0, "cannot open: no such file");
}

} // namespace

void read_collectives_file(const std::string& path, DimemasParameters& p) {
    require_regular_file(path);
    std::ifstream in(path);
    if (!in) throw TraceError(path, 0, "cannot open");
    std::string raw;
    std::uint64_t line = 0;
    auto stages = [&](const std::string& w) {
        if (w == "0") return CollectiveModel::Stages::none;
        if (w == "CTE") return CollectiveModel::Stages::constant;
        if (w == "LIN") return CollectiveModel::Stages::linear;
        if (w == "LOG") return CollectiveModel::Stages::logarithmic;
        throw TraceError(path, line, fmt::format("unknown model '{}' (0, CTE, LIN or LOG)", w));
    };
    auto size = [&](const std::string& w) {
        if (w == "MIN") return CollectiveModel::Size::min;
        if (w == "MAX") return CollectiveModel::Size::max;
        if (w == "MEAN") return CollectiveModel::Size::mean;
        if (w == "2MAX") return CollectiveModel::Size::twice_max;
        if (w == "S+R" || w == "SIR") return CollectiveModel::Size::send_plus_recv;
        throw TraceError(path, line,
                         fmt::format("unknown size rule '{}' (MIN, MAX, MEAN, 2MAX or S+R)", w));
    };
    while (std::getline(in, raw)) {
        ++line;
        std::istringstream words(raw);
        std::string first, second;
        if (!(words >> first) || first[0] == '#') continue;
        std::string machine, id, in_model, in_size, out_model, out_size;
        if (first != "Machine" || !(words >> second) || second != "globalop:" ||
            !(words >> machine >> id >> in_model >> in_size >> out_model >> out_size)) {
            throw TraceError(path, line,
                             "expected 'Machine globalop: MACHINE ID FANIN_MODEL FANIN_SIZE "
                             "FANOUT_MODEL FANOUT_SIZE'");
        }
        std::uint32_t glop = 0;
        if (std::from_chars(id.data(), id.data() + id.size(), glop).ec != std::errc{})
            throw TraceError(path, line, fmt::format("'{}' is not an operation id", id));
        if (machine != "0")
            throw TraceError(path, line,
                             fmt::format("machine {}: popsim models one machine, 0 (\"environment "
                                         "information\" field 2)",
                                         machine));
        p.collectives[glop] =
            CollectiveModel{stages(in_model), size(in_size), stages(out_model), size(out_size)};
    }
}

namespace {

/// The records of an SDDFA configuration (Dimemas before 5.3.3) in the current syntax: its magic
/// word, the `;;` after its header comment, its record declarations (`#N: "name" {...};;`) and `//`
/// comments blanked out, newlines kept so that lines keep their numbers.
std::string sddfa_records(const std::string& path, const std::string& text) {
    std::string out = text;
    auto blank = [&](std::size_t from, std::size_t to) {
        for (std::size_t k = from; k < to; ++k)
            if (out[k] != '\n') out[k] = ' ';
    };
    // The end of what starts at `from` and ends with `closing` (or at the end of the text).
    auto through = [&](std::size_t from, std::string_view closing, const char* what) {
        const auto found = out.find(closing, from);
        if (found != std::string::npos) return found + closing.size();
        if (closing == "\n") return out.size();
        const auto line =
            1 + std::count(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(from), '\n');
        throw TraceError(path, static_cast<std::uint64_t>(line),
                         fmt::format("unterminated {}", what));
    };
    blank(0, 5); // SDDFA
    bool quoted = false;
    char last = '\0'; // the last character outside comments and blanks
    for (std::size_t i = 0; i < out.size(); ++i) {
        const char c = out[i];
        if (std::isspace(static_cast<unsigned char>(c))) continue;
        if (c == '"') quoted = !quoted;
        const auto rest = std::string_view(out).substr(i);
        std::size_t end = i;
        if (quoted) {
        } else if (rest.starts_with("/*")) { // kept for the record parser, which counts its lines
            end = through(i + 2, "*/", "/* comment");
        } else if (rest.starts_with("//")) {
            end = through(i, "\n", "");
            blank(i, end);
        } else if (c == '#') {
            end = through(i, "};;", "record declaration (#N: \"name\" {...};;)");
            blank(i, end);
        } else if (rest.starts_with(";;") && last != '}') { // the header's, an empty declaration
            end = i + 2;
            blank(i, end);
        }
        if (end == i) {
            last = c;
            continue;
        }
        i = end - 1;
    }
    return out;
}

/// Reads the records of one configuration into DimemasParameters, checking them against each
/// other: one machine, one application, nodes that agree with the machine.
class ConfigReader {
  public:
    ConfigReader(std::string path, bool sddfa) : path_(std::move(path)), sddfa_(sddfa) {}

    void read(const Record& r) {
        if (r.name == "environment information") {
            once(r, environment_line_);
            read_environment(path_, r, p_);
        } else if (r.name == "multi node information") {
            const FieldReader f(path_, r, 14);
            require_first_machine(f, 0);
            const auto count = f.count(1, "number of nodes");
            if (count == 0) f.fail(1, "number of nodes", "must be at least 1", f.text(1));
            add_nodes(r, read_node_model(f, 3), count);
        } else if (r.name == "node information") {
            add_nodes(r, read_single_node(r), 1);
        } else if (r.name == "predefined mapping information") {
            once(r, mapping_line_);
            read_mapping(path_, r, p_);
        } else if (r.name == "mapping information") {
            once(r, mapping_line_);
            read_explicit_mapping(path_, r, p_);
        } else if (r.name == "configuration files") {
            read_configuration_files(path_, r, p_);
        } else if (r.name == "wide area network information") {
            read_wide_area_network(path_, r);
        } else if (r.name == "modules information") {
            read_module(r);
        } else if (r.name != "file system parameters") { // no file I/O to replay
            throw TraceError(path_, r.line,
                             fmt::format("\"{}\" is not modelled (popsim reads \"environment "
                                         "information\", \"multi node information\" or identical "
                                         "\"node information\", one mapping, \"configuration "
                                         "files\", \"wide area network information\" for one "
                                         "machine, \"modules information\" and \"file system "
                                         "parameters\")",
                                         r.name));
        }
    }

    /// The parameters, once the nodes described agree with the machine's.
    DimemasParameters finish() {
        if (environment_line_ != 0 && node_records_ != 0 && described_nodes_ != p_.nodes)
            throw TraceError(path_, environment_line_,
                             fmt::format("\"environment information\" declares {} nodes, the node "
                                         "records describe {}",
                                         p_.nodes, described_nodes_));
        if (node_records_ != 0) {
            apply_node_model(nodes_, p_);
            p_.nodes = described_nodes_;
        }
        return p_;
    }

  private:
    /// A record Dimemas reads once for one machine and one application.
    void once(const Record& r, std::uint64_t& seen) const {
        if (seen != 0)
            throw TraceError(
                path_, r.line,
                fmt::format("a second \"{}\" (the first is line {}): popsim models one "
                            "machine running one application",
                            r.name, seen));
        seen = r.line;
    }

    /// Dimemas 5 (14 fields, with the node's number), the current 13 fields, or Dimemas 4's 11
    /// fields in an SDDFA file.
    NodeModel read_single_node(const Record& r) const {
        const std::size_t fields = r.fields.size();
        if (sddfa_ && fields == 11) {
            const FieldReader f(path_, r, 11);
            require_first_machine(f, 0);
            return read_dimemas4_node(f);
        }
        const FieldReader f(path_, r, fields == 14 ? 14 : 13);
        require_first_machine(f, 0);
        return read_node_model(f, fields == 14 ? 3 : 2);
    }

    /// "modules information" {type, value, execution ratio}: after the mapping, as Dimemas drops
    /// it otherwise; the same module again replaces its ratio, as in Dimemas.
    void read_module(const Record& r) {
        const FieldReader f(path_, r, 3);
        if (mapping_line_ == 0)
            throw TraceError(path_, r.line,
                             "\"modules information\" before the mapping record: Dimemas "
                             "drops it there (it belongs to the application the last mapping "
                             "defines); put it after the mapping");
        const auto type = f.whole(0, "event type");
        const auto value = f.whole(1, "value");
        if (value == 0) f.fail(1, "value", "must not be 0 (Dimemas ignores the record)", f.text(1));
        if (f.text(2).starts_with('-'))
            f.fail(2, "execution ratio",
                   "must be >= 0: a negative ratio (each burst of the module lasting that many "
                   "seconds) is not modelled",
                   f.text(2));
        const DimemasParameters::Module m{
            .type = type, .value = value, .ratio = f.number(2, "execution ratio")};
        for (auto& known : p_.modules)
            if (known.type == m.type && known.value == m.value) {
                known.ratio = m.ratio;
                return;
            }
        p_.modules.push_back(m);
    }

    /// Nodes are modelled alike: a node unlike the first is refused.
    void add_nodes(const Record& r, const NodeModel& model, std::uint32_t count) {
        if (node_records_ == 0)
            nodes_ = model;
        else if (!(model == nodes_))
            throw TraceError(path_, r.line,
                             fmt::format("\"{}\" describes nodes unlike those of line {}: popsim "
                                         "models nodes that are all alike",
                                         r.name, first_node_line_));
        if (node_records_++ == 0) first_node_line_ = r.line;
        described_nodes_ += count;
    }

    std::string path_;
    bool sddfa_;
    DimemasParameters p_;
    std::uint64_t environment_line_ = 0, mapping_line_ = 0, first_node_line_ = 0;
    NodeModel nodes_;
    std::uint32_t node_records_ = 0, described_nodes_ = 0;
};

} // namespace

DimemasParameters read_dimemas_config(const std::string& cfg_path) {
    require_regular_file(cfg_path);
    const std::string text = slurp(cfg_path);
    const bool sddfa = text.starts_with("SDDFA");
    if (!sddfa && !text.starts_with("#DIMEMAS_CONFIGURATION"))
        throw TraceError(cfg_path, 1,
                         "not a Dimemas configuration: no #DIMEMAS_CONFIGURATION (or SDDFA) line");
    ConfigReader reader(cfg_path, sddfa);
    for (const auto& r : parse_records(cfg_path, sddfa ? sddfa_records(cfg_path, text) : text))
        reader.read(r);
    return reader.finish();
}

std::vector<std::string> dimemas_config_files(const std::string& cfg_path) {
    std::vector<std::string> files{cfg_path};
    if (auto collectives = read_dimemas_config(cfg_path).collectives_file; !collectives.empty())
        files.push_back(std::move(collectives));
    return files;
}

} // namespace popsim::replay::network
