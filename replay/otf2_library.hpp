// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The OTF2 library prints its errors on stderr; popsim's readers and writers of OTF2 archives put
// the library's message into their own error instead (file and cause, exit status 2 or 3).
#include <string>
#include <string_view>

namespace popsim::replay {

/// The marks popsim gives what it writes into an archive that OTF2 has no record for
/// (replay/output/otf2_writer.hpp): a Paraver state's region has the canonical name
/// "Paraver state 1", a Paraver event type's metric member the description
/// "Paraver event type 42000050", a name the .pcf gives an event value is a region never
/// entered with the canonical name "Paraver value 70000001:12". popsim reads such an archive back
/// as that Paraver trace, with its names.
inline constexpr std::string_view k_otf2_state_mark = "Paraver state ";
inline constexpr std::string_view k_otf2_event_mark = "Paraver event type ";
inline constexpr std::string_view k_otf2_value_mark = "Paraver value ";

/// Routes the library's messages away from stderr (once per process) and forgets any earlier
/// message of this thread: call before each operation on an archive.
void begin_otf2_operation();
/// The library's first message in this thread since begin_otf2_operation(), or empty.
const std::string& otf2_library_message();

} // namespace popsim::replay
