/* The libcurl floor under serve's `/probe` over https (`make bench` section 9 c): N sequential GETs
 * of one URL, each on a new easy handle with a fresh TCP connection and a full TLS handshake
 * (CURLOPT_FRESH_CONNECT, FORBID_REUSE, SSL_SESSIONID_CACHE 0), verified against CAFILE, offering
 * blackbox's key-exchange groups, CERTINFO on (as sonde's probes), on whatever libcurl it is
 * linked against. MODE says what is kept between transfers:
 *   new       a new multi handle per transfer (what /probe does today): the CA file is parsed and
 *             an SSL_CTX built for every connection
 *   kept      one multi handle for all transfers: libcurl's CA cache (CURLOPT_CA_CACHE_TIMEOUT,
 *             kept in the multi handle) may spare the parse; the SSL_CTX is still built each time
 *   kept-nocapath  as kept, with CURLOPT_CAPATH cleared: libcurl caches the store only when it
 *             comes from a CA file alone, and a libcurl built with a default CA path (Debian's)
 *             never caches otherwise
 * Prints one line: "<median ms> <CPU µs per transfer> <new connections> <libcurl version>".
 * Usage: libcurl-fresh-tls URL TOTAL MODE CAFILE. Exits 1 on the first failed transfer. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static size_t discard(char *data, size_t size, size_t count, void *user) {
    (void)data; (void)user;
    return size * count;
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: %s URL TOTAL new|kept|kept-nocapath CAFILE\n", argv[0]); return 64; }
    int total = atoi(argv[2]);
    if (total <= 0 || total > 100000) { fprintf(stderr, "TOTAL must be 1..100000\n"); return 64; }
    int keep = !strncmp(argv[3], "kept", 4), nocapath = !strcmp(argv[3], "kept-nocapath");
    if (!keep && strcmp(argv[3], "new")) { fprintf(stderr, "MODE must be new, kept or kept-nocapath\n"); return 64; }
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *kept = keep ? curl_multi_init() : NULL;
    double *times = calloc((size_t)total, sizeof(double));
    if (!times) return 1;
    long connections = 0;
    double cpu_start = cpu_seconds();
    for (int i = 0; i < total; i++) {
        double start = seconds();
        CURLM *multi = kept ? kept : curl_multi_init();
        CURL *easy = curl_easy_init();
        if (!multi || !easy) return 1;
        curl_easy_setopt(easy, CURLOPT_URL, argv[1]);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_CAINFO, argv[4]);
        if (nocapath) curl_easy_setopt(easy, CURLOPT_CAPATH, NULL);
        curl_easy_setopt(easy, CURLOPT_FRESH_CONNECT, 1L);
        curl_easy_setopt(easy, CURLOPT_FORBID_REUSE, 1L);
        curl_easy_setopt(easy, CURLOPT_SSL_SESSIONID_CACHE, 0L);
        curl_easy_setopt(easy, CURLOPT_SSL_EC_CURVES, "X25519:P-256:P-384:P-521");
        curl_easy_setopt(easy, CURLOPT_CERTINFO, 1L);
        curl_multi_add_handle(multi, easy);
        int running = 1;
        for (int turns = 0; running && turns < 100000; turns++) {
            curl_multi_perform(multi, &running);
            if (running) curl_multi_poll(multi, NULL, 0, 100, NULL);
        }
        int queued;
        CURLMsg *message;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg == CURLMSG_DONE && message->data.result != CURLE_OK) {
                fprintf(stderr, "transfer %d: %s\n", i, curl_easy_strerror(message->data.result));
                return 1;
            }
        }
        long count = 0;
        curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &count);
        connections += count;
        curl_multi_remove_handle(multi, easy);
        curl_easy_cleanup(easy);
        if (!kept) curl_multi_cleanup(multi);
        times[i] = seconds() - start;
    }
    double cpu = cpu_seconds() - cpu_start;
    qsort(times, (size_t)total, sizeof(double), by_value);
    printf("%.3f %.0f %ld %s\n", times[total / 2] * 1e3, cpu / total * 1e6, connections, curl_version());
    if (kept) curl_multi_cleanup(kept);
    free(times);
    return 0;
}
