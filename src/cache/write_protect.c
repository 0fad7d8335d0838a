/* The write tracker's userfaultfd: see write_protect.h. */
#include "cache/write_protect.h"

#include "cache/track_util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Newer than some build machines' kernel headers (Debian 12 has 6.1's); the
 * running kernel decides, and the probe reports a kernel without them. */
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif

int ts_wp_open(char *why, size_t len)
{
    int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
    if (uffd < 0) {
        int err = errno;
        if (err == ENOSYS)
            say(why, len, "the kernel has no userfaultfd system call (or a seccomp filter hides it)");
        else if (err == EPERM)
            say(why, len, "userfaultfd is not permitted (seccomp filter or vm.unprivileged_userfaultfd)");
        else if (err == EINVAL)
            say(why, len, "the kernel lacks UFFD_USER_MODE_ONLY (Linux 5.11 or later is needed)");
        else
            say(why, len, "userfaultfd failed: %s", strerror(err));
        return -1;
    }
    /* WP_UNPOPULATED protects pages never touched too (a marker in the
     * empty page table entry), so that a first write to them is seen. */
    struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED};
    if (ioctl(uffd, UFFDIO_API, &api)) {
        close(uffd);
        say(why, len, "the kernel lacks asynchronous userfaultfd write protection (UFFD_FEATURE_WP_ASYNC, Linux 6.7)");
        return -1;
    }
    return uffd;
}

int ts_wp_register(int uffd, uintptr_t s, uintptr_t e)
{
    struct uffdio_register reg = {.range = {s, e - s}, .mode = UFFDIO_REGISTER_MODE_WP};
    return ioctl(uffd, UFFDIO_REGISTER, &reg) ? -1 : 0;
}

int ts_wp_protect(int uffd, uintptr_t s, uintptr_t e)
{
    struct uffdio_writeprotect wp = {.range = {s, e - s}, .mode = UFFDIO_WRITEPROTECT_MODE_WP};
    return ioctl(uffd, UFFDIO_WRITEPROTECT, &wp);
}

void ts_wp_unregister(int uffd, uintptr_t s, uintptr_t e)
{
    struct uffdio_range r = {s, e - s};
    ioctl(uffd, UFFDIO_UNREGISTER, &r);
}
