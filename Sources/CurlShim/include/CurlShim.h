// CurlShim: typed, non-variadic wrappers around libcurl's variadic calls, so Swift can call them.
//
// Swift cannot call C variadic functions such as curl_easy_setopt/curl_easy_getinfo. Each wrapper
// here fixes the type of the third argument; the Swift side (SondeHTTP.EasyHandle) chooses the
// right one per option. The wrappers add no behaviour of their own.
//
// Threading: like libcurl itself, a handle must only be used from one thread at a time.
#ifndef SONDE_CURL_SHIM_H
#define SONDE_CURL_SHIM_H

#include <curl/curl.h>
#include <stddef.h>
#include "SignalFlags.h"

/// The signature shared by CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION and CURLOPT_READFUNCTION.
typedef size_t (*sonde_data_callback)(char *buffer, size_t size, size_t nitems, void *userdata);

CURLcode sonde_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode sonde_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
/// Strings (libcurl copies them), curl_slist pointers and callback user data.
CURLcode sonde_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value);
CURLcode sonde_easy_setopt_data_callback(CURL *handle, CURLoption option, sonde_data_callback callback);

CURLcode sonde_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode sonde_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode sonde_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);
/// CURLINFO_ACTIVESOCKET: the socket of the connection the last transfer used while that
/// connection is still in the pool, else -1 (CURL_SOCKET_BAD).
int sonde_easy_active_socket(CURL *handle);
/// Keeps `*slot` equal to the socket libcurl opened last for `handle` (-1 once it is closed),
/// through CURLOPT_SOCKOPTFUNCTION and CURLOPT_CLOSESOCKETFUNCTION: during a transfer,
/// CURLINFO_ACTIVESOCKET is not yet set. `slot` must outlive the handle.
CURLcode sonde_easy_track_socket(CURL *handle, int *slot);

/// Records in `*slot` the CLOCK_MONOTONIC microseconds at which libcurl had a connection ready
/// for this transfer (new or reused, TLS done) and was about to send the request
/// (CURLOPT_PREREQFUNCTION, libcurl 7.80+). The caller sets `*slot` to 0 before each transfer.
CURLcode sonde_easy_record_request_start(CURL *handle, long long *slot);
CURLcode sonde_easy_getinfo_certinfo(CURL *handle, struct curl_certinfo **value);

/// Progress watch of one easy handle (CURLOPT_XFERINFOFUNCTION), libcurl calls it at least
/// about once a second: the transfer aborts (CURLE_ABORTED_BY_CALLBACK) once SIGINT or SIGTERM
/// was recorded by `sonde_install_interrupt_handlers`, once `stop` (when set) was pulled, or when
/// no byte moved either way for `stall_us` microseconds (`stalled` is then 1). Reset it with `sonde_progress_reset` before
/// each transfer.
typedef struct {
    long long stall_us;        ///< 0: no stall limit
    long long last_change_us;  ///< CLOCK_MONOTONIC µs when a byte last moved (or the transfer began)
    long long last_dlnow;
    long long last_ulnow;
    int stalled;
    const sonde_stop_flag *stop;  ///< the run's stop, or NULL; must outlive the handle's transfers
} sonde_progress_state;

/// Installs the watch; `state` must outlive the handle's transfers.
CURLcode sonde_easy_watch_progress(CURL *handle, sonde_progress_state *state);
/// Starts the stall clock afresh.
void sonde_progress_reset(sonde_progress_state *state);

/// libcurl's informational text for one transfer (CURLOPT_VERBOSE with CURLOPT_DEBUGFUNCTION,
/// CURLINFO_TEXT only: no headers, no data), kept to read why a QUIC attempt failed; libcurl
/// resets its error buffer when a fallback wins, so its verbose lines are the only account left.
/// The lines are appended as libcurl gives them (each ends in a newline) until `text` is full;
/// what does not fit is dropped and `truncated` is set. Nothing is printed.
typedef struct {
    size_t used;        ///< bytes of `text` in use, never more than sizeof(text) - 1; text[used] is 0
    int truncated;      ///< 1 when a line did not fit
    char text[16384];
} sonde_text_log;

/// Turns verbose text on for `handle` into `log`, which must outlive the handle's transfers.
CURLcode sonde_easy_collect_text(CURL *handle, sonde_text_log *log);
/// Empties the log (before each transfer).
void sonde_text_log_reset(sonde_text_log *log);
/// The log's text, NUL-terminated, `log->used` bytes (Swift does not import an array this large).
const char *sonde_text_log_text(const sonde_text_log *log);

CURLMcode sonde_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/// What the TLS library negotiated on the transfer's connection.
typedef struct {
    int valid;            ///< 1 when a TLS session was found (OpenSSL backend, TLS in use)
    int session_reused;   ///< 1 when the TLS session was resumed (SSL_session_reused)
    char version[32];     ///< e.g. "TLSv1.3"
    char cipher[96];      ///< OpenSSL's cipher name, e.g. "TLS_AES_256_GCM_SHA384"
    char alpn[32];        ///< ALPN protocol selected by the server, "" when none
} sonde_tls_info;

/// Reads CURLINFO_TLS_SSL_PTR and asks OpenSSL what was negotiated: the OpenSSL of the running
/// libcurl (its SSL_* functions looked up with dlsym in libcurl's own dependency tree; sonde links
/// no libssl), never another one. Works for TCP+TLS and, where libcurl hands out its SSL *, QUIC.
/// Only valid while the transfer is in progress (call it from a header or write callback).
/// Returns 1 when `out` was filled, 0 otherwise (no TLS, another backend, or no single libssl).
int sonde_read_tls_info(CURL *handle, sonde_tls_info *out);

/// What `sonde audit` reads of a TLS connection beyond `sonde_tls_info` (TLSPeer.c): the key
/// exchange group and the leaf's key and signature, as the OpenSSL of the running libcurl saw them
/// (looked up the same way as `sonde_read_tls_info`; no libssl is linked).
typedef struct {
    int valid;              ///< 1 when a TLS session was found (OpenSSL backend)
    char version[32];       ///< e.g. "TLSv1.2"
    char cipher[96];        ///< OpenSSL's cipher name
    char group[64];         ///< the key exchange group ("X25519", "secp256r1", "ffdhe2048"; "DH 2048"
                            ///< for a TLS 1.2 DHE key without a named group); "" when none (RSA key transport)
    char key_type[32];      ///< the leaf's public key: "RSA", "RSA-PSS", "EC", "ED25519", "ED448", "DSA", or OpenSSL's short name
    int key_bits;           ///< the leaf key's size in bits (EVP_PKEY_get_bits), 0 when unknown
    char key_group[64];     ///< an EC leaf key's curve ("prime256v1"), else ""
    char signature[64];     ///< the leaf's signature algorithm, OpenSSL's long name ("sha256WithRSAEncryption")
    char signature_digest[32]; ///< its digest ("SHA256", "SHA1"; "" when the algorithm has none, e.g. Ed25519)
    int peer_chain_length;  ///< certificates the server sent (SSL_get_peer_cert_chain), -1 when unknown
    long stapled_ocsp_length; ///< bytes of the stapled OCSP response when one was requested and sent, else 0
} sonde_tls_peer;

/// Fills `out` from the transfer's TLS connection: during a transfer, or after one made with
/// CURLOPT_CONNECT_ONLY (the connection stays open until the handle is cleaned up).
/// Returns 1 when `out` was filled, 0 otherwise (no TLS, another backend, no single libssl/libcrypto).
/// Thread-safe for distinct handles.
int sonde_read_tls_peer(CURL *handle, sonde_tls_peer *out);

/// The file of the libcurl this process runs on (dladdr on curl_version_info), "" when unknown.
const char *sonde_libcurl_path(void);
/// The same with symlinks resolved (read once, at the first call of either), "" when unknown.
const char *sonde_libcurl_real_path(void);
/// The file (symlinks resolved) of the libssl that the running libcurl uses, NULL when none was found.
const char *sonde_tls_library_path(void);
/// That libssl's OpenSSL_version(OPENSSL_VERSION), e.g. "OpenSSL 3.6.5 30 Sep 2025"; NULL when unknown.
const char *sonde_tls_library_version(void);

/// Checks that `path` is a loadable libcurl without making it this process's libcurl (dlopen
/// with RTLD_LOCAL | RTLD_DEEPBIND; it stays loaded). On success returns 1, with in `resolved` the
/// real path of the file that defines curl_version_info (`path`'s, or a library `path` needs, as
/// with sonde's version wrapper), its version in `version` and, in `libraries`, one path a line,
/// the objects loaded from that file's folder (its private dependencies, e.g. a wheel's hashed
/// libssl). On failure returns 0 with a reason in `error`. Strings are NUL-terminated and
/// truncated to their capacity.
int sonde_inspect_libcurl(const char *path, char *resolved, size_t resolved_cap, char *version, size_t version_cap,
                          char *libraries, size_t libraries_cap, char *error, size_t error_cap);

/// The running executable's DT_RUNPATH (DT_RPATH when it has none) as written in the file, with
/// `$ORIGIN` unexpanded, read from /proc/self/exe. Returns 1 with the NUL-terminated text in `out`
/// (truncated to `capacity`), 0 when the executable has neither or cannot be read.
int sonde_executable_runpath(char *out, size_t capacity);
/// 1 when the process runs in secure-execution mode (getauxval(AT_SECURE): file capabilities or
/// set-user/group-ID), where the dynamic linker ignores LD_LIBRARY_PATH and $ORIGIN in RUNPATH.
int sonde_secure_execution(void);

#endif
