#ifndef SONDE_SIGNAL_FLAGS_H
#define SONDE_SIGNAL_FLAGS_H

// SIGINT/SIGTERM recorded as a flag that every engine polls (libcurl's progress callback, the
// soak engine, the trial loops, the target): a graceful stop that still writes the report.
// SIGHUP recorded as a second flag that `sonde serve` takes to reload its config.

/// Installs SIGINT/SIGTERM handlers that only record the signal (async-signal-safe). Nested
/// installs are counted (a run inside `sonde serve`): the handlers stay until the last matching
/// `sonde_reset_interrupt_handlers`. Thread-safe.
void sonde_install_interrupt_handlers(void);
/// The signal number received since installation, or 0.
int sonde_received_signal(void);
/// Ends one install; the last one restores default handling, so that a second Ctrl-C ends the
/// process at once. Thread-safe.
void sonde_reset_interrupt_handlers(void);

/// Installs a SIGHUP handler that only records the signal.
void sonde_install_hangup_handler(void);
/// Whether SIGHUP arrived since the last call (the flag is cleared).
int sonde_take_hangup(void);

/// The stop of one run (a scheduled check past its time limit), as opposed to a signal, which
/// stops every run of the process: engines poll it, and libcurl's progress callback reads it, so
/// that a transfer stops within a second of it. Pulled once, never reset. Any thread.
typedef struct {
    int pulled;  ///< read and written only through the two functions below (atomic)
} sonde_stop_flag;

void sonde_stop_flag_pull(sonde_stop_flag *flag);
int sonde_stop_flag_is_pulled(const sonde_stop_flag *flag);

#endif
