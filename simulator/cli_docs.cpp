// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/cli_docs.hpp"

#include "simulator/commands/cli_app.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace popsim::simulator {

namespace {

std::string upper(std::string word) {
    for (auto& c : word) c = c == '-' ? '_' : static_cast<char>(std::toupper(c));
    return word;
}

/// CLI11's type name ("TEXT:FILE", "TEXT:{auto, mpi}", "UINT:UINT in [1 - 1024]", "TEXT") as a
/// value name and choices; a bare TEXT is named after the option ("--latency" takes LATENCY).
void read_type(const std::string& type, const std::string& own_name, CliOption& out) {
    if (const auto open = type.find('{'); open != std::string::npos) {
        std::string list = type.substr(open + 1, type.find('}', open) - open - 1);
        for (std::size_t start = 0; start <= list.size();) {
            const auto comma = std::min(list.find(',', start), list.size());
            auto choice = list.substr(start, comma - start);
            choice.erase(0, choice.find_first_not_of(' '));
            if (!choice.empty()) out.choices.push_back(choice);
            start = comma + 1;
        }
        out.value_name = upper(own_name);
        return;
    }
    // The first name that says more than CLI11's type: "RANKS:UINT in [1 - 64]" takes RANKS.
    std::string generic;
    for (std::size_t start = 0; start <= type.size();) {
        const auto colon = std::min(type.find(':', start), type.size());
        const auto word = type.substr(start, std::min(type.find(' ', start), colon) - start);
        start = colon + 1;
        if (word == "TEXT" || word == "UINT" || word == "INT" || word == "FLOAT" || word.empty()) {
            if (generic.empty()) generic = word;
            continue;
        }
        out.value_name = word;
        out.file = word == "FILE";
        return;
    }
    out.value_name = generic == "UINT" || generic == "INT" ? "N"
                     : generic == "FLOAT"                  ? "NUMBER"
                                                           : upper(own_name);
}

CliOption option_model(const CLI::Option& o) {
    CliOption out;
    out.positional = !o.nonpositional();
    for (const auto& s : o.get_snames()) out.names.push_back("-" + s);
    for (const auto& l : o.get_lnames()) out.names.push_back("--" + l);
    if (out.positional) out.names.push_back(o.get_name());
    out.takes_value = o.get_expected_max() > 0; // a flag expects none
    if (out.takes_value) {
        const auto own = out.positional ? o.get_name() : o.get_lnames().front();
        read_type(o.get_type_name(), own, out);
        out.file = out.file || out.positional; // traces, descriptions, reports
        out.default_value = o.get_default_str();
        if (out.default_value.starts_with('[') && out.default_value.ends_with(']')) { // a list
            std::string items;
            for (char c : out.default_value.substr(1, out.default_value.size() - 2))
                items += c == ',' ? std::string(", ") : std::string(1, c);
            out.default_value = items;
        }
    }
    out.description = o.get_description();
    for (const auto* x : o.get_excludes()) out.excludes.push_back(x->get_name());
    std::sort(out.excludes.begin(), out.excludes.end());
    return out;
}

CliCommand command_model(const CLI::App& app, std::string name) {
    CliCommand out{.name = std::move(name), .description = app.get_description(), .options = {}};
    for (const auto* o : app.get_options()) out.options.push_back(option_model(*o));
    return out;
}

/// Text for roff: '-' as \-, '\' as \e, a leading '.' or "'" kept literal.
std::string roff(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
    }
    if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
    return out;
}

/// `text` ended by a full stop.
std::string sentence(std::string text) {
    if (!text.empty() && text.back() != '.') text += '.';
    return text;
}

/// One option as a tagged paragraph: its names and value, then what it does, its choices, its
/// default and what it excludes, in words.
std::string option_entry(const CliOption& o) {
    std::vector<std::string> names;
    for (const auto& n : o.names)
        names.push_back((o.positional ? "\\fI" : "\\fB") + roff(n) + "\\fR");
    std::string out = ".TP\n" + fmt::format("{}", fmt::join(names, ", "));
    if (o.takes_value && !o.positional) out += " \\fI" + roff(o.value_name) + "\\fR";
    out += "\n" + roff(sentence(o.description));
    if (!o.choices.empty()) out += roff(fmt::format(" One of: {}.", fmt::join(o.choices, ", ")));
    if (!o.default_value.empty()) out += roff(fmt::format(" Default: {}.", o.default_value));
    if (!o.excludes.empty()) out += roff(fmt::format(" Not with {}.", fmt::join(o.excludes, ", ")));
    return out + "\n";
}

bool is_help(const CliOption& o) {
    return std::find(o.names.begin(), o.names.end(), "--help") != o.names.end();
}

/// "popsim analyze [OPTIONS] traces..."
std::string usage_line(const CLI::App& command) {
    std::string out = ".B popsim " + roff(command.get_name()) + "\n[\\fIOPTIONS\\fR]";
    for (const auto* o : command.get_options())
        if (!o->nonpositional())
            out +=
                " \\fI" + roff(o->get_name()) + "\\fR" + (o->get_expected_max() > 1 ? "..." : "");
    return out + "\n";
}

struct Example {
    const char* what;
    const char* command;
};
constexpr Example k_examples[] = {
    {"The POP metrics of one run, then of a scaling series (a folder of traces), with "
     "modelfactors' "
     "CSV and an HTML report:",
     "popsim analyze run.prv.gz\npopsim analyze runs/ --csv mf.csv --html report.html"},
    {"A hybrid MPI+OpenMP run in the multiplicative model (PyPOP's), or in TALP's:",
     "popsim analyze run_2x4.prv --model hybrid-multiplicative\n"
     "popsim analyze run_2x4.prv --model talp"},
    {"A code region, each instance apart, and what causes the waiting:",
     "popsim analyze run.prv --region 'solve*' --parts-csv solve.csv\n"
     "popsim analyze run.prv --root-causes"},
    {"The run on another network, written as a compressed Paraver trace, and a sweep:",
     "popsim simulate run.prv --latency 5us --bandwidth 10GB/s \\\n    -o sim.prv.gz\n"
     "popsim whatif run.prv --bandwidth 1GB/s,10GB/s,inf --html w.html"},
    {"A CI gate: exit 4 when an efficiency drops by more than 2 points:",
     "popsim analyze run.prv --json current.json\n"
     "popsim compare reference.json current.json --max-drop 0.02"},
    {"What --region and --phases can name, a window cut out, a synthetic run:",
     "popsim events run.prv\npopsim cut run.prv --from 2s --to 3s -o window.prv\n"
     "popsim synth --halo 4 --steps 20 -o halo4.prv"},
};

std::string examples_section() {
    std::string out = ".SH EXAMPLES\n";
    for (const auto& e : k_examples) {
        out += ".PP\n" + roff(e.what) + "\n.PP\n.RS 4\n.nf\n";
        std::string lines = e.command;
        for (std::size_t start = 0; start < lines.size();) {
            const auto end = std::min(lines.find('\n', start), lines.size());
            out += roff(lines.substr(start, end - start)) + "\n";
            start = end + 1;
        }
        out += ".fi\n.RE\n";
    }
    return out;
}

constexpr const char* k_description =
    "popsim computes the POP efficiency metrics of MPI, OpenMP and hybrid MPI+OpenMP runs from "
    "their traces (Extrae's Paraver .prv or .prv.gz with .pcf and .row, Score-P's OTF2): Parallel "
    "efficiency, Load balance, Communication efficiency with its Serialisation and Transfer parts, "
    "the computation scalings, the additive and multiplicative hybrid models and TALP's. Transfer "
    "and Serialisation need the runtime on an ideal network, which popsim finds by replaying the "
    "trace, as Dimemas does; it also replays it on Dimemas-style networks (latency, bandwidth, "
    "buses, links, nodes) to answer what a faster network would give.";

constexpr const char* k_exit_status[][2] = {
    {"0", "Success."},
    {"1", "Usage error: an unknown option, a value the option cannot take."},
    {"2", "Bad input: a missing, malformed or contradictory trace, description or configuration "
          "(the message names the file, line and cause), a trace whose dependencies deadlock, an "
          "output that would replace an input or whose folder does not exist."},
    {"3", "Any other failure: an output that cannot be written whole, no memory left."},
    {"4", "compare: an efficiency dropped by more than --max-drop."},
    {"141", "Standard output is a pipe whose reader left (as in popsim analyze ... | head), after "
            "every file asked for is written."},
};

constexpr const char* k_environment[][2] = {
    {"NO_COLOR", "When set and not empty, no colours, as with --no-color (no-color.org)."},
    {"COLUMNS", "The width of the terminal reports, when standard output is no terminal or to "
                "override the terminal's."},
    {"TMPDIR", "Where a streamed replay spills what it must keep, when the output's folder "
               "cannot hold it."},
};

} // namespace

std::vector<CliCommand> cli_model(const CLI::App& app) {
    std::vector<CliCommand> out{command_model(app, "")};
    for (const auto* command : app.get_subcommands({}))
        out.push_back(command_model(*command, command->get_name()));
    return out;
}

std::string man_page(const CLI::App& app, const std::string& version) {
    std::string out = fmt::format(".TH POPSIM 1 \"\" \"popsim {}\" \"User Commands\"\n", version);
    out += ".nh\n.ad l\n"; // option names are not hyphenated, lines not stretched
    out += ".SH NAME\npopsim \\- " + roff(k_popsim_summary) + "\n";
    out += ".SH SYNOPSIS\n.B popsim\n[\\fIGLOBAL OPTIONS\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR] "
           "[\\fIARGUMENTS\\fR]\n.br\n.B popsim\n\\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR | "
           "\\fICOMMAND\\fR \\fB\\-\\-help\\fR\n";
    out += ".SH DESCRIPTION\n" + roff(k_description) + "\n";
    out += ".SH GLOBAL OPTIONS\nThey stand before the command or after its arguments.\n";
    for (const auto& o : command_model(app, "").options)
        if (!is_help(o)) out += option_entry(o);
    out += ".SH COMMANDS\n";
    for (const auto* command : app.get_subcommands({})) {
        out += fmt::format(".SS \"popsim {}\"\n", command->get_name()) + usage_line(*command);
        out += ".PP\n" + roff(sentence(command->get_description())) + "\n";
        for (const auto& o : command_model(*command, command->get_name()).options)
            if (!is_help(o)) out += option_entry(o);
    }
    out += examples_section();
    out += ".SH EXIT STATUS\n";
    for (const auto& [code, meaning] : k_exit_status)
        out += fmt::format(".TP\n.B {}\n{}\n", code, roff(meaning));
    out += ".SH ENVIRONMENT\n";
    for (const auto& [name, meaning] : k_environment)
        out += fmt::format(".TP\n.B {}\n{}\n", name, roff(meaning));
    out += ".SH SEE ALSO\nThe user guide, the metric definitions, the network model and the file "
           "formats in\n.IR /usr/share/doc/popsim/ ;\n"
           "Paraver configurations in\n.IR /usr/share/popsim/paraver/ .\n";
    return out;
}

std::string bash_completion(const CLI::App& app) {
    const auto model = cli_model(app);
    std::vector<std::string> commands, global_words, value_cases;
    for (const auto& o : model.front().options)
        global_words.insert(global_words.end(), o.names.begin(), o.names.end());
    // What follows an option that takes a value: its choices, a file name, or nothing to offer.
    // `pattern` opens the case label: '"analyze' for one command, '*"' for any.
    auto value_case = [&](const std::string& pattern, const CliOption& o) {
        for (const auto& name : o.names) {
            const auto quoted = fmt::format("{} {}\"", pattern, name);
            if (!o.choices.empty())
                value_cases.push_back(
                    fmt::format("        {}) values=\"{}\" ;;", quoted, fmt::join(o.choices, " ")));
            else if (o.file)
                value_cases.push_back(fmt::format("        {}) files=1 ;;", quoted));
            else
                value_cases.push_back(fmt::format("        {}) return ;;", quoted));
        }
    };
    std::string per_command;
    for (std::size_t i = 1; i < model.size(); ++i) {
        const auto& c = model[i];
        commands.push_back(c.name);
        std::vector<std::string> words;
        for (const auto& o : c.options) {
            if (o.positional) continue;
            words.insert(words.end(), o.names.begin(), o.names.end());
            if (o.takes_value) value_case("\"" + c.name, o);
        }
        for (const auto& w : global_words) // -h, --help: the command's own
            if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
        per_command += fmt::format("        {}) words=\"{}\" ;;\n", c.name, fmt::join(words, " "));
    }
    for (const auto& o : model.front().options) // after any command, or before one
        if (o.takes_value) value_case("*\"", o);
    std::string out = "# bash completion for popsim, written from its command-line model\n"
                      "# (simulator/cli_docs.cpp): what each command takes, and nothing else.\n"
                      "_popsim() {\n"
                      "    local current=${COMP_WORDS[COMP_CWORD]} command=\"\" word\n"
                      "    local previous=${COMP_WORDS[COMP_CWORD-1]} values=\"\" files=0 words\n"
                      "    COMPREPLY=()\n"
                      "    for word in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do\n";
    out += fmt::format("        case $word in {}) command=$word; break ;; esac\n",
                       fmt::join(commands, "|"));
    out += "    done\n    case \"$command $previous\" in\n";
    out += fmt::format("{}\n", fmt::join(value_cases, "\n"));
    out += "    esac\n"
           "    if [[ -n $values ]]; then\n"
           "        mapfile -t COMPREPLY < <(compgen -W \"$values\" -- \"$current\")\n"
           "        return\n"
           "    fi\n"
           "    case $command in\n" +
           per_command;
    out += fmt::format("        *) words=\"{}\" ;;\n", fmt::join(global_words, " "));
    out += fmt::format("    esac\n"
                       "    if [[ $files == 0 && $current == -* ]]; then\n"
                       "        mapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$current\")\n"
                       "    elif [[ $files == 0 && -z $command ]]; then\n"
                       "        mapfile -t COMPREPLY < <(compgen -W \"{}\" -- \"$current\")\n"
                       "    else\n"
                       "        mapfile -t COMPREPLY < <(compgen -f -- \"$current\")\n"
                       "    fi\n"
                       "}}\n",
                       fmt::join(commands, " "));
    out += "complete -o filenames -F _popsim popsim\n";
    return out;
}

} // namespace popsim::simulator
