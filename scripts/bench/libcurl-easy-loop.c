/* The bare libcurl loop for `make bench` section 10: N sequential GETs of one URL on one easy
 * handle (its connection reused), recording nothing but the count, on whatever libcurl it is
 * linked against (the bench links the one sonde runs on). sonde does the same through a multi
 * handle and records every transaction's metrics on top: the difference is what sonde adds.
 * Usage: libcurl-easy-loop URL TOTAL HTTPVERSION [CAFILE]   (HTTPVERSION: 1.1, 2 or 3only)
 * Prints one line: "<seconds> <libcurl version>". Exits 1 on the first failed transfer. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t discard(char *data, size_t size, size_t count, void *user) {
    (void)data; (void)user;
    return size * count;
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: %s URL TOTAL HTTPVERSION [CAFILE]\n", argv[0]); return 64; }
    int total = atoi(argv[2]);
    if (total <= 0 || total > 10000000) { fprintf(stderr, "TOTAL must be 1..10000000\n"); return 64; }
    long version = !strcmp(argv[3], "3only") ? (long)CURL_HTTP_VERSION_3ONLY
                 : !strcmp(argv[3], "2") ? (long)CURL_HTTP_VERSION_2TLS : (long)CURL_HTTP_VERSION_1_1;
    curl_global_init(CURL_GLOBAL_ALL);
    CURL *easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, argv[1]);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, version);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    if (argc > 4) curl_easy_setopt(easy, CURLOPT_CAINFO, argv[4]);
    struct timespec begin, end;
    clock_gettime(CLOCK_MONOTONIC, &begin);
    for (int i = 0; i < total; i++) {
        CURLcode code = curl_easy_perform(easy);
        if (code != CURLE_OK) { fprintf(stderr, "transfer %d: %s\n", i, curl_easy_strerror(code)); return 1; }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("%.6f %s\n", (end.tv_sec - begin.tv_sec) + (end.tv_nsec - begin.tv_nsec) / 1e9, curl_version_info(CURLVERSION_NOW)->version);
    curl_easy_cleanup(easy);
    return 0;
}
