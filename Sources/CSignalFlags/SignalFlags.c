#include "SignalFlags.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received_signal = 0;

static void record_signal(int signo) {
    received_signal = signo;
}

void sonde_install_interrupt_handlers(void) {
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = record_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
}

int sonde_received_signal(void) {
    return (int)received_signal;
}

void sonde_reset_interrupt_handlers(void) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}
