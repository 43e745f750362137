#define _GNU_SOURCE
#include "CLinkShim.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int copy_name(char destination[IFNAMSIZ], const char *name) {
    size_t length = strlen(name);
    if (length == 0 || length >= IFNAMSIZ) return -EINVAL;
    memset(destination, 0, IFNAMSIZ);
    memcpy(destination, name, length);
    return 0;
}

int sonde_link_tun_open(const char *name) {
    struct ifreq request;
    memset(&request, 0, sizeof request);
    if (copy_name(request.ifr_name, name) != 0) return -EINVAL;
    request.ifr_flags = IFF_TUN | IFF_NO_PI;
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -errno;
    if (ioctl(fd, TUNSETIFF, &request) < 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

static int control_socket(void) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    return fd < 0 ? -errno : fd;
}

static void set_ipv4(struct sockaddr *target, uint32_t address) {
    struct sockaddr_in in;
    memset(&in, 0, sizeof in);
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = address;
    memcpy(target, &in, sizeof in);
}

int sonde_link_set_address(const char *name, uint32_t address) {
    struct ifreq request;
    memset(&request, 0, sizeof request);
    if (copy_name(request.ifr_name, name) != 0) return -EINVAL;
    int fd = control_socket();
    if (fd < 0) return fd;
    int result = 0;
    set_ipv4(&request.ifr_addr, address);
    if (ioctl(fd, SIOCSIFADDR, &request) < 0) result = -errno;
    if (result == 0) {
        set_ipv4(&request.ifr_netmask, 0xffffffffu);
        if (ioctl(fd, SIOCSIFNETMASK, &request) < 0) result = -errno;
    }
    close(fd);
    return result;
}

int sonde_link_set_up(const char *name) {
    struct ifreq request;
    memset(&request, 0, sizeof request);
    if (copy_name(request.ifr_name, name) != 0) return -EINVAL;
    int fd = control_socket();
    if (fd < 0) return fd;
    int result = 0;
    if (ioctl(fd, SIOCGIFFLAGS, &request) < 0) {
        result = -errno;
    } else {
        request.ifr_flags |= IFF_UP;
        if (ioctl(fd, SIOCSIFFLAGS, &request) < 0) result = -errno;
    }
    close(fd);
    return result;
}

int sonde_link_set_tx_queue_length(const char *name, int packets) {
    if (packets < 0) return -EINVAL;
    struct ifreq request;
    memset(&request, 0, sizeof request);
    if (copy_name(request.ifr_name, name) != 0) return -EINVAL;
    int fd = control_socket();
    if (fd < 0) return fd;
    request.ifr_qlen = packets;
    int result = ioctl(fd, SIOCSIFTXQLEN, &request) < 0 ? -errno : 0;
    close(fd);
    return result;
}

int sonde_link_add_route(const char *name, uint32_t destination, int prefix) {
    if (prefix != 0 && prefix != 32) return -EINVAL;
    char device[IFNAMSIZ];
    if (copy_name(device, name) != 0) return -EINVAL;
    struct rtentry route;
    memset(&route, 0, sizeof route);
    set_ipv4(&route.rt_dst, prefix == 32 ? destination : 0);
    set_ipv4(&route.rt_genmask, prefix == 32 ? 0xffffffffu : 0);
    set_ipv4(&route.rt_gateway, 0);
    route.rt_flags = RTF_UP | (prefix == 32 ? RTF_HOST : 0);
    route.rt_dev = device;
    int fd = control_socket();
    if (fd < 0) return fd;
    int result = ioctl(fd, SIOCADDRT, &route) < 0 ? -errno : 0;
    close(fd);
    return result;
}

/* struct in6_ifreq as <linux/ipv6.h> declares it (that header clashes with <netinet/in.h>). */
struct sonde_in6_ifreq {
    struct in6_addr ifr6_addr;
    uint32_t ifr6_prefixlen;
    int ifr6_ifindex;
};

static int interface_index(int fd, const char *name) {
    struct ifreq request;
    memset(&request, 0, sizeof request);
    if (copy_name(request.ifr_name, name) != 0) return -EINVAL;
    if (ioctl(fd, SIOCGIFINDEX, &request) < 0) return -errno;
    return request.ifr_ifindex;
}

int sonde_link_set_address6(const char *name, const uint8_t *address, int prefix) {
    if (prefix < 0 || prefix > 128) return -EINVAL;
    int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    int index = interface_index(fd, name);
    if (index < 0) { close(fd); return index; }
    struct sonde_in6_ifreq request;
    memset(&request, 0, sizeof request);
    memcpy(&request.ifr6_addr, address, 16);
    request.ifr6_prefixlen = (uint32_t)prefix;
    request.ifr6_ifindex = index;
    int result = ioctl(fd, SIOCSIFADDR, &request) < 0 ? -errno : 0;
    close(fd);
    return result;
}

int sonde_link_add_route6(const char *name, const uint8_t *destination, int prefix) {
    if (prefix < 0 || prefix > 128) return -EINVAL;
    int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    int index = interface_index(fd, name);
    if (index < 0) { close(fd); return index; }
    struct in6_rtmsg route;
    memset(&route, 0, sizeof route);
    memcpy(&route.rtmsg_dst, destination, 16);
    route.rtmsg_dst_len = (uint16_t)prefix;
    route.rtmsg_ifindex = index;
    route.rtmsg_metric = 1;
    route.rtmsg_flags = RTF_UP;
    int result = ioctl(fd, SIOCADDRT, &route) < 0 ? -errno : 0;
    close(fd);
    return result;
}

int sonde_link_set_mtu(const char *name, int mtu) {
    struct ifreq request;
    memset(&request, 0, sizeof request);
    if (copy_name(request.ifr_name, name) != 0) return -EINVAL;
    int fd = control_socket();
    if (fd < 0) return fd;
    request.ifr_mtu = mtu;
    int result = ioctl(fd, SIOCSIFMTU, &request) < 0 ? -errno : 0;
    close(fd);
    return result;
}

int sonde_link_unshare_net(void) { return unshare(CLONE_NEWNET) < 0 ? -errno : 0; }

int sonde_link_setns_net(int fd) { return setns(fd, CLONE_NEWNET) < 0 ? -errno : 0; }

int sonde_link_unshare_mount_slave(void) {
    if (unshare(CLONE_NEWNS) < 0) return -errno;
    return mount("none", "/", NULL, MS_REC | MS_SLAVE, NULL) < 0 ? -errno : 0;
}

int sonde_link_setns_mount(int fd) {
    int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    int result = 0;
    if (unshare(CLONE_FS) < 0 || setns(fd, CLONE_NEWNS) < 0) result = -errno;
    if (cwd >= 0) {
        if (result == 0 && fchdir(cwd) < 0) result = -errno;
        close(cwd);
    }
    return result;
}

int sonde_link_bind_mount(const char *source, const char *target) {
    return mount(source, target, NULL, MS_BIND, NULL) < 0 ? -errno : 0;
}

int sonde_link_unmount(const char *target) { return umount2(target, MNT_DETACH) < 0 ? -errno : 0; }

int sonde_link_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0) < 0 ? -errno : 0;
}

int sonde_link_set_fifo(int priority) {
    struct sched_param parameter;
    memset(&parameter, 0, sizeof parameter);
    parameter.sched_priority = priority;
    int error = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameter);
    return error == 0 ? 0 : -error;
}

int sonde_link_gettid(void) { return (int)syscall(SYS_gettid); }

int sonde_link_has_capability(int capability) {
    if (capability < 0 || capability >= 64) return -EINVAL;
    struct __user_cap_header_struct header;
    struct __user_cap_data_struct data[2];
    memset(&header, 0, sizeof header);
    memset(data, 0, sizeof data);
    header.version = _LINUX_CAPABILITY_VERSION_3;
    header.pid = 0;
    if (syscall(SYS_capget, &header, data) < 0) return -errno;
    return (data[capability / 32].effective & (1u << (capability % 32))) ? 1 : 0;
}

int sonde_link_epoll_create(void) {
    int fd = epoll_create1(EPOLL_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int sonde_link_epoll_add(int epoll, int fd, int tag) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLIN;
    event.data.u32 = (uint32_t)tag;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) < 0 ? -errno : 0;
}

int sonde_link_epoll_wait_until(int epoll, int *tags, int capacity, int64_t deadline_ns) {
    struct epoll_event events[16];
    if (capacity > 16) capacity = 16;
    struct timespec timeout, *pointer = NULL;
    if (deadline_ns >= 0) {
        int64_t left = deadline_ns - sonde_link_now();
        if (left < 0) left = 0;
        timeout.tv_sec = left / 1000000000;
        timeout.tv_nsec = left % 1000000000;
        pointer = &timeout;
    }
    int count = epoll_pwait2(epoll, events, capacity, pointer, NULL);
    if (count < 0) return -errno;
    for (int index = 0; index < count; index++) tags[index] = (int)events[index].data.u32;
    return count;
}

int sonde_link_eventfd(void) {
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int64_t sonde_link_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* libnftables, opened once with dlopen: nft's own library (Debian package nftables), so sonde needs
   neither its headers to build nor a process per command. */
struct nft_ctx;
static struct {
    void *handle;
    struct nft_ctx *(*ctx_new)(uint32_t);
    void (*ctx_free)(struct nft_ctx *);
    void (*output_set_flags)(struct nft_ctx *, unsigned int);
    int (*buffer_output)(struct nft_ctx *);
    int (*buffer_error)(struct nft_ctx *);
    const char *(*get_output)(struct nft_ctx *);
    const char *(*get_error)(struct nft_ctx *);
    int (*run)(struct nft_ctx *, const char *);
} nft;
static pthread_once_t nft_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t nft_mutex = PTHREAD_MUTEX_INITIALIZER;

static void nft_load(void) {
    void *handle = dlopen("libnftables.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    nft.ctx_new = (struct nft_ctx *(*)(uint32_t))dlsym(handle, "nft_ctx_new");
    nft.ctx_free = (void (*)(struct nft_ctx *))dlsym(handle, "nft_ctx_free");
    nft.output_set_flags = (void (*)(struct nft_ctx *, unsigned int))dlsym(handle, "nft_ctx_output_set_flags");
    nft.buffer_output = (int (*)(struct nft_ctx *))dlsym(handle, "nft_ctx_buffer_output");
    nft.buffer_error = (int (*)(struct nft_ctx *))dlsym(handle, "nft_ctx_buffer_error");
    nft.get_output = (const char *(*)(struct nft_ctx *))dlsym(handle, "nft_ctx_get_output_buffer");
    nft.get_error = (const char *(*)(struct nft_ctx *))dlsym(handle, "nft_ctx_get_error_buffer");
    nft.run = (int (*)(struct nft_ctx *, const char *))dlsym(handle, "nft_run_cmd_from_buffer");
    if (!nft.ctx_new || !nft.ctx_free || !nft.output_set_flags || !nft.buffer_output || !nft.buffer_error
        || !nft.get_output || !nft.get_error || !nft.run) {
        dlclose(handle);
        memset(&nft, 0, sizeof nft);
        return;
    }
    nft.handle = handle;
}

static void copy_text(char *destination, size_t capacity, const char *text) {
    if (destination == NULL || capacity == 0) return;
    snprintf(destination, capacity, "%s", text == NULL ? "" : text);
}

int sonde_link_nft_available(void) {
    pthread_once(&nft_once, nft_load);
    return nft.handle != NULL ? 1 : 0;
}

int sonde_link_nft_run(const char *commands, int json, char *output, size_t output_capacity,
                       char *error, size_t error_capacity) {
    copy_text(output, output_capacity, "");
    copy_text(error, error_capacity, "");
    if (!sonde_link_nft_available()) return -ENOENT;
    pthread_mutex_lock(&nft_mutex);
    int result = 0;
    struct nft_ctx *context = nft.ctx_new(0);
    if (context == NULL) {
        result = -ENOMEM;
    } else {
        if (json) nft.output_set_flags(context, 1u << 4); /* NFT_CTX_OUTPUT_JSON */
        if (nft.buffer_output(context) != 0 || nft.buffer_error(context) != 0) {
            result = -ENOMEM;
        } else {
            if (nft.run(context, commands) != 0) result = -EIO;
            const char *text = nft.get_output(context);
            copy_text(output, output_capacity, text);
            if (output != NULL && text != NULL && strlen(text) >= output_capacity && result == 0) result = -E2BIG;
            copy_text(error, error_capacity, nft.get_error(context));
        }
        nft.ctx_free(context);
    }
    pthread_mutex_unlock(&nft_mutex);
    return result;
}

int sonde_link_flock(int fd, int exclusive_nonblocking) {
    return flock(fd, exclusive_nonblocking ? (LOCK_EX | LOCK_NB) : LOCK_UN) < 0 ? -errno : 0;
}
