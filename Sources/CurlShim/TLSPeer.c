#define _GNU_SOURCE
#include "CurlShim.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- sonde audit: the key exchange group and the leaf's key and signature ----
 *
 * Like CurlShim.c's session reader, this reads the OpenSSL of the running libcurl: every SSL_*,
 * X509_*, EVP_* and OBJ_* function is looked up with dlsym on libcurl's handle (libcurl, then its
 * dependencies breadth first: libssl, libcrypto), once (pthread_once). The SSL_* functions must
 * come from one object and the libcrypto ones from one object, or nothing is read. OpenSSL 3 only
 * (SSL_get0_peer_certificate, EVP_PKEY_get_bits); with an older libssl the reader returns 0. */

/* OpenSSL's SSL_ctrl commands behind the macros SSL_get_negotiated_group, SSL_get_peer_tmp_key
 * and SSL_get_tlsext_status_ocsp_resp (ssl.h, tls1.h; stable numbers of the ABI). */
#define SONDE_SSL_CTRL_GET_NEGOTIATED_GROUP 134
#define SONDE_SSL_CTRL_GET_PEER_TMP_KEY 109
#define SONDE_SSL_CTRL_GET_TLSEXT_STATUS_REQ_OCSP_RESP 70
/* EVP_PKEY base ids (obj_mac.h NIDs). */
#define SONDE_NID_RSA 6
#define SONDE_NID_RSA_PSS 912
#define SONDE_NID_DSA 116
#define SONDE_NID_DH 28
#define SONDE_NID_DHX 920
#define SONDE_NID_EC 408
#define SONDE_NID_X25519 1034
#define SONDE_NID_X448 1035
#define SONDE_NID_ED25519 1087
#define SONDE_NID_ED448 1088

typedef long (*ssl_ctrl_fn)(const void *ssl, int cmd, long larg, void *parg);
typedef const char *(*ssl_group_to_name_fn)(const void *ssl, int id);
typedef void *(*ssl_get0_peer_certificate_fn)(const void *ssl);
typedef void *(*ssl_get_peer_cert_chain_fn)(const void *ssl);
typedef const char *(*ssl_get_version_fn)(const void *ssl);
typedef const void *(*ssl_get_current_cipher_fn)(const void *ssl);
typedef const char *(*ssl_cipher_get_name_fn)(const void *cipher);
typedef int (*sk_num_fn)(const void *stack);
typedef void *(*x509_get0_pubkey_fn)(const void *x509);
typedef int (*x509_get_signature_nid_fn)(const void *x509);
typedef int (*x509_get_signature_info_fn)(void *x509, int *mdnid, int *pknid, int *secbits, uint32_t *flags);
typedef int (*evp_pkey_get_int_fn)(const void *pkey);
typedef int (*evp_pkey_get_group_name_fn)(const void *pkey, char *name, size_t size, size_t *length);
typedef void (*evp_pkey_free_fn)(void *pkey);
typedef const char *(*obj_nid2name_fn)(int nid);

static struct {
    ssl_ctrl_fn ctrl;
    ssl_group_to_name_fn group_to_name;
    ssl_get0_peer_certificate_fn peer_certificate;
    ssl_get_peer_cert_chain_fn peer_chain;
    ssl_get_version_fn get_version;
    ssl_get_current_cipher_fn current_cipher;
    ssl_cipher_get_name_fn cipher_name;
    sk_num_fn sk_num;
    x509_get0_pubkey_fn get0_pubkey;
    x509_get_signature_nid_fn signature_nid;
    x509_get_signature_info_fn signature_info;
    evp_pkey_get_int_fn pkey_base_id;
    evp_pkey_get_int_fn pkey_bits;
    evp_pkey_get_group_name_fn pkey_group_name;
    evp_pkey_free_fn pkey_free;
    obj_nid2name_fn nid2ln;
    obj_nid2name_fn nid2sn;
    int ready;
} peer_api;
static pthread_once_t peer_api_once = PTHREAD_ONCE_INIT;

static void *object_base(const void *address) {
    Dl_info info;
    memset(&info, 0, sizeof(info));
    if (address == NULL || dladdr(address, &info) == 0) return NULL;
    return info.dli_fbase;
}

static void resolve_peer_api(void) {
    Dl_info info;
    memset(&info, 0, sizeof(info));
    if (dladdr((const void *)&curl_version_info, &info) == 0 || info.dli_fname == NULL) return;
    void *curl = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (curl == NULL) return;
    peer_api.ctrl = (ssl_ctrl_fn)dlsym(curl, "SSL_ctrl");
    peer_api.group_to_name = (ssl_group_to_name_fn)dlsym(curl, "SSL_group_to_name");
    peer_api.peer_certificate = (ssl_get0_peer_certificate_fn)dlsym(curl, "SSL_get0_peer_certificate");
    peer_api.peer_chain = (ssl_get_peer_cert_chain_fn)dlsym(curl, "SSL_get_peer_cert_chain");
    peer_api.get_version = (ssl_get_version_fn)dlsym(curl, "SSL_get_version");
    peer_api.current_cipher = (ssl_get_current_cipher_fn)dlsym(curl, "SSL_get_current_cipher");
    peer_api.cipher_name = (ssl_cipher_get_name_fn)dlsym(curl, "SSL_CIPHER_get_name");
    peer_api.sk_num = (sk_num_fn)dlsym(curl, "OPENSSL_sk_num");
    peer_api.get0_pubkey = (x509_get0_pubkey_fn)dlsym(curl, "X509_get0_pubkey");
    peer_api.signature_nid = (x509_get_signature_nid_fn)dlsym(curl, "X509_get_signature_nid");
    peer_api.signature_info = (x509_get_signature_info_fn)dlsym(curl, "X509_get_signature_info");
    peer_api.pkey_base_id = (evp_pkey_get_int_fn)dlsym(curl, "EVP_PKEY_get_base_id");
    peer_api.pkey_bits = (evp_pkey_get_int_fn)dlsym(curl, "EVP_PKEY_get_bits");
    peer_api.pkey_group_name = (evp_pkey_get_group_name_fn)dlsym(curl, "EVP_PKEY_get_group_name");
    peer_api.pkey_free = (evp_pkey_free_fn)dlsym(curl, "EVP_PKEY_free");
    peer_api.nid2ln = (obj_nid2name_fn)dlsym(curl, "OBJ_nid2ln");
    peer_api.nid2sn = (obj_nid2name_fn)dlsym(curl, "OBJ_nid2sn");
    const void *ssl_functions[] = {(const void *)peer_api.ctrl, (const void *)peer_api.group_to_name,
                                   (const void *)peer_api.peer_certificate, (const void *)peer_api.peer_chain,
                                   (const void *)peer_api.get_version, (const void *)peer_api.current_cipher,
                                   (const void *)peer_api.cipher_name};
    const void *crypto_functions[] = {(const void *)peer_api.sk_num, (const void *)peer_api.get0_pubkey,
                                      (const void *)peer_api.signature_nid, (const void *)peer_api.signature_info,
                                      (const void *)peer_api.pkey_base_id, (const void *)peer_api.pkey_bits,
                                      (const void *)peer_api.pkey_group_name, (const void *)peer_api.pkey_free,
                                      (const void *)peer_api.nid2ln, (const void *)peer_api.nid2sn};
    void *ssl_base = object_base(ssl_functions[0]);
    for (size_t i = 0; i < sizeof(ssl_functions) / sizeof(ssl_functions[0]); i++) {
        if (ssl_functions[i] == NULL || object_base(ssl_functions[i]) != ssl_base) return;
    }
    void *crypto_base = object_base(crypto_functions[0]);
    for (size_t i = 0; i < sizeof(crypto_functions) / sizeof(crypto_functions[0]); i++) {
        if (crypto_functions[i] == NULL || object_base(crypto_functions[i]) != crypto_base) return;
    }
    peer_api.ready = ssl_base != NULL && crypto_base != NULL;
}

static void put(char *dst, size_t cap, const char *src) {
    if (cap == 0) return;
    if (src == NULL) { dst[0] = 0; return; }
    size_t len = strlen(src);
    if (len >= cap) len = cap - 1;
    memcpy(dst, src, len);
    dst[len] = 0;
}

static void key_type_name(int id, char *out, size_t cap) {
    switch (id) {
    case SONDE_NID_RSA: put(out, cap, "RSA"); break;
    case SONDE_NID_RSA_PSS: put(out, cap, "RSA-PSS"); break;
    case SONDE_NID_DSA: put(out, cap, "DSA"); break;
    case SONDE_NID_DH: case SONDE_NID_DHX: put(out, cap, "DH"); break;
    case SONDE_NID_EC: put(out, cap, "EC"); break;
    case SONDE_NID_X25519: put(out, cap, "X25519"); break;
    case SONDE_NID_X448: put(out, cap, "X448"); break;
    case SONDE_NID_ED25519: put(out, cap, "ED25519"); break;
    case SONDE_NID_ED448: put(out, cap, "ED448"); break;
    default: put(out, cap, id > 0 ? peer_api.nid2sn(id) : ""); break;
    }
}

/* The group of a TLS 1.2 ephemeral key when SSL_get_negotiated_group has none. */
static void temporary_key_group(const void *ssl, char *out, size_t cap) {
    void *key = NULL;
    if (peer_api.ctrl(ssl, SONDE_SSL_CTRL_GET_PEER_TMP_KEY, 0, &key) <= 0 || key == NULL) return;
    int id = peer_api.pkey_base_id(key);
    if (id == SONDE_NID_EC) {
        size_t length = 0;
        if (peer_api.pkey_group_name(key, out, cap, &length) != 1) out[0] = 0;
    } else if (id == SONDE_NID_DH || id == SONDE_NID_DHX) {
        char text[32];
        int bits = peer_api.pkey_bits(key);
        snprintf(text, sizeof(text), "DH %d", bits > 0 ? bits : 0);
        put(out, cap, text);
    } else {
        key_type_name(id, out, cap);
    }
    peer_api.pkey_free(key);
}

int sonde_read_tls_peer(CURL *handle, sonde_tls_peer *out) {
    memset(out, 0, sizeof(*out));
    out->peer_chain_length = -1;
    pthread_once(&peer_api_once, resolve_peer_api);
    if (!peer_api.ready) return 0;
    struct curl_tlssessioninfo *session = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_TLS_SSL_PTR, &session) != CURLE_OK || session == NULL) return 0;
    if (session->backend != CURLSSLBACKEND_OPENSSL || session->internals == NULL) return 0;
    const void *ssl = session->internals;
    put(out->version, sizeof(out->version), peer_api.get_version(ssl));
    const void *cipher = peer_api.current_cipher(ssl);
    put(out->cipher, sizeof(out->cipher), cipher ? peer_api.cipher_name(cipher) : "");
    long group = peer_api.ctrl(ssl, SONDE_SSL_CTRL_GET_NEGOTIATED_GROUP, 0, NULL);
    if (group > 0) put(out->group, sizeof(out->group), peer_api.group_to_name(ssl, (int)group));
    if (out->group[0] == 0) temporary_key_group(ssl, out->group, sizeof(out->group));
    void *leaf = peer_api.peer_certificate(ssl);
    if (leaf != NULL) {
        void *key = peer_api.get0_pubkey(leaf);
        if (key != NULL) {
            int id = peer_api.pkey_base_id(key);
            key_type_name(id, out->key_type, sizeof(out->key_type));
            int bits = peer_api.pkey_bits(key);
            out->key_bits = bits > 0 ? bits : 0;
            if (id == SONDE_NID_EC) {
                size_t length = 0;
                if (peer_api.pkey_group_name(key, out->key_group, sizeof(out->key_group), &length) != 1) out->key_group[0] = 0;
            }
        }
        int signature = peer_api.signature_nid(leaf);
        put(out->signature, sizeof(out->signature), signature > 0 ? peer_api.nid2ln(signature) : "");
        int digest = 0, public_key = 0, security_bits = 0;
        uint32_t flags = 0;
        if (peer_api.signature_info(leaf, &digest, &public_key, &security_bits, &flags) == 1 && digest > 0) {
            put(out->signature_digest, sizeof(out->signature_digest), peer_api.nid2sn(digest));
        }
    }
    void *chain = peer_api.peer_chain(ssl);
    if (chain != NULL) out->peer_chain_length = peer_api.sk_num(chain);
    const unsigned char *ocsp = NULL;
    long ocsp_length = peer_api.ctrl(ssl, SONDE_SSL_CTRL_GET_TLSEXT_STATUS_REQ_OCSP_RESP, 0, &ocsp);
    out->stapled_ocsp_length = ocsp != NULL && ocsp_length > 0 ? ocsp_length : 0;
    out->valid = 1;
    return 1;
}
