#ifndef SONDE_SIGNAL_FLAGS_H
#define SONDE_SIGNAL_FLAGS_H

// SIGINT/SIGTERM recorded as a flag that every engine polls (libcurl's progress callback, the
// soak engine, the trial loops, the target): a graceful stop that still writes the report.

/// Installs SIGINT/SIGTERM handlers that only record the signal (async-signal-safe).
void sonde_install_interrupt_handlers(void);
/// The signal number received since installation, or 0.
int sonde_received_signal(void);
/// Restores default handling so a second Ctrl-C ends the process at once.
void sonde_reset_interrupt_handlers(void);

#endif
