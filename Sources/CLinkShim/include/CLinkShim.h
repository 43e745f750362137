#ifndef SONDE_LINK_SHIM_H
#define SONDE_LINK_SHIM_H

#include <stddef.h>
#include <stdint.h>

// The few Linux calls of the link emulator's plumbing that Swift's Glibc module does not import
// well (ioctls with struct ifreq and struct rtentry, unshare/setns, mount, prctl, the scheduler).
// Every function acts on the calling thread's network namespace and returns 0 (or a descriptor)
// on success, -errno on failure. Addresses are IPv4 in network byte order.

/// Opens /dev/net/tun (non-blocking, close-on-exec) and attaches a TUN device called `name`
/// (IFF_TUN | IFF_NO_PI: raw IP packets). Returns the descriptor. The device is not persistent:
/// it goes away with the descriptor.
int sonde_link_tun_open(const char *name);
/// Gives interface `name` the address `address`/32.
int sonde_link_set_address(const char *name, uint32_t address);
/// Sets interface `name` up.
int sonde_link_set_up(const char *name);
/// Sets interface `name`'s transmit queue length (SIOCSIFTXQLEN): for a TUN, the number of
/// packets its ring holds for the reader before the kernel drops (and counts in tx_dropped).
int sonde_link_set_tx_queue_length(const char *name, int packets);
/// Adds a route to `destination`/`prefix` (0 or 32) through interface `name`, without a gateway.
int sonde_link_add_route(const char *name, uint32_t destination, int prefix);
/* An IPv6 address (16 bytes) with its prefix length on device `name`. 0 or -errno. */
int sonde_link_set_address6(const char *name, const uint8_t *address, int prefix);
/* An IPv6 route to destination/prefix (16 bytes; ::/0 for the default) through device `name`. 0 or -errno. */
int sonde_link_add_route6(const char *name, const uint8_t *destination, int prefix);
/* The device's MTU. 0 or -errno. */
int sonde_link_set_mtu(const char *name, int mtu);
/// unshare(CLONE_NEWNET) for the calling thread.
int sonde_link_unshare_net(void);
/// setns(fd, CLONE_NEWNET) for the calling thread.
int sonde_link_setns_net(int fd);
/// unshare(CLONE_NEWNS) for the calling thread (it implies CLONE_FS: the thread's root and cwd
/// become its own), then / made a recursive slave (mounts of the host's still propagate in, none
/// made here propagate out). 0 or -errno.
int sonde_link_unshare_mount_slave(void);
/// Moves the calling thread into mount namespace `fd` keeping its working directory: unshare(CLONE_FS)
/// (setns refuses a thread that shares its fs with others: libcurl's resolver threads, a thread's
/// siblings), setns(fd, CLONE_NEWNS), and fchdir back to the directory it was in (setns resets it to
/// the namespace's root). 0 or -errno.
int sonde_link_setns_mount(int fd);
/// mount(source, target, NULL, MS_BIND, NULL).
int sonde_link_bind_mount(const char *source, const char *target);
/// umount2(target, MNT_DETACH).
int sonde_link_unmount(const char *target);
/// prctl(PR_SET_TIMERSLACK, nanoseconds) for the calling thread.
int sonde_link_set_timer_slack(unsigned long nanoseconds);
/// SCHED_FIFO at `priority` for the calling thread (needs CAP_SYS_NICE).
int sonde_link_set_fifo(int priority);
/// The calling thread's Linux thread id.
int sonde_link_gettid(void);
/// Whether the calling thread has capability `capability` (CAP_NET_ADMIN 12, CAP_SYS_ADMIN 21)
/// in its effective set (1), not (0), or -errno.
int sonde_link_has_capability(int capability);

/// An epoll descriptor (close-on-exec).
int sonde_link_epoll_create(void);
/// Watches `fd` for input on `epoll`, reporting `tag` for it.
int sonde_link_epoll_add(int epoll, int fd, int tag);
/// Waits until `deadline_ns` on CLOCK_MONOTONIC at most (nanosecond resolution, epoll_pwait2;
/// -1: forever, a past deadline: do not wait) and writes the tags of ready descriptors to `tags`
/// (at most `capacity`); returns how many, or -errno (-EINTR when a signal came).
int sonde_link_epoll_wait_until(int epoll, int *tags, int capacity, int64_t deadline_ns);
/// An eventfd (non-blocking, close-on-exec), the emulator thread's stop signal.
int sonde_link_eventfd(void);
/// CLOCK_MONOTONIC in nanoseconds.
int64_t sonde_link_now(void);

/// Whether nftables' library (libnftables.so.1, Debian package nftables) could be opened: 1 or 0.
int sonde_link_nft_available(void);
/// Runs `commands` (nft's syntax, one transaction per line batch, as `nft -f`) through libnftables
/// in the calling thread's network namespace; `json` != 0 asks for JSON output. Writes nft's output
/// and error text (NUL-terminated, cut to the capacities) and returns 0, -ENOENT when the library
/// is missing, -EIO when nft refused the commands (see `error`), -E2BIG when the output was cut,
/// -ENOMEM. Calls are serialized by a mutex (libnftables keeps global state).
int sonde_link_nft_run(const char *commands, int json, char *output, size_t output_capacity,
                       char *error, size_t error_capacity);
/// flock(fd, LOCK_EX | LOCK_NB) when `exclusive_nonblocking` != 0, else flock(fd, LOCK_UN).
int sonde_link_flock(int fd, int exclusive_nonblocking);

#endif
