#define _GNU_SOURCE
#include "CurlShim.h"
#include "SignalFlags.h"
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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

int sonde_easy_active_socket(CURL *handle) {
    curl_socket_t socket = CURL_SOCKET_BAD;
    if (curl_easy_getinfo(handle, CURLINFO_ACTIVESOCKET, &socket) != CURLE_OK) return -1;
    return socket == CURL_SOCKET_BAD ? -1 : (int)socket;
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

/* ---- The OpenSSL of the running libcurl ----
 *
 * sonde does not link libssl: the libcurl it runs on may bring its own OpenSSL (a wheel's hashed
 * libssl-XXXX.so.3), and calling the system libssl on that libcurl's SSL * would mix two OpenSSLs.
 * The SSL_* functions are looked up with dlsym in libcurl's own dependency tree (a handle on
 * libcurl searches libcurl, then its DT_NEEDED libraries breadth first), and all of them must come
 * from one object, the libssl that libcurl loaded. Resolved once (pthread_once). */

typedef const char *(*ssl_get_version_fn)(const void *ssl);
typedef const void *(*ssl_get_current_cipher_fn)(const void *ssl);
typedef const char *(*ssl_cipher_get_name_fn)(const void *cipher);
typedef void (*ssl_get0_alpn_selected_fn)(const void *ssl, const unsigned char **data, unsigned int *len);
typedef int (*ssl_session_reused_fn)(const void *ssl);
typedef const char *(*openssl_version_fn)(int type);

static struct {
    ssl_get_version_fn get_version;
    ssl_get_current_cipher_fn get_current_cipher;
    ssl_cipher_get_name_fn cipher_get_name;
    ssl_get0_alpn_selected_fn get0_alpn_selected;
    ssl_session_reused_fn session_reused;
    openssl_version_fn openssl_version;
    char libcurl_path[1024];
    char libcurl_real_path[4096];
    char libssl_path[1024];
    int ready;  /* 1 when every SSL_* function above came from one libssl */
} ssl_api;
static pthread_once_t ssl_api_once = PTHREAD_ONCE_INIT;

/* The object file that defines `symbol`'s address, or "" when unknown. */
static void object_path(const void *address, char *out, size_t cap, void **base) {
    Dl_info info;
    memset(&info, 0, sizeof(info));
    if (address != NULL && dladdr(address, &info) != 0 && info.dli_fname != NULL) {
        copy_string(out, cap, info.dli_fname, strlen(info.dli_fname));
        if (base) *base = info.dli_fbase;
    } else {
        copy_string(out, cap, "", 0);
        if (base) *base = NULL;
    }
}

static void resolve_ssl_api(void) {
    void *base = NULL;
    object_path((const void *)&curl_version_info, ssl_api.libcurl_path, sizeof(ssl_api.libcurl_path), &base);
    if (ssl_api.libcurl_path[0] == 0) return;
    char *real = realpath(ssl_api.libcurl_path, NULL);
    if (real != NULL) {
        copy_string(ssl_api.libcurl_real_path, sizeof(ssl_api.libcurl_real_path), real, strlen(real));
        free(real);
    }
    void *curl = dlopen(ssl_api.libcurl_path, RTLD_LAZY | RTLD_NOLOAD);
    if (curl == NULL) return;
    ssl_api.get_version = (ssl_get_version_fn)dlsym(curl, "SSL_get_version");
    ssl_api.get_current_cipher = (ssl_get_current_cipher_fn)dlsym(curl, "SSL_get_current_cipher");
    ssl_api.cipher_get_name = (ssl_cipher_get_name_fn)dlsym(curl, "SSL_CIPHER_get_name");
    ssl_api.get0_alpn_selected = (ssl_get0_alpn_selected_fn)dlsym(curl, "SSL_get0_alpn_selected");
    ssl_api.session_reused = (ssl_session_reused_fn)dlsym(curl, "SSL_session_reused");
    ssl_api.openssl_version = (openssl_version_fn)dlsym(curl, "OpenSSL_version");
    /* The handle stays open: libcurl is loaded for the life of the process anyway. */
    if (!ssl_api.get_version || !ssl_api.get_current_cipher || !ssl_api.cipher_get_name
        || !ssl_api.get0_alpn_selected || !ssl_api.session_reused) return;
    void *ssl_base = NULL;
    object_path((const void *)ssl_api.get_version, ssl_api.libssl_path, sizeof(ssl_api.libssl_path), &ssl_base);
    const void *others[] = {(const void *)ssl_api.get_current_cipher, (const void *)ssl_api.cipher_get_name,
                            (const void *)ssl_api.get0_alpn_selected, (const void *)ssl_api.session_reused};
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        char path[1024];
        void *other_base = NULL;
        object_path(others[i], path, sizeof(path), &other_base);
        if (other_base != ssl_base) return;  /* two OpenSSLs: read nothing rather than mix them */
    }
    char *ssl_real = realpath(ssl_api.libssl_path, NULL);
    if (ssl_real != NULL) {
        copy_string(ssl_api.libssl_path, sizeof(ssl_api.libssl_path), ssl_real, strlen(ssl_real));
        free(ssl_real);
    }
    ssl_api.ready = ssl_base != NULL;
}

static int ssl_api_ready(void) {
    pthread_once(&ssl_api_once, resolve_ssl_api);
    return ssl_api.ready;
}

const char *sonde_libcurl_path(void) {
    pthread_once(&ssl_api_once, resolve_ssl_api);
    return ssl_api.libcurl_path;
}

const char *sonde_libcurl_real_path(void) {
    pthread_once(&ssl_api_once, resolve_ssl_api);
    return ssl_api.libcurl_real_path;
}

const char *sonde_tls_library_path(void) {
    return ssl_api_ready() ? ssl_api.libssl_path : NULL;
}

const char *sonde_tls_library_version(void) {
    if (!ssl_api_ready() || ssl_api.openssl_version == NULL) return NULL;
    return ssl_api.openssl_version(0 /* OPENSSL_VERSION */);
}

int sonde_read_tls_info(CURL *handle, sonde_tls_info *out) {
    memset(out, 0, sizeof(*out));
    if (!ssl_api_ready()) return 0;
    struct curl_tlssessioninfo *session = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_TLS_SSL_PTR, &session) != CURLE_OK || session == NULL) return 0;
    if (session->backend != CURLSSLBACKEND_OPENSSL || session->internals == NULL) return 0;
    const void *ssl = session->internals;
    const char *version = ssl_api.get_version(ssl);
    copy_string(out->version, sizeof(out->version), version, version ? strlen(version) : 0);
    const void *cipher = ssl_api.get_current_cipher(ssl);
    const char *cipher_name = cipher ? ssl_api.cipher_get_name(cipher) : NULL;
    copy_string(out->cipher, sizeof(out->cipher), cipher_name, cipher_name ? strlen(cipher_name) : 0);
    const unsigned char *alpn = NULL;
    unsigned int alpn_len = 0;
    ssl_api.get0_alpn_selected(ssl, &alpn, &alpn_len);
    copy_string(out->alpn, sizeof(out->alpn), (const char *)alpn, alpn_len);
    out->session_reused = ssl_api.session_reused(ssl) ? 1 : 0;
    out->valid = 1;
    return 1;
}

/* ---- Another libcurl, for --libcurl ---- */

struct dependency_walk {
    char directory[1024];
    char *out;
    size_t cap;
    size_t used;
};

static int collect_dependency(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct dependency_walk *walk = data;
    const char *name = info->dlpi_name;
    if (name == NULL || name[0] != '/') return 0;
    size_t dir_len = strlen(walk->directory);
    if (strncmp(name, walk->directory, dir_len) != 0 || name[dir_len] != '/' || strchr(name + dir_len + 1, '/') != NULL) return 0;
    size_t len = strlen(name);
    if (walk->used + len + 2 > walk->cap) return 1;
    memcpy(walk->out + walk->used, name, len);
    walk->used += len;
    walk->out[walk->used++] = '\n';
    walk->out[walk->used] = 0;
    return 0;
}

int sonde_inspect_libcurl(const char *path, char *resolved, size_t resolved_cap, char *version, size_t version_cap,
                          char *libraries, size_t libraries_cap, char *error, size_t error_cap) {
    copy_string(resolved, resolved_cap, "", 0);
    copy_string(version, version_cap, "", 0);
    copy_string(libraries, libraries_cap, "", 0);
    copy_string(error, error_cap, "", 0);
    char *real = realpath(path, NULL);
    if (real == NULL) {
        copy_string(error, error_cap, "no such file", strlen("no such file"));
        return 0;
    }
    /* RTLD_DEEPBIND: the library binds to its own dependencies first, not to the libcurl and
     * OpenSSL this process already runs on. RTLD_LOCAL: nothing of it joins the global scope. */
    void *handle = dlopen(real, RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND);
    if (handle == NULL) {
        const char *reason = dlerror();
        copy_string(error, error_cap, reason ? reason : "cannot load it", strlen(reason ? reason : "cannot load it"));
        free(real);
        return 0;
    }
    typedef curl_version_info_data *(*version_info_fn)(CURLversion);
    version_info_fn info_fn = (version_info_fn)dlsym(handle, "curl_version_info");
    void *init_fn = dlsym(handle, "curl_easy_init");
    if (info_fn == NULL || init_fn == NULL) {
        const char *reason = "it loads, but defines no curl_version_info/curl_easy_init: not a libcurl";
        copy_string(error, error_cap, reason, strlen(reason));
        free(real);
        return 0;  /* the handle stays open: unloading libraries that ran constructors is unsafe */
    }
    curl_version_info_data *data = info_fn(CURLVERSION_FIRST);
    if (data != NULL && data->version != NULL) copy_string(version, version_cap, data->version, strlen(data->version));
    /* The object that defines curl_version_info: `path` itself, or a library it needs (a wrapper). */
    char defining[4096];
    object_path((const void *)info_fn, defining, sizeof(defining), NULL);
    char *defining_real = defining[0] ? realpath(defining, NULL) : NULL;
    if (defining_real != NULL) {
        free(real);
        real = defining_real;
    }
    copy_string(resolved, resolved_cap, real, strlen(real));
    struct dependency_walk walk;
    memset(&walk, 0, sizeof(walk));
    char *slash = strrchr(real, '/');
    size_t dir_len = slash ? (size_t)(slash - real) : 0;
    copy_string(walk.directory, sizeof(walk.directory), real, dir_len);
    walk.out = libraries;
    walk.cap = libraries_cap;
    dl_iterate_phdr(collect_dependency, &walk);
    free(real);
    return 1;
}

static long long monotonic_us(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000LL + now.tv_nsec / 1000;
}

static int watch_progress(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal; (void)ultotal;
    sonde_progress_state *state = (sonde_progress_state *)userdata;
    if (sonde_received_signal() != 0) return 1;
    if (state->stop != NULL && sonde_stop_flag_is_pulled(state->stop)) return 1;
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

static int collect_text(CURL *handle, curl_infotype type, char *data, size_t size, void *clientp) {
    (void)handle;
    if (type != CURLINFO_TEXT || data == NULL) return 0;
    sonde_text_log *log = (sonde_text_log *)clientp;
    size_t room = sizeof(log->text) - 1 - log->used;
    if (size > room) {
        log->truncated = 1;
        return 0;
    }
    memcpy(log->text + log->used, data, size);
    log->used += size;
    log->text[log->used] = 0;
    return 0;
}

const char *sonde_text_log_text(const sonde_text_log *log) {
    return log->text;
}

void sonde_text_log_reset(sonde_text_log *log) {
    log->used = 0;
    log->truncated = 0;
    log->text[0] = 0;
}

CURLcode sonde_easy_collect_text(CURL *handle, sonde_text_log *log) {
    sonde_text_log_reset(log);
    CURLcode code = curl_easy_setopt(handle, CURLOPT_DEBUGFUNCTION, collect_text);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_DEBUGDATA, log);
    if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_VERBOSE, 1L);
    return code;
}
