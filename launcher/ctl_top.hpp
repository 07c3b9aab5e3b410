// `psched-ctl top`: a live view of the allocation (launcher/top_view.hpp says what it
// shows), redrawn about once a second from one status request each time, with keys to
// suspend, resume and kill the selected session after a confirmation. Full screen with
// ncurses on a terminal; without one, the view is printed once as plain text.
#pragma once

namespace psched::launcher {

// Returns psched-ctl's exit code.
int RunTop(double refresh_s);

}  // namespace psched::launcher
