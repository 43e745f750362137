/* The libcurl floor for `make bench`: the fastest a libcurl multi loop on this machine fetches
 * N URLs with P transfers at once over HTTP/1.1, recording nothing but the count. sonde drives
 * the same libcurl the same way and records every transaction's metrics on top, so this bounds
 * from above what sonde can reach. Usage: libcurl-multi-floor URL TOTAL PARALLEL
 * Prints one line: "<requests per second>". */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static size_t discard(char *data, size_t size, size_t count, void *user) {
    (void)data; (void)user;
    return size * count;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s URL TOTAL PARALLEL\n", argv[0]); return 64; }
    const char *url = argv[1];
    int total = atoi(argv[2]), parallel = atoi(argv[3]);
    if (total <= 0 || parallel <= 0) { fprintf(stderr, "TOTAL and PARALLEL must be positive\n"); return 64; }
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    int started = 0, done = 0, failed = 0;
    struct timespec begin, end;
    clock_gettime(CLOCK_MONOTONIC, &begin);
    for (int i = 0; i < parallel && started < total; i++, started++) {
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_URL, url);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
        /* As sonde sets it: without it libcurl installs and restores a SIGPIPE handler around every
         * call (three rt_sigaction calls per transfer); with it, it sends with MSG_NOSIGNAL. */
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_multi_add_handle(multi, easy);
    }
    /* Bounded: every iteration either finishes transfers or waits at most 1 s; give up after 120 s. */
    while (done < total) {
        int running = 0, queued = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            if (message->data.result != CURLE_OK) failed++;
            done++;
            curl_multi_remove_handle(multi, easy);
            if (started < total) { started++; curl_multi_add_handle(multi, easy); } else curl_easy_cleanup(easy);
        }
        clock_gettime(CLOCK_MONOTONIC, &end);
        if (end.tv_sec - begin.tv_sec > 120) { fprintf(stderr, "gave up after 120 s\n"); return 1; }
        if (done < total) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - begin.tv_sec) + (double)(end.tv_nsec - begin.tv_nsec) / 1e9;
    if (failed) { fprintf(stderr, "%d transfers failed\n", failed); return 1; }
    printf("%.0f\n", total / seconds);
    curl_multi_cleanup(multi);
    return 0;
}
