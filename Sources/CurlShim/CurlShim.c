#include "CurlShim.h"
#include <openssl/ssl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <string.h>

CURLcode sonde_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode sonde_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode sonde_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode sonde_easy_setopt_data_callback(CURL *handle, CURLoption option, sonde_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode sonde_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode sonde_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode sonde_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode sonde_easy_getinfo_certinfo(CURL *handle, struct curl_certinfo **value) {
    return curl_easy_getinfo(handle, CURLINFO_CERTINFO, value);
}

CURLMcode sonde_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static void copy_string(char *dst, size_t cap, const char *src, size_t len) {
    if (cap == 0) return;
    if (src == NULL) { dst[0] = 0; return; }
    if (len >= cap) len = cap - 1;
    memcpy(dst, src, len);
    dst[len] = 0;
}

int sonde_read_tls_info(CURL *handle, sonde_tls_info *out) {
    memset(out, 0, sizeof(*out));
    struct curl_tlssessioninfo *session = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_TLS_SSL_PTR, &session) != CURLE_OK || session == NULL) return 0;
    if (session->backend != CURLSSLBACKEND_OPENSSL || session->internals == NULL) return 0;
    SSL *ssl = (SSL *)session->internals;
    const char *version = SSL_get_version(ssl);
    copy_string(out->version, sizeof(out->version), version, version ? strlen(version) : 0);
    const SSL_CIPHER *cipher = SSL_get_current_cipher(ssl);
    const char *cipher_name = cipher ? SSL_CIPHER_get_name(cipher) : NULL;
    copy_string(out->cipher, sizeof(out->cipher), cipher_name, cipher_name ? strlen(cipher_name) : 0);
    const unsigned char *alpn = NULL;
    unsigned int alpn_len = 0;
    SSL_get0_alpn_selected(ssl, &alpn, &alpn_len);
    copy_string(out->alpn, sizeof(out->alpn), (const char *)alpn, alpn_len);
    out->session_reused = SSL_session_reused(ssl) ? 1 : 0;
    out->valid = 1;
    return 1;
}

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

static long long monotonic_us(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000LL + now.tv_nsec / 1000;
}

static int watch_progress(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal; (void)ultotal;
    sonde_progress_state *state = (sonde_progress_state *)userdata;
    if (received_signal != 0) return 1;
    long long now = monotonic_us();
    if ((long long)dlnow != state->last_dlnow || (long long)ulnow != state->last_ulnow) {
        state->last_dlnow = (long long)dlnow;
        state->last_ulnow = (long long)ulnow;
        state->last_change_us = now;
    } else if (state->stall_us > 0 && now - state->last_change_us > state->stall_us) {
        state->stalled = 1;
        return 1;
    }
    return 0;
}

void sonde_progress_reset(sonde_progress_state *state) {
    state->last_change_us = monotonic_us();
    state->last_dlnow = 0;
    state->last_ulnow = 0;
    state->stalled = 0;
}

CURLcode sonde_easy_watch_progress(CURL *handle, sonde_progress_state *state) {
    sonde_progress_reset(state);
    CURLcode code = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, watch_progress);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_XFERINFODATA, state);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
    return code;
}

static int track_socket_open(void *clientp, curl_socket_t curlfd, curlsocktype purpose) {
    (void)purpose;
    *(int *)clientp = (int)curlfd;
    return CURL_SOCKOPT_OK;
}

static int track_socket_close(void *clientp, curl_socket_t item) {
    int *slot = (int *)clientp;
    if (*slot == (int)item) *slot = -1;
    return close(item);
}

CURLcode sonde_easy_track_socket(CURL *handle, int *slot) {
    *slot = -1;
    CURLcode code = curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, track_socket_open);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_SOCKOPTDATA, slot);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, track_socket_close);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_CLOSESOCKETDATA, slot);
    return code;
}

static int record_request_start(void *clientp, char *primary_ip, char *local_ip, int primary_port, int local_port) {
    (void)primary_ip; (void)local_ip; (void)primary_port; (void)local_port;
    *(long long *)clientp = monotonic_us();
    return CURL_PREREQFUNC_OK;
}

CURLcode sonde_easy_record_request_start(CURL *handle, long long *slot) {
    *slot = 0;
    CURLcode code = curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, record_request_start);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_PREREQDATA, slot);
    return code;
}
