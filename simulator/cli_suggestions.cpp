// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/cli_suggestions.hpp"

#include "replay/text/ignoring_case.hpp"
#include "replay/text/nearest_words.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace popsim::simulator {

namespace {

/// "a", "a and b", "a, b and c" (or "a, b or c").
std::string listed(std::vector<std::string> words, const char* conjunction = "and") {
    if (words.size() < 2) return words.empty() ? std::string() : words.front();
    const std::string last = words.back();
    words.pop_back();
    return fmt::format("{} {} {}", fmt::join(words, ", "), conjunction, last);
}

/// "; did you mean 'a' or 'b'?" for the candidates near `word`, else "". Options are compared
/// without their dashes, and a --no-X option as X too (--colour: '--no-color').
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates,
                         const std::vector<std::string>& names_shown = {}) {
    const auto bare = [](const std::string& w) {
        const auto at = w.find_first_not_of('-');
        return at == std::string::npos ? w : w.substr(at);
    };
    std::vector<std::string> keys, shown; // parallel: what is compared, what is suggested
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const auto& name = names_shown.empty() ? candidates[i] : names_shown[i];
        keys.push_back(bare(candidates[i]));
        shown.push_back(name);
        if (keys.back().starts_with("no-")) {
            keys.push_back(keys.back().substr(3));
            shown.push_back(name);
        }
    }
    const std::string typed = bare(word);
    // Near: a third of the word's letters wrong at most (one for short words).
    const std::size_t within = std::max<std::size_t>(1, typed.size() / 3);
    std::vector<std::string> quoted;
    for (const auto& key : replay::nearest_words(typed, keys, 3, within)) {
        const auto at = std::find(keys.begin(), keys.end(), key);
        const auto q = "'" + shown[static_cast<std::size_t>(at - keys.begin())] + "'";
        if (std::find(quoted.begin(), quoted.end(), q) == quoted.end()) quoted.push_back(q);
    }
    if (quoted.empty()) return {};
    return fmt::format("; did you mean {}?", listed(std::move(quoted), "or"));
}

/// The long names (--name) of a command's options, and beside each the option's first one (what
/// a suggestion shows: --no-colour is --no-color).
struct OptionNames {
    std::vector<std::string> names, primary;
};
OptionNames option_names(const CLI::App& command) {
    OptionNames out;
    for (const auto* option : command.get_options()) {
        for (const auto& name : option->get_lnames()) {
            out.names.push_back("--" + name);
            out.primary.push_back("--" + option->get_lnames().front());
        }
    }
    return out;
}

/// The commands of `app` that take option `name`.
std::vector<std::string> commands_taking(const CLI::App& app, const std::string& name) {
    std::vector<std::string> out;
    for (const auto* command : app.get_subcommands({})) {
        const auto names = option_names(*command).names;
        if (std::find(names.begin(), names.end(), name) != names.end())
            out.push_back(command->get_name());
    }
    return out;
}

/// " (popsim takes no --x; did you mean '--y'?)" for each --option in `args` that neither popsim
/// nor `command` (when given) takes and that is near one they take; " (events takes no --region;
/// analyze and cut do)" for one that other commands take.
std::string unknown_options(const CLI::App& app, const CLI::App* command,
                            std::vector<std::string>::const_iterator from,
                            std::vector<std::string>::const_iterator to) {
    auto known = option_names(app);
    const std::string who = command ? command->get_name() : "popsim";
    if (command) {
        const auto own = option_names(*command);
        known.names.insert(known.names.end(), own.names.begin(), own.names.end());
        known.primary.insert(known.primary.end(), own.primary.begin(), own.primary.end());
    }
    std::string out;
    for (auto arg = from; arg != to; ++arg) {
        if (!arg->starts_with("--")) continue;
        const std::string name = arg->substr(0, arg->find('='));
        if (std::find(known.names.begin(), known.names.end(), name) != known.names.end()) continue;
        // Said only with a suggestion: CLI11 has named the option already.
        if (const auto meant = did_you_mean(name, known.names, known.primary); !meant.empty()) {
            out += fmt::format(" ({} takes no {}{})", who, name, meant);
        } else if (const auto others = commands_taking(app, name); command && !others.empty()) {
            out += fmt::format(" ({} takes no {}; {} {})", who, name, listed(others),
                               others.size() == 1 ? "does" : "do");
        }
    }
    return out;
}

} // namespace

CLI::Validator one_of(std::vector<std::string> values) {
    const std::string listed = fmt::format("{}", fmt::join(values, ", "));
    return CLI::Validator(
        [values, listed](std::string& given) -> std::string {
            for (const auto& v : values) {
                if (replay::equal_ignoring_case(given, v)) {
                    given = v;
                    return {};
                }
            }
            return fmt::format("'{}' is not one of {}{}", given, listed,
                               did_you_mean(given, values));
        },
        "{" + listed + "}");
}

void refuse_options_as_values(CLI::App& app) {
    const auto global = option_names(app).names; // --quiet, --strict, ...
    for (auto* command : app.get_subcommands({})) {
        auto names = option_names(*command).names;
        names.insert(names.end(), global.begin(), global.end());
        for (auto* option : command->get_options()) {
            if (!option->nonpositional() || option->get_expected_max() == 0) continue; // a flag
            const std::string owner = option->get_name();
            option->check(CLI::Validator(
                [names, owner](const std::string& value) -> std::string {
                    const std::string name = value.substr(0, value.find('='));
                    if (std::find(names.begin(), names.end(), name) == names.end()) return {};
                    return fmt::format("'{}' is an option, not a value: {} needs its value first",
                                       value, owner);
                },
                ""));
        }
    }
}

std::string usage_error_message(const CLI::App& app, const CLI::Error& error,
                                const std::vector<std::string>& args) {
    std::vector<std::string> commands;
    for (const auto* command : app.get_subcommands({})) commands.push_back(command->get_name());
    // The command: the first word that is neither an option nor the value of one of popsim's
    // own (`--read-block 0 analyze`: 0 is --read-block's, wrong as it may be).
    auto first = args.begin();
    for (; first != args.end() && first->starts_with("-"); ++first) {
        const auto* option =
            first->find('=') == std::string::npos ? app.get_option_no_throw(*first) : nullptr;
        if (option != nullptr && option->get_expected_max() > 0 && std::next(first) != args.end())
            ++first;
    }
    if (first != args.end() &&
        std::find(commands.begin(), commands.end(), *first) == commands.end()) {
        return fmt::format("'{}' is not a popsim command (commands: {}){}", *first,
                           fmt::join(commands, ", "), did_you_mean(*first, commands));
    }
    // An option neither popsim nor the command takes: the nearest they have, for each.
    const CLI::App* command = first == args.end() ? nullptr : app.get_subcommand(*first);
    return error.what() + unknown_options(app, command, args.begin(), args.end());
}

} // namespace popsim::simulator
