// SPDX-License-Identifier: BSD-3-Clause
#include "replay/otf2_library.hpp"

#include <array>
#include <cstdarg>
#include <cstdio>
#include <otf2/otf2.h>

namespace popsim::replay {

namespace {

thread_local std::string t_message;

OTF2_ErrorCode keep_message(void*, const char*, std::uint64_t, const char*, OTF2_ErrorCode code,
                            const char* format, va_list arguments) {
    if (t_message.empty()) {
        std::array<char, 512> text{};
        std::vsnprintf(text.data(), text.size(), format, arguments);
        t_message = text.data();
    }
    return code;
}

} // namespace

void begin_otf2_operation() {
    static const bool quiet = (OTF2_Error_RegisterCallback(keep_message, nullptr), true);
    (void)quiet;
    t_message.clear();
}

const std::string& otf2_library_message() {
    return t_message;
}

} // namespace popsim::replay
