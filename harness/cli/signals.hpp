// Stop requests: the first SIGINT/SIGTERM/SIGHUP asks a run to stop in order (the runner notices,
// stops what it started and unwinds through the RAII guards); a second one means "stop now".
#pragma once

namespace noisefloor::cli {

// Installs the handlers; only `run` stops in order, every other command ends at once.
void install_signal_handlers();

// The first stop request's signal, 0 when none came.
int stop_signal();

// The command finished (its cleanup included): a second request no longer cuts anything short.
void mark_done();

}  // namespace noisefloor::cli
