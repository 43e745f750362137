#define _GNU_SOURCE
#include "CPingShim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int sonde_ping_open(int family, int try_datagram, sonde_ping_socket *out, int *datagram_errno) {
    if (datagram_errno) *datagram_errno = 0;
    if (!out || (family != AF_INET && family != AF_INET6)) return -EINVAL;
    out->fd = -1;
    out->family = family;
    out->privileged = 0;
    out->hop_limit_on = 0;
    int protocol = family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6;
    if (try_datagram) {
        int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
        if (fd >= 0) {
            out->fd = fd;
            return 0;
        }
        if (datagram_errno) *datagram_errno = errno;
    }
    int fd = socket(family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
    if (fd < 0) return -errno;
    out->fd = fd;
    out->privileged = 1;
    return 0;
}

int sonde_ping_configure(sonde_ping_socket *s, int ttl, int dont_fragment) {
    if (!s || s->fd < 0) return -EBADF;
    int on = 1;
    if (s->family == AF_INET) {
        if (ttl >= 1 && ttl <= 255 && setsockopt(s->fd, IPPROTO_IP, IP_TTL, &ttl, sizeof ttl) != 0) return -errno;
        if (dont_fragment) {
            int mode = IP_PMTUDISC_DO;
            if (setsockopt(s->fd, IPPROTO_IP, IP_MTU_DISCOVER, &mode, sizeof mode) != 0) return -errno;
        }
        s->hop_limit_on = setsockopt(s->fd, IPPROTO_IP, IP_RECVTTL, &on, sizeof on) == 0;
    } else {
        if (ttl >= 1 && ttl <= 255 && setsockopt(s->fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof ttl) != 0) return -errno;
        s->hop_limit_on = setsockopt(s->fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &on, sizeof on) == 0;
    }
    return 0;
}

int sonde_ping_send(const sonde_ping_socket *s, const char *address, const uint8_t *message, size_t length) {
    if (!s || s->fd < 0) return -EBADF;
    if (!address || !message) return -EINVAL;
    struct sockaddr_storage storage;
    memset(&storage, 0, sizeof storage);
    socklen_t size;
    if (s->family == AF_INET) {
        struct sockaddr_in *v4 = (struct sockaddr_in *)&storage;
        v4->sin_family = AF_INET;
        if (inet_pton(AF_INET, address, &v4->sin_addr) != 1) return -EINVAL;
        size = sizeof *v4;
    } else {
        struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&storage;
        v6->sin6_family = AF_INET6;
        if (inet_pton(AF_INET6, address, &v6->sin6_addr) != 1) return -EINVAL;
        size = sizeof *v6;
    }
    ssize_t sent = sendto(s->fd, message, length, 0, (struct sockaddr *)&storage, size);
    if (sent < 0) return -errno;
    return (size_t)sent == length ? 0 : -EMSGSIZE;
}

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

ssize_t sonde_ping_receive(const sonde_ping_socket *s, int timeout_ms, uint8_t *buffer, size_t capacity,
                           char *from, size_t from_capacity, int *hop_limit) {
    if (!s || s->fd < 0) return -EBADF;
    if (!buffer || !from || from_capacity < INET6_ADDRSTRLEN || !hop_limit) return -EINVAL;
    *hop_limit = -1;
    from[0] = 0;
    long long deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    // One poll and one read per datagram; EINTR and EAGAIN (a datagram taken by nobody else, or
    // dropped for a bad checksum) poll again until the deadline.
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0) return -ETIMEDOUT;
        struct pollfd pfd = {.fd = s->fd, .events = POLLIN};
        int ready = poll(&pfd, 1, (int)(left > 2147483647LL ? 2147483647LL : left));
        if (ready < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (ready == 0) return -ETIMEDOUT;
        struct sockaddr_storage peer;
        memset(&peer, 0, sizeof peer);
        union {
            char bytes[256];
            struct cmsghdr align;
        } control;
        struct iovec iov = {.iov_base = buffer, .iov_len = capacity};
        struct msghdr msg;
        memset(&msg, 0, sizeof msg);
        msg.msg_name = &peer;
        msg.msg_namelen = sizeof peer;
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.bytes;
        msg.msg_controllen = sizeof control.bytes;
        ssize_t got = recvmsg(s->fd, &msg, 0);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            return -errno;
        }
        if ((size_t)got > capacity) got = (ssize_t)capacity;  // MSG_TRUNC: only what fits was read
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            int value;
            if (c->cmsg_len < CMSG_LEN(sizeof value)) continue;
            if ((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL) ||
                (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPLIMIT)) {
                memcpy(&value, CMSG_DATA(c), sizeof value);
                if (value >= 0 && value <= 255) *hop_limit = value;
            }
        }
        if (peer.ss_family == AF_INET) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)&peer)->sin_addr, from, (socklen_t)from_capacity);
        } else if (peer.ss_family == AF_INET6) {
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&peer)->sin6_addr, from, (socklen_t)from_capacity);
        }
        if (s->family == AF_INET && s->privileged) {
            // A raw IPv4 socket reads the IP header too: its length from IHL, checked against the datagram.
            if (got < 20) continue;
            size_t header = (size_t)(buffer[0] & 0x0F) * 4;
            if ((buffer[0] >> 4) != 4 || header < 20 || header > (size_t)got) continue;
            if (*hop_limit < 0) *hop_limit = buffer[8];
            memmove(buffer, buffer + header, (size_t)got - header);
            got -= (ssize_t)header;
        }
        return got;
    }
}

void sonde_ping_close(sonde_ping_socket *s) {
    if (s && s->fd >= 0) {
        close(s->fd);
        s->fd = -1;
    }
}

static uint16_t sequence;
static pthread_once_t sequence_once = PTHREAD_ONCE_INIT;

static void seed_sequence(void) {
    uint16_t start = 0;
    if (getrandom(&start, sizeof start, GRND_NONBLOCK) != (ssize_t)sizeof start) start = (uint16_t)(now_ms() & 0xFFFF);
    __atomic_store_n(&sequence, start, __ATOMIC_RELEASE);
}

uint16_t sonde_ping_next_sequence(void) {
    pthread_once(&sequence_once, seed_sequence);
    return __atomic_add_fetch(&sequence, 1, __ATOMIC_ACQ_REL);
}
