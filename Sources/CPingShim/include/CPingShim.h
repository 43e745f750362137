// CPingShim: the socket calls of serve's icmp prober (BlackboxICMPProber) that Swift cannot make
// well: recvmsg's control messages (CMSG_* are macros) for the reply's TTL or hop limit, the
// IPv4 header of a raw socket's datagram, and the process-wide echo sequence (an atomic).
//
// Threading: the functions are thread-safe; a socket is used by one probe (one thread) at a time.
#ifndef SONDE_PING_SHIM_H
#define SONDE_PING_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// One ICMP echo socket.
typedef struct {
    int fd;          ///< the descriptor, -1 when closed
    int family;      ///< AF_INET or AF_INET6
    int privileged;  ///< 1: a raw socket (SOCK_RAW), 0: an unprivileged ICMP datagram socket (SOCK_DGRAM)
    int hop_limit_on;///< 1 when IP_RECVTTL / IPV6_RECVHOPLIMIT is on (replies carry their TTL or hop limit)
} sonde_ping_socket;

/// Opens an echo socket of `family` (AF_INET or AF_INET6): an unprivileged datagram socket
/// (SOCK_DGRAM, IPPROTO_ICMP/ICMPV6; Linux allows it to the groups of net.ipv4.ping_group_range)
/// when `try_datagram` is 1, else (or when that is refused) a raw socket (root or CAP_NET_RAW).
/// The socket is non-blocking and close-on-exec. Returns 0, or -errno of the last attempt
/// (with `*datagram_errno` set to the datagram attempt's errno, 0 when it was not tried or worked).
int sonde_ping_open(int family, int try_datagram, sonde_ping_socket *out, int *datagram_errno);

/// Sets the outgoing TTL (IPv4) or unicast hop limit (IPv6) when `ttl` is 1 to 255, and for IPv4
/// with `dont_fragment` the DF bit on every datagram (IP_PMTUDISC_DO; a datagram larger than the
/// path's MTU then fails to send with EMSGSIZE). Turns on the reply's TTL or hop limit
/// (best effort: `hop_limit_on` says whether it is on). Returns 0 or -errno.
int sonde_ping_configure(sonde_ping_socket *socket, int ttl, int dont_fragment);

/// Sends `length` bytes (an ICMP message, header first) to `address` (numeric, of the socket's
/// family). Returns 0 or -errno (-EINVAL for an address that does not parse).
int sonde_ping_send(const sonde_ping_socket *socket, const char *address, const uint8_t *message, size_t length);

/// Waits at most `timeout_ms` for one datagram and reads it: the ICMP message (a raw IPv4
/// socket's IP header removed) into `buffer` (at most `capacity` bytes), the sender's numeric
/// address into `from` (NUL-terminated, `from_capacity` at least 46) and the datagram's TTL or hop
/// limit into `*hop_limit` (-1 when unknown). Returns the message's length, -ETIMEDOUT when
/// nothing came in time, or -errno.
ssize_t sonde_ping_receive(const sonde_ping_socket *socket, int timeout_ms, uint8_t *buffer, size_t capacity,
                           char *from, size_t from_capacity, int *hop_limit);

/// Closes the socket (idempotent).
void sonde_ping_close(sonde_ping_socket *socket);

/// The next echo sequence number of this process (a random start, then one more per call).
uint16_t sonde_ping_next_sequence(void);

#endif
