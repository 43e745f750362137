#include "SignalFlags.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received_signal = 0;
static volatile sig_atomic_t received_hangup = 0;
static pthread_mutex_t installs_lock = PTHREAD_MUTEX_INITIALIZER;
static int installs = 0;

static void record_signal(int signo) {
    received_signal = signo;
}

static void record_hangup(int signo) {
    (void)signo;
    received_hangup = 1;
}

static void install(int signo, void (*handler)(int)) {
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    sigaction(signo, &action, NULL);
}

void sonde_install_interrupt_handlers(void) {
    pthread_mutex_lock(&installs_lock);
    if (installs++ == 0) {
        install(SIGINT, record_signal);
        install(SIGTERM, record_signal);
    }
    pthread_mutex_unlock(&installs_lock);
}

int sonde_received_signal(void) {
    return (int)received_signal;
}

void sonde_reset_interrupt_handlers(void) {
    pthread_mutex_lock(&installs_lock);
    if (installs > 0 && --installs == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
    }
    pthread_mutex_unlock(&installs_lock);
}

void sonde_install_hangup_handler(void) {
    install(SIGHUP, record_hangup);
}

int sonde_take_hangup(void) {
    if (!received_hangup) return 0;
    received_hangup = 0;
    return 1;
}

void sonde_stop_flag_pull(sonde_stop_flag *flag) {
    __atomic_store_n(&flag->pulled, 1, __ATOMIC_RELAXED);
}

int sonde_stop_flag_is_pulled(const sonde_stop_flag *flag) {
    return __atomic_load_n(&flag->pulled, __ATOMIC_RELAXED);
}
