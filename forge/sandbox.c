/* sandbox.c - see sandbox.h. */
#define _GNU_SOURCE /* pipe2, unshare, memfd_create */
#include "sandbox.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef SOLBOOK_HAVE_SECCOMP
#include <seccomp.h>
#endif

#include "fsutil.h"
#include "process.h"

#define GIB ((rlim_t)1 << 30)

void sb_sandbox_limits_cuda(sb_sandbox_limits *l, double wall_s)
{
    memset(l, 0, sizeof *l);
    l->wall_s = wall_s;
    l->cpu_s = (rlim_t)wall_s + 10;
    l->data_bytes = 16 * GIB;
    /* SOLBOOK_FORGE_DATA_LIMIT_MB overrides (0: no limit), for drivers that
     * map more private writable memory at initialisation than usual. */
    const char *env = getenv("SOLBOOK_FORGE_DATA_LIMIT_MB");
    if (env && *env) {
        char *end;
        unsigned long long mb = strtoull(env, &end, 10);
        if (!*end && mb < (1ull << 40))
            l->data_bytes = (rlim_t)mb << 20;
    }
    l->as_bytes = 0;
    l->fsize_bytes = 1 * GIB;
    l->nofile = 256;
    l->disk_bytes = (rlim_t)SB_SANDBOX_DISK_MB << 20;
    l->max_tasks = SB_SANDBOX_MAX_TASKS;
}

void sb_sandbox_limits_compiler(sb_sandbox_limits *l, double wall_s)
{
    memset(l, 0, sizeof *l);
    l->wall_s = wall_s;
    l->cpu_s = (rlim_t)wall_s + 10;
    l->data_bytes = 8 * GIB;
    l->as_bytes = 0;
    l->fsize_bytes = 1 * GIB;
    l->nofile = 1024;
    l->runs_tools = 1;
    l->disk_bytes = (rlim_t)SB_SANDBOX_DISK_MB << 20;
    l->max_tasks = SB_SANDBOX_MAX_TASKS;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The child's environment: enough for nvcc and the CUDA runtime to work,
 * nothing else from the caller's. */
static char **make_env(const char *workdir)
{
    static const char *keep[] = {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
                                 "CUDA_HOME", "CUDA_PATH", "NVIDIA_VISIBLE_DEVICES"};
    size_t nkeep = sizeof keep / sizeof keep[0];
    char **env = calloc(nkeep + 4, sizeof *env);
    if (!env)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < nkeep; i++) {
        const char *v = getenv(keep[i]);
        if (!v)
            continue;
        size_t len = strlen(keep[i]) + strlen(v) + 2;
        if (!(env[n] = malloc(len)))
            goto oom;
        snprintf(env[n++], len, "%s=%s", keep[i], v);
    }
    const char *fixed[] = {"HOME=", "TMPDIR=", "LC_ALL=C"};
    for (size_t i = 0; i < 3; i++) {
        size_t len = strlen(fixed[i]) + (i < 2 ? strlen(workdir) : 0) + 1;
        if (!(env[n] = malloc(len)))
            goto oom;
        snprintf(env[n++], len, "%s%s", fixed[i], i < 2 ? workdir : "");
    }
    return env;
oom:
    for (size_t i = 0; i < n; i++)
        free(env[i]);
    free(env);
    return NULL;
}

static void free_env(char **env)
{
    for (size_t i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

static void set_limit(int resource, rlim_t value)
{
    if (value == 0)
        return;
    struct rlimit rl = {value, value};
    struct rlimit cur;
    if (getrlimit(resource, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < value)
        rl.rlim_cur = rl.rlim_max = cur.rlim_max;
    setrlimit(resource, &rl);
}

/* In the child before exec: the limits (bubblewrap and the program under
 * it inherit them). */
static void apply_limits(void *ctx)
{
    const sb_sandbox_limits *lim = ctx;
    struct rlimit core0 = {0, 0};
    setrlimit(RLIMIT_CORE, &core0);
    set_limit(RLIMIT_CPU, lim->cpu_s);
    set_limit(RLIMIT_DATA, lim->data_bytes);
    set_limit(RLIMIT_AS, lim->as_bytes);
    set_limit(RLIMIT_FSIZE, lim->fsize_bytes);
    set_limit(RLIMIT_NOFILE, lim->nofile);
}

/* ---- confinement: seccomp, Landlock, pid and network namespaces ---- */

/* Landlock constants newer than some distributions' headers; the values
 * are the kernel's ABI and do not change. */
#define LL_FS_REFER (1ULL << 13)     /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0)  /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)

/* struct landlock_ruleset_attr of ABI 6; older kernels get a prefix of it. */
struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

#define LL_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_WRITE (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
                  LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SYM |        \
                  LANDLOCK_ACCESS_FS_MAKE_FIFO | LL_FS_REFER | LL_FS_TRUNCATE)
#define LL_DEV (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)
/* The rights Landlock accepts on a rule for a file that is not a folder. */
#define LL_FILE_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | \
                        LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

/* The system's program and library folders (symbolic links are followed). */
static const char *const SYSTEM_DIRS[] = {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/opt"};
#define SYSTEM_DIRS_N (sizeof SYSTEM_DIRS / sizeof SYSTEM_DIRS[0])
/* What the dynamic loader and compiler drivers read of /etc. */
static const char *const SYSTEM_ETC[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                                         "/etc/alternatives"};
#define SYSTEM_ETC_N (sizeof SYSTEM_ETC / sizeof SYSTEM_ETC[0])
static const char *const PLAIN_DEVICES[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
#define PLAIN_DEVICES_N (sizeof PLAIN_DEVICES / sizeof PLAIN_DEVICES[0])

#define CONF_MAX_RULES 128

/* Everything the child needs to confine itself, prepared in the parent so
 * that the child only makes system calls. */
/* What the run's init and supervisor saw, in memory shared with the
 * parent (the program's exec drops it): read after the run however it
 * ended. */
typedef struct jail_report {
    int jailed;                    /* the pid and mount namespaces were made */
    unsigned peak_tasks;
    unsigned long long peak_disk;  /* bytes in use on the tmpfs */
    unsigned long long min_free;   /* bytes free on the tmpfs, at its lowest */
} jail_report;

typedef struct confine_ctx {
    const sb_sandbox_limits *lim;
    int confined;                         /* seccomp and Landlock too, else the bounds alone */
    int pidns_max;                        /* this kernel keeps pid_max per pid namespace */
    const char *workdir;                  /* real path */
    char tmpfs_opts[96];                  /* "size=N,nr_inodes=N,mode=700" */
    jail_report *report;
    int abi;                              /* Landlock ABI version */
    size_t nrules;
    char *rule_path[CONF_MAX_RULES];      /* owned */
    uint64_t rule_access[CONF_MAX_RULES];
    struct sock_fprog filter;             /* seccomp program; filter.filter owned */
} confine_ctx;

static int landlock_abi(void)
{
    long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return v < 0 ? 0 : (int)v;
}

static uint64_t landlock_handled_fs(int abi)
{
    uint64_t fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1: bits 0-12 */
    if (abi >= 2)
        fs |= LL_FS_REFER;
    if (abi >= 3)
        fs |= LL_FS_TRUNCATE;
    if (abi >= 5)
        fs |= LL_FS_IOCTL_DEV;
    return fs;
}

static int conf_rule(confine_ctx *c, const char *path, uint64_t access)
{
    if (c->nrules >= CONF_MAX_RULES)
        return 0; /* a rule left out only takes access away */
    if (!(c->rule_path[c->nrules] = strdup(path)))
        return -1;
    c->rule_access[c->nrules++] = access;
    return 0;
}

/* The ELF loader a program names (PT_INTERP), in interp; "" when it names
 * none (static) or is not a 64-bit ELF file. */
static void elf_interpreter(const char *prog, char *interp, size_t size)
{
    interp[0] = '\0';
    FILE *f = fopen(prog, "rb");
    if (!f)
        return;
    Elf64_Ehdr eh;
    if (fread(&eh, sizeof eh, 1, f) == 1 && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
        for (unsigned i = 0; i < eh.e_phnum && i < 64; i++) {
            Elf64_Phdr ph;
            if (fseek(f, (long)(eh.e_phoff + i * sizeof ph), SEEK_SET) != 0 || fread(&ph, sizeof ph, 1, f) != 1)
                break;
            if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz >= size)
                continue;
            if (fseek(f, (long)ph.p_offset, SEEK_SET) == 0 && fread(interp, 1, ph.p_filesz, f) == ph.p_filesz)
                interp[ph.p_filesz - 1] = '\0';
            else
                interp[0] = '\0';
            break;
        }
    }
    fclose(f);
}

/* The Landlock rules of one run: see sandbox.h. */
static int conf_rules(confine_ctx *c, const char *prog, const char *workdir, const sb_sandbox_limits *lim)
{
    uint64_t exec = lim->runs_tools ? LANDLOCK_ACCESS_FS_EXECUTE : 0;
    if (conf_rule(c, workdir, LL_READ | LL_WRITE | exec) != 0)
        return -1;
    for (size_t i = 0; i < SYSTEM_DIRS_N; i++)
        if (conf_rule(c, SYSTEM_DIRS[i], LL_READ | exec) != 0)
            return -1;
    if (lim->tool_dir && conf_rule(c, lim->tool_dir, LL_READ | exec) != 0)
        return -1;
    for (size_t i = 0; i < SYSTEM_ETC_N; i++)
        if (conf_rule(c, SYSTEM_ETC[i], LL_READ) != 0)
            return -1;
    for (size_t i = 0; i < PLAIN_DEVICES_N; i++)
        if (conf_rule(c, PLAIN_DEVICES[i], LL_DEV) != 0)
            return -1;
    if (conf_rule(c, "/proc", LL_READ) != 0 || conf_rule(c, "/sys", LL_READ) != 0)
        return -1;
    /* The program's own /proc entries (opened in the program, after its
     * /proc is mounted): the CUDA runtime names its threads through
     * /proc/self/task/TID/comm, and fails when it cannot. */
    if (conf_rule(c, "/proc/self", LANDLOCK_ACCESS_FS_WRITE_FILE | LL_FS_TRUNCATE) != 0)
        return -1;
    DIR *d = opendir("/dev");
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (strncmp(de->d_name, "nvidia", 6) != 0)
                continue;
            char node[300];
            snprintf(node, sizeof node, "/dev/%s", de->d_name);
            if (conf_rule(c, node, LL_DEV | LANDLOCK_ACCESS_FS_READ_DIR) != 0) {
                closedir(d);
                return -1;
            }
        }
        closedir(d);
    }
    if (!lim->runs_tools) {
        /* The program itself and its loader: nothing else may be executed. */
        char interp[512];
        elf_interpreter(prog, interp, sizeof interp);
        if (conf_rule(c, prog, LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE) != 0 ||
            (interp[0] && conf_rule(c, interp, LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE) != 0))
            return -1;
    }
    return 0;
}

#ifdef SOLBOOK_HAVE_SECCOMP
/* System calls a benchmark or a compiler never needs and a hostile program
 * would use to reach outside its sandbox. */
static const char *const DENIED_SYSCALLS[] = {
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "keyctl", "add_key", "request_key", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "reboot", "swapon", "swapoff", "acct", "quotactl", "syslog", "iopl", "ioperm",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
    "open_by_handle_at", "name_to_handle_at", "vhangup", "uselib", "personality",
};

/* The seccomp program, built with libseccomp and exported as BPF. */
static int conf_filter(confine_ctx *c, char *why, size_t size)
{
    scmp_filter_ctx sc = seccomp_init(SCMP_ACT_ALLOW);
    if (!sc) {
        snprintf(why, size, "seccomp_init failed");
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof DENIED_SYSCALLS / sizeof DENIED_SYSCALLS[0]; i++) {
        int nr = seccomp_syscall_resolve_name(DENIED_SYSCALLS[i]);
        if (nr != __NR_SCMP_ERROR)
            rc = seccomp_rule_add(sc, SCMP_ACT_ERRNO(EPERM), nr, 0);
    }
    /* No socket but a Unix one: no network. The CUDA driver's init fails
     * when it cannot make a Unix socket (it tries nvidia-persistenced),
     * so those stay; the host's services' sockets in /run are hidden
     * under an empty tmpfs (mount_namespace_files) and the abstract ones
     * belong to the host's network namespace. */
    if (rc == 0)
        rc = seccomp_rule_add(sc, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX, 0));
    /* A Unix socket's peer is any socket file the program can name, and
     * neither Landlock nor the namespaces stop a connect() or a datagram
     * to a path: a tmux server's or an ssh agent's socket in /tmp would
     * take commands from it. So a Unix socket reaches nothing by name: no
     * connect, no sendto with an address, and no sendmsg or sendmmsg,
     * whose address seccomp cannot read (a stream socket refuses one, a
     * datagram socket would send to it). The CUDA driver's init, a
     * context and an allocation succeed under these rules (checked on an
     * H100: its connect to nvidia-persistenced fails as when /run is
     * hidden); socketpair and the socket's own fd still work. */
    if (rc == 0)
        rc = seccomp_rule_add(sc, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(connect), 0);
    if (rc == 0)
        rc = seccomp_rule_add(sc, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(sendto), 1, SCMP_A4(SCMP_CMP_NE, 0, 0));
    if (rc == 0)
        rc = seccomp_rule_add(sc, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(sendmsg), 0);
    if (rc == 0)
        rc = seccomp_rule_add(sc, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(sendmmsg), 0);
    /* No new namespaces through clone; clone3 passes its flags in memory
     * seccomp cannot read, so it fails with ENOSYS and the C library
     * falls back to clone. */
    static const unsigned long ns_flags[] = {CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET,
                                             CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWCGROUP};
    for (size_t i = 0; rc == 0 && i < sizeof ns_flags / sizeof ns_flags[0]; i++)
        rc = seccomp_rule_add(sc, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]));
    if (rc == 0)
        rc = seccomp_rule_add(sc, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    int fd = -1;
    if (rc == 0 && (fd = memfd_create("solbook-forge-seccomp", MFD_CLOEXEC)) < 0)
        rc = -errno;
    if (rc == 0)
        rc = seccomp_export_bpf(sc, fd);
    seccomp_release(sc);
    off_t len = rc == 0 ? lseek(fd, 0, SEEK_END) : -1;
    if (rc == 0 && (len <= 0 || len % (off_t)sizeof(struct sock_filter) != 0 || len > 65536))
        rc = -EINVAL;
    if (rc == 0 && !(c->filter.filter = malloc((size_t)len)))
        rc = -ENOMEM;
    if (rc == 0 && pread(fd, c->filter.filter, (size_t)len, 0) != len)
        rc = -EIO;
    if (fd >= 0)
        close(fd);
    if (rc != 0) {
        snprintf(why, size, "cannot build the seccomp filter: %s", strerror(-rc));
        return -1;
    }
    c->filter.len = (unsigned short)(len / (off_t)sizeof(struct sock_filter));
    return 0;
}
#else
static int conf_filter(confine_ctx *c, char *why, size_t size)
{
    (void)c;
    snprintf(why, size, "solbook was built without libseccomp (Debian package libseccomp-dev)");
    return -1;
}
#endif

static void conf_free(confine_ctx *c)
{
    for (size_t i = 0; i < c->nrules; i++)
        free(c->rule_path[i]);
    free(c->filter.filter);
    memset(c, 0, sizeof *c);
}

/* In the child: a message on stderr (the run's log) and exit 126, so a
 * program that could not be confined is never run. */
static void conf_die(const char *step, int e)
{
    char buf[160];
    size_t n = 0;
    const char *head = "forge sandbox: cannot confine the program: ";
    for (const char *p = head; *p && n < sizeof buf - 20; p++)
        buf[n++] = *p;
    for (const char *p = step; *p && n < sizeof buf - 20; p++)
        buf[n++] = *p;
    const char *mid = " failed, errno ";
    for (const char *p = mid; *p; p++)
        buf[n++] = *p;
    char digits[12];
    int k = 0;
    unsigned u = (unsigned)e;
    do
        digits[k++] = (char)('0' + u % 10);
    while ((u /= 10) && k < 11);
    while (k)
        buf[n++] = digits[--k];
    buf[n++] = '\n';
    ssize_t w = write(2, buf, n);
    (void)w;
    _exit(126);
}

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* "ID ID 1" for uid_map and gid_map, without stdio. */
static void id_map_line(unsigned id, char *out)
{
    char d[12];
    int k = 0;
    do
        d[k++] = (char)('0' + id % 10);
    while ((id /= 10) && k < 11);
    size_t n = 0;
    for (int rep = 0; rep < 2; rep++) {
        for (int j = k - 1; j >= 0; j--)
            out[n++] = d[j];
        out[n++] = ' ';
    }
    out[n++] = '1';
    out[n] = '\0';
}

/* Closes every descriptor above 2 but keep (the caller's, the start-up
 * status pipe of sb_process_start included). */
static void close_fds_except(int keep)
{
    if (keep > 3)
        syscall(SYS_close_range, 3U, (unsigned)keep - 1, 0U);
    if (syscall(SYS_close_range, (unsigned)keep + 1, ~0U, 0U) != 0)
        for (int fd = 3; fd < 65536; fd++)
            if (fd != keep)
                close(fd);
}

/* Ends this process the way wait status st says: the same exit code, or
 * the same signal. */
static void end_like(int st)
{
    if (WIFEXITED(st))
        _exit(WEXITSTATUS(st));
    int sig = WIFSIGNALED(st) ? WTERMSIG(st) : SIGKILL;
    struct rlimit core0 = {0, 0};
    setrlimit(RLIMIT_CORE, &core0);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    kill(getpid(), sig);
    _exit(128 + sig);
}

/* Ends the run before the program starts: a message on stderr (the
 * run's log) and exit 126. */
static void jail_die(const char *what, const char *why)
{
    char buf[700];
    int n = snprintf(buf, sizeof buf, "forge sandbox: %s: %s\n", what, why);
    if (n > 0) {
        ssize_t w = write(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
        (void)w;
    }
    _exit(126);
}

/* How many tasks (threads included) the pid namespace whose /proc is
 * mounted at /proc holds. */
static unsigned count_tasks(void)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    unsigned n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%.20s/task", de->d_name);
        DIR *t = opendir(path);
        if (!t)
            continue; /* ended meanwhile */
        struct dirent *te;
        while ((te = readdir(t)) != NULL)
            if (te->d_name[0] != '.')
                n++;
        closedir(t);
    }
    closedir(d);
    return n;
}

/* Notes in the shared report the tasks in the namespace and the bytes on
 * the working folder's tmpfs, keeping the extremes. */
static void jail_measure(const confine_ctx *c)
{
    jail_report *r = c->report;
    unsigned n = count_tasks();
    if (n > r->peak_tasks)
        r->peak_tasks = n;
    struct statvfs sv;
    if (c->lim->disk_bytes && statvfs(c->workdir, &sv) == 0) {
        unsigned long long used = (unsigned long long)(sv.f_blocks - sv.f_bfree) * sv.f_frsize;
        unsigned long long avail = (unsigned long long)sv.f_bavail * sv.f_frsize;
        if (used > r->peak_disk)
            r->peak_disk = used;
        if (avail < r->min_free)
            r->min_free = avail;
    }
}

/* A tmpfs counts as full below this many free bytes: what is left is
 * less than a program's usual chunk of writing or allocating. */
#define DISK_FULL_SLACK (1u << 20)

/* The first process, outside the new pid namespace: waits for the
 * namespace's init and ends the way the program ended (init reports the
 * program's wait status on status_fd), so the caller sees its status.
 * With a disk bound it first copies the tmpfs's files back into the
 * working folder on the host (old_fd) when the program succeeded and the
 * tmpfs is not full: the host receives at most the bound. */
static void supervise(const confine_ctx *c, pid_t init, int status_fd, int old_fd)
{
    if (old_fd >= 0 && fchdir(old_fd) != 0)
        _exit(126);
    close_fds_except(status_fd);
    int st = 0, prog_st = 0;
    while (waitpid(init, &st, 0) < 0)
        if (errno != EINTR)
            _exit(126);
    ssize_t n;
    do
        n = read(status_fd, &prog_st, sizeof prog_st);
    while (n < 0 && errno == EINTR);
    int end = n == (ssize_t)sizeof prog_st ? prog_st : st;
    if (old_fd >= 0 && WIFEXITED(end) && WEXITSTATUS(end) == 0 && c->report->min_free >= DISK_FULL_SLACK) {
        sb_error err;
        sb_error_clear(&err);
        if (sb_forge_copy_tree_exec(c->workdir, ".", &err) != SB_OK)
            jail_die("cannot copy the working folder's tmpfs back", err.msg);
    }
    end_like(end);
}

/* pid 1 of the namespace: mounts the namespace's /proc, sets its pid_max,
 * starts the program (returns 0 in the program's process), then reaps
 * whatever is reparented to it until the program ends, measuring the
 * bounds every 20 ms; reports the program's wait status and exits, and
 * the kernel then kills every process left in the namespace. (The
 * program is not pid 1 itself: signals without a handler, such as
 * SIGXFSZ, would not end it.) The NVIDIA driver fails every CUDA call
 * ("OS call failed or operation not supported on this OS") in a pid
 * namespace whose /proc is the host's: it reads the process's pid there;
 * the fresh /proc also hides the host's processes. */
static void namespace_init(const confine_ctx *c, int status_fd)
{
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        conf_die("mount proc on /proc", errno);
    if (c->lim->max_tasks && c->pidns_max) {
        /* pid_max of this namespace, which bounds its descendants'
         * namespaces too: pids 1 to max_tasks. */
        char num[24];
        snprintf(num, sizeof num, "%u", c->lim->max_tasks + 1);
        if (write_text("/proc/sys/kernel/pid_max", num) != 0)
            conf_die("pid_max of the pid namespace", errno);
    }
    pid_t prog = fork();
    if (prog < 0)
        conf_die("fork", errno);
    if (prog == 0) {
        close(status_fd);
        return;
    }
    close_fds_except(status_fd);
    for (;;) {
        int st;
        pid_t w = waitpid(-1, &st, WNOHANG);
        if (w == prog) {
            jail_measure(c);
            ssize_t n = write(status_fd, &st, sizeof st);
            (void)n;
            _exit(0);
        }
        if (w > 0)
            continue;
        if (w < 0 && errno != EINTR)
            _exit(126);
        jail_measure(c);
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void apply_landlock(const confine_ctx *c)
{
    struct ll_ruleset_attr attr = {0};
    size_t attr_size = sizeof attr.handled_access_fs;
    uint64_t handled = landlock_handled_fs(c->abi);
    attr.handled_access_fs = handled;
    if (c->abi >= 4) {
        attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
        attr_size = offsetof(struct ll_ruleset_attr, scoped);
    }
    if (c->abi >= 6) {
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
        attr_size = sizeof attr;
    }
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
    if (rs < 0)
        conf_die("landlock_create_ruleset", errno);
    for (size_t i = 0; i < c->nrules; i++) {
        int fd = open(c->rule_path[i], O_PATH | O_CLOEXEC);
        if (fd < 0)
            continue; /* absent here: nothing to allow */
        struct stat st;
        uint64_t access = c->rule_access[i] & handled;
        if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
            access &= LL_FILE_RIGHTS;
        struct landlock_path_beneath_attr pb = {.allowed_access = access, .parent_fd = fd};
        if (access && syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0)
            conf_die("landlock_add_rule", errno);
        close(fd);
    }
    if (syscall(SYS_landlock_restrict_self, rs, 0) != 0)
        conf_die("landlock_restrict_self", errno);
    close(rs);
}

static void drop_capabilities(void)
{
    for (int cap = 0; cap < 64; cap++)
        prctl(PR_CAPBSET_DROP, cap, 0, 0, 0); /* EINVAL past the last; EPERM without CAP_SETPCAP */
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    if (syscall(SYS_capset, &h, d) != 0)
        conf_die("capset", errno);
}

/* The program's side of a confined run: an empty /run (the Unix sockets
 * of the host's services, since Unix sockets stay allowed). */
static void mount_namespace_files(void)
{
    struct stat st;
    if (stat("/run", &st) == 0 && S_ISDIR(st.st_mode) &&
        mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=1m,mode=755") != 0)
        conf_die("mount tmpfs on /run", errno);
}

/* sb_process_start's before_exec for every run with a bound or
 * confinement: fresh pid and mount namespaces (network and
 * IPC too when confined; a user namespace when not root), the working
 * folder on a tmpfs of disk_bytes holding a copy of its files; the
 * process forks the namespace's init, which forks the program, and
 * supervises them. The program's side sets its limits and, confined,
 * confines itself before it returns to exec. Where the namespaces cannot
 * be made and the run is not confined, RLIMIT_NPROC stands in for
 * pid_max and the disk is the host's. */
static void jail_child(void *vctx)
{
    const confine_ctx *c = vctx;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    uid_t uid = geteuid();
    gid_t gid = getegid();
    int flags = CLONE_NEWPID | CLONE_NEWNS;
    if (c->confined)
        flags |= CLONE_NEWNET | CLONE_NEWIPC;
    if (uid != 0)
        flags |= CLONE_NEWUSER;
    if (unshare(flags) != 0) {
        if (c->confined)
            conf_die("unshare", errno);
        apply_limits((void *)c->lim);
        set_limit(RLIMIT_NPROC, c->lim->max_tasks);
        return;
    }
    if (uid != 0) {
        char line[40];
        write_text("/proc/self/setgroups", "deny");
        id_map_line((unsigned)uid, line);
        if (write_text("/proc/self/uid_map", line) != 0)
            conf_die("uid_map", errno);
        id_map_line((unsigned)gid, line);
        if (write_text("/proc/self/gid_map", line) != 0)
            conf_die("gid_map", errno);
    }
    c->report->jailed = 1;
    if (!c->pidns_max)
        set_limit(RLIMIT_NPROC, c->lim->max_tasks);
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        conf_die("mount --make-rprivate /", errno);
    int old_fd = -1;
    if (c->lim->disk_bytes) {
        /* The caller made the working folder the current one. */
        if ((old_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
            conf_die("open the working folder", errno);
        if (mount("tmpfs", c->workdir, "tmpfs", MS_NOSUID | MS_NODEV, c->tmpfs_opts) != 0)
            conf_die("mount tmpfs on the working folder", errno);
        sb_error err;
        sb_error_clear(&err);
        if (sb_forge_copy_tree_exec(".", c->workdir, &err) != SB_OK)
            jail_die("cannot copy the working folder into its tmpfs (the disk bound)", err.msg);
        if (chdir(c->workdir) != 0)
            conf_die("chdir into the tmpfs", errno);
    }
    int status_pipe[2];
    if (pipe2(status_pipe, O_CLOEXEC) != 0)
        conf_die("pipe", errno);
    pid_t kid = fork();
    if (kid < 0)
        conf_die("fork", errno);
    if (kid > 0) {
        close(status_pipe[1]);
        supervise(c, kid, status_pipe[0], old_fd);
    }
    if (old_fd >= 0)
        close(old_fd);
    close(status_pipe[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    namespace_init(c, status_pipe[1]);
    /* The program: pid 2 of its namespace, in the caller's process group.
     * Its limits are set here, not before the namespaces: the supervisor
     * and the namespace's init are forge's own code, which must not run
     * under the program's address-space limit (a sanitizer's shadow
     * memory cannot be mapped under it). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    apply_limits((void *)c->lim);
    if (!c->confined)
        return;
    mount_namespace_files();
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        conf_die("no_new_privs", errno);
    apply_landlock(c);
    drop_capabilities();
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &c->filter) != 0)
        conf_die("seccomp", errno);
}

/* Whether this kernel keeps pid_max per pid namespace (Linux 6.14 and
 * later). Before that the sysctl is the host's: it is then never written,
 * and RLIMIT_NPROC bounds the tasks instead. */
static int kernel_pidns_max(void)
{
    struct utsname u;
    unsigned major = 0, minor = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
        return 0;
    return major > 6 || (major == 6 && minor >= 14);
}

/* Fills c for a run of prog in workdir; why says what is missing. */
static int conf_prepare(confine_ctx *c, const char *prog, const char *workdir, const sb_sandbox_limits *lim,
                        char *why, size_t size)
{
    memset(c, 0, sizeof *c);
    c->lim = lim;
    if ((c->abi = landlock_abi()) < 1) {
        snprintf(why, size, "the kernel has no Landlock (landlock_create_ruleset: %s)", strerror(errno));
        return -1;
    }
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
        snprintf(why, size, "the kernel has no seccomp");
        return -1;
    }
    if (conf_filter(c, why, size) != 0)
        return -1;
    if (conf_rules(c, prog, workdir, lim) != 0) {
        snprintf(why, size, "out of memory");
        conf_free(c);
        return -1;
    }
    return 0;
}

/* ---- bubblewrap ---- */

/* The namespaces and mounts every bubblewrap run gets: no network (and no
 * other namespace shared), a fresh /dev and /proc, and the sandbox dies
 * with forge. The file system holds only what bw_build binds. */
static const char *const BWRAP_BASE[] = {"--unshare-all", "--die-with-parent", "--dev", "/dev", "--proc", "/proc"};
#define BWRAP_BASE_N (sizeof BWRAP_BASE / sizeof BWRAP_BASE[0])
/* Refuses the program new user namespaces (unshare or clone with
 * CLONE_NEWUSER fail with ENOSPC): a nested one would give it the kernel
 * surface of a namespace's root. bwrap takes it from 0.8.0, only with a
 * user namespace of its own and not when installed setuid. */
static const char *const BWRAP_NO_USERNS[] = {"--unshare-user", "--disable-userns"};
#define BWRAP_NO_USERNS_N (sizeof BWRAP_NO_USERNS / sizeof BWRAP_NO_USERNS[0])
#define BWRAP_MAX_GPU_NODES 64

typedef struct bwrap_argv {
    const char **argv;  /* NULL-terminated; the strings it owns are in owned */
    char **owned;
    size_t n, cap, n_owned;
} bwrap_argv;

static int bw_push(bwrap_argv *a, const char *s, int copy)
{
    if (a->n + 2 > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        const char **v = realloc(a->argv, cap * sizeof *v);
        if (!v)
            return -1;
        a->argv = v;
        char **o = realloc(a->owned, cap * sizeof *o);
        if (!o)
            return -1;
        a->owned = o;
        a->cap = cap;
    }
    if (copy) {
        char *str = strdup(s);
        if (!str)
            return -1;
        a->owned[a->n_owned++] = str;
        s = str;
    }
    a->argv[a->n++] = s;
    a->argv[a->n] = NULL;
    return 0;
}

static void bw_free(bwrap_argv *a)
{
    for (size_t i = 0; i < a->n_owned; i++)
        free(a->owned[i]);
    free(a->owned);
    free(a->argv);
}

/* Binds path read-only where it exists; a symbolic link (/lib -> usr/lib)
 * is made again as the same link. */
static int bw_ro(bwrap_argv *a, const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n <= 0)
            return 0;
        target[n] = '\0';
        return bw_push(a, "--symlink", 0) || bw_push(a, target, 1) || bw_push(a, path, 0) ? -1 : 0;
    }
    return bw_push(a, "--ro-bind", 0) || bw_push(a, path, 0) || bw_push(a, path, 0) ? -1 : 0;
}

/* Whether path lies at or below dir (both absolute, without a trailing /). */
static int path_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return 1;
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Whether the arguments so far make path exist inside the sandbox as it
 * does on the host: below a bound folder, or a link made at that path. */
static int bw_covers(const bwrap_argv *a, const char *path)
{
    for (size_t i = 0; i + 2 < a->n; i++) {
        const char *op = a->argv[i];
        if (strcmp(op, "--symlink") == 0 && strcmp(a->argv[i + 2], path) == 0)
            return 1;
        if ((strcmp(op, "--ro-bind") == 0 || strcmp(op, "--bind") == 0 || strcmp(op, "--dev-bind") == 0) &&
            path_under(path, a->argv[i + 2]))
            return 1;
    }
    return 0;
}

/* Makes path (a program, or the tool folder) reachable inside the sandbox
 * by the name the host knows it by. bubblewrap resolves the links it meets
 * while it sets up against its own empty root, so binding a path through a
 * link (/usr/local/cuda -> /etc/alternatives/cuda -> /usr/local/cuda-13.0)
 * fails there. Instead the path is walked here one name at a time: each
 * link on the way that no bind holds yet is made again, and what the path
 * finally names is bound read-only where no bind holds it. Nothing but
 * the links and that one file or folder is added. A link inside the
 * working folder is the candidate's and is not followed: where it leads
 * is what the sandbox already shows and no more. */
static int bw_reach(bwrap_argv *a, const char *path, const char *workdir)
{
    char done[4096] = "", rest[8192], next[4096];
    if (path[0] != '/' || strlen(path) >= sizeof rest)
        return 0;
    snprintf(rest, sizeof rest, "%s", path);
    for (int links = 0;;) {
        char *name = rest;
        while (*name == '/')
            name++;
        if (!*name)
            break;
        char *end = strchr(name, '/');
        size_t len = end ? (size_t)(end - name) : strlen(name);
        char *after = name + len; /* "" or "/..." */
        if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.')) {
            if (len == 2) {
                char *slash = strrchr(done, '/');
                if (slash)
                    *slash = '\0';
            }
            memmove(rest, after, strlen(after) + 1);
            continue;
        }
        if ((size_t)snprintf(next, sizeof next, "%s/%.*s", done, (int)len, name) >= sizeof next)
            return 0;
        struct stat st;
        if (lstat(next, &st) != 0)
            return 0; /* the program's start fails inside, with the reason */
        if (!S_ISLNK(st.st_mode)) {
            memcpy(done, next, strlen(next) + 1);
            memmove(rest, after, strlen(after) + 1);
            continue;
        }
        char target[4096];
        ssize_t n = readlink(next, target, sizeof target - 1);
        if (n <= 0 || ++links > 40 || (workdir && path_under(next, workdir)))
            return 0;
        target[n] = '\0';
        if (!bw_covers(a, next) && (bw_push(a, "--symlink", 0) || bw_push(a, target, 1) || bw_push(a, next, 1)))
            return -1;
        char joined[8192];
        if ((size_t)snprintf(joined, sizeof joined, "%s%s", target, after) >= sizeof joined)
            return 0;
        memcpy(rest, joined, strlen(joined) + 1);
        if (target[0] == '/')
            done[0] = '\0';
    }
    if (!done[0] || bw_covers(a, done))
        return 0;
    return bw_push(a, "--ro-bind", 0) || bw_push(a, done, 1) || bw_push(a, done, 1) ? -1 : 0;
}

/* bwrap BASE [NO_USERNS] --ro-bind SYSTEM... [--bind DIR DIR --chdir DIR]
 * [LINKS and --ro-bind of TOOLS and PROGRAM (bw_reach)]
 * [--dev-bind /dev/nvidia* ...] -- argv...
 * Only the system's program and library folders, the loader's files of
 * /etc, the tool folder, the program and the working folder exist inside. Every
 * /dev/nvidia* node (and /dev/nvidia-caps) is bound where present, so
 * the CUDA driver finds the card; nothing else of the host's /dev is. */
static int bw_build(bwrap_argv *a, const char *bwrap, int no_userns, const char *workdir, const char *tool_dir,
                    const char *const argv[])
{
    memset(a, 0, sizeof *a);
    if (bw_push(a, bwrap, 0) != 0)
        return -1;
    for (size_t i = 0; i < BWRAP_BASE_N; i++)
        if (bw_push(a, BWRAP_BASE[i], 0) != 0)
            return -1;
    for (size_t i = 0; no_userns && i < BWRAP_NO_USERNS_N; i++)
        if (bw_push(a, BWRAP_NO_USERNS[i], 0) != 0)
            return -1;
    for (size_t i = 0; i < SYSTEM_DIRS_N; i++)
        if (bw_ro(a, SYSTEM_DIRS[i]) != 0)
            return -1;
    for (size_t i = 0; i < SYSTEM_ETC_N; i++)
        if (bw_ro(a, SYSTEM_ETC[i]) != 0)
            return -1;
    if (bw_ro(a, "/sys") != 0)
        return -1;
    /* The kernel's settings under the fresh /proc are writable by their
     * owner, and a program that forge runs as root is root outside too
     * (bubblewrap maps its user to the caller's): /proc/sys holds global
     * settings (a core_pattern of "|PROGRAM" runs as the host's root at
     * the next crash) and /proc/sysrq-trigger reboots. bwrap covers them
     * only where its own access check finds them writable, which as root
     * with its capabilities dropped it does not, so they are bound
     * read-only here. */
    if (bw_push(a, "--ro-bind", 0) || bw_push(a, "/proc/sys", 0) || bw_push(a, "/proc/sys", 0) ||
        bw_push(a, "--ro-bind-try", 0) || bw_push(a, "/proc/sysrq-trigger", 0) ||
        bw_push(a, "/proc/sysrq-trigger", 0))
        return -1;
    if (workdir && (bw_push(a, "--bind", 0) || bw_push(a, workdir, 0) || bw_push(a, workdir, 0) ||
                    bw_push(a, "--chdir", 0) || bw_push(a, workdir, 0)))
        return -1;
    /* The tool folder and the program itself, wherever they are and
     * through whatever links PATH reached them by. */
    if ((tool_dir && bw_reach(a, tool_dir, workdir) != 0) || bw_reach(a, argv[0], workdir) != 0)
        return -1;
    DIR *d = opendir("/dev");
    if (d) {
        struct dirent *de;
        size_t nodes = 0;
        while ((de = readdir(d)) != NULL && nodes < BWRAP_MAX_GPU_NODES) {
            if (strncmp(de->d_name, "nvidia", 6) != 0)
                continue;
            char node[300];
            snprintf(node, sizeof node, "/dev/%s", de->d_name);
            if (bw_push(a, "--dev-bind", 0) || bw_push(a, node, 1) || bw_push(a, node, 1)) {
                closedir(d);
                return -1;
            }
            nodes++;
        }
        closedir(d);
    }
    if (bw_push(a, "--", 0) != 0)
        return -1;
    for (size_t i = 0; argv[i]; i++)
        if (bw_push(a, argv[i], 0) != 0)
            return -1;
    return 0;
}

/* Runs bubblewrap around /bin/true (as forge would run a program, with
 * nested user namespaces refused when no_userns is set) and says why it
 * cannot, in why. 0 when it works. */
static int bw_probe(const char *bwrap, int no_userns, char *why, size_t size)
{
    char truth[4096];
    if (sb_process_find("true", truth, sizeof truth) != SB_OK) {
        snprintf(why, size, "no 'true' program on PATH to try bubblewrap with");
        return -1;
    }
    const char *targv[] = {truth, NULL};
    bwrap_argv a;
    if (bw_build(&a, bwrap, no_userns, NULL, NULL, targv) != 0) {
        bw_free(&a);
        snprintf(why, size, "out of memory");
        return -1;
    }
    char text[512];
    size_t total;
    int status;
    sb_error err;
    sb_error_clear(&err);
    int rc = sb_process_capture(a.argv, NULL, 1, text, sizeof text, &total, &status, &err);
    bw_free(&a);
    if (rc != SB_OK) {
        snprintf(why, size, "%.500s", err.msg);
        return -1;
    }
    for (char *c = text; *c; c++)
        if (*c == '\n')
            *c = *(c + 1) ? ' ' : '\0';
    if (status != 0) {
        snprintf(why, size, "%s", text[0] ? text : "bwrap failed without a message");
        return -1;
    }
    return 0;
}

/* Runs 'true' confined in a fresh folder; why says why it cannot. 0 when
 * it works. */
static int conf_probe(char *why, size_t size)
{
    char truth[4096], dir[64] = "/tmp/solbook-forge-probe-XXXXXX";
    if (sb_process_find("true", truth, sizeof truth) != SB_OK) {
        snprintf(why, size, "no 'true' program on PATH to try the confinement with");
        return -1;
    }
    confine_ctx c;
    if (conf_prepare(&c, truth, "/", &(sb_sandbox_limits){0}, why, size) != 0)
        return -1;
    conf_free(&c);
    if (!mkdtemp(dir)) {
        snprintf(why, size, "cannot create a folder to try the confinement in: %s", strerror(errno));
        return -1;
    }
    const char *targv[] = {truth, NULL};
    sb_sandbox_limits lim = {0};
    lim.isolation = SB_SANDBOX_CONFINED;
    lim.wall_s = 60;
    sb_sandbox_result res;
    sb_error err;
    sb_error_clear(&err);
    char log[128];
    snprintf(log, sizeof log, "%s/probe.stderr", dir);
    int rc = sb_sandbox_run(targv, dir, "/dev/null", log, &lim, &res, &err);
    if (rc != SB_OK)
        snprintf(why, size, "%.500s", err.msg);
    else if (!(res.exited && res.exit_code == 0)) {
        char tail[400] = "";
        FILE *f = fopen(log, "r");
        if (f) {
            size_t n = fread(tail, 1, sizeof tail - 1, f);
            tail[n] = '\0';
            fclose(f);
            char *nl = strchr(tail, '\n');
            if (nl)
                *nl = '\0';
        }
        snprintf(why, size, "a confined 'true' did not succeed: %s", tail[0] ? tail : "no message");
        rc = SB_ERR;
    }
    unlink(log);
    rmdir(dir);
    return rc == SB_OK ? 0 : -1;
}

int sb_sandbox_choose(sb_sandbox_isolation *chosen, int allow_unsafe, char *why, size_t size, sb_error *err)
{
    const char *want = getenv("SOLBOOK_FORGE_SANDBOX");
    if (!want || !*want)
        want = "auto";
    if (strcmp(want, "auto") != 0 && strcmp(want, "confined") != 0 && strcmp(want, "bubblewrap") != 0 &&
        strcmp(want, "rlimits") != 0)
        return sb_error_set(err, NULL, NULL,
                            "SOLBOOK_FORGE_SANDBOX is '%s': expected auto, confined, bubblewrap or rlimits", want);
    if (strcmp(want, "rlimits") == 0) {
        if (!allow_unsafe)
            return sb_error_set(err, NULL, NULL,
                                "SOLBOOK_FORGE_SANDBOX=rlimits runs a candidate unconfined: refused without "
                                "--unsafe-no-sandbox");
        *chosen = SB_SANDBOX_RLIMITS;
        snprintf(why, size, "rlimits and a process group, unconfined (SOLBOOK_FORGE_SANDBOX=rlimits, --unsafe-no-sandbox)");
        return SB_OK;
    }
    char conf_reason[600] = "not tried", bw_reason[600] = "not tried", userns_reason[600] = "";
    if (strcmp(want, "bubblewrap") != 0) {
        if (conf_probe(conf_reason, sizeof conf_reason) == 0) {
            *chosen = SB_SANDBOX_CONFINED;
            snprintf(why, size, "seccomp, Landlock ABI %d, fresh pid and network namespaces, no capabilities; "
                                "rlimits and a process group", landlock_abi());
            return SB_OK;
        }
        if (strcmp(want, "confined") == 0)
            return sb_error_set(err, NULL, NULL, "SOLBOOK_FORGE_SANDBOX=confined, but it cannot run here: %s",
                                conf_reason);
    }
    char bwrap[4096];
    if (sb_process_find("bwrap", bwrap, sizeof bwrap) != SB_OK)
        snprintf(bw_reason, sizeof bw_reason, "bwrap not found on PATH (Debian package bubblewrap)");
    else if (bw_probe(bwrap, 1, userns_reason, sizeof userns_reason) == 0 ||
             bw_probe(bwrap, 0, bw_reason, sizeof bw_reason) == 0) {
        /* userns_reason is empty when --disable-userns worked. */
        *chosen = userns_reason[0] ? SB_SANDBOX_BUBBLEWRAP_USERNS : SB_SANDBOX_BUBBLEWRAP;
        snprintf(why, size, "bubblewrap (%s): no network, only system folders and the working folder, "
                            "GPU device nodes bound, %s%s; rlimits and a process group%s%s", bwrap,
                 userns_reason[0] ? "nested user namespaces not refused: --disable-userns failed: "
                                  : "nested user namespaces refused (--disable-userns)",
                 userns_reason, strcmp(want, "auto") == 0 ? "; not confined: " : "",
                 strcmp(want, "auto") == 0 ? conf_reason : "");
        return SB_OK;
    }
    if (strcmp(want, "bubblewrap") == 0)
        return sb_error_set(err, NULL, NULL, "SOLBOOK_FORGE_SANDBOX=bubblewrap, but bubblewrap cannot run here: %s",
                            bw_reason);
    if (!allow_unsafe)
        return sb_error_set(err, NULL, NULL,
                            "no sandbox on this machine (confined: %s; bubblewrap: %s): refusing to run a "
                            "candidate (--unsafe-no-sandbox runs your own code unconfined)",
                            conf_reason, bw_reason);
    *chosen = SB_SANDBOX_RLIMITS;
    snprintf(why, size, "rlimits and a process group, unconfined (--unsafe-no-sandbox): confined: %s; bubblewrap: %s",
             conf_reason, bw_reason);
    return SB_OK;
}

const char *sb_sandbox_isolation_name(sb_sandbox_isolation iso)
{
    switch (iso) {
    case SB_SANDBOX_CONFINED: return "confined";
    case SB_SANDBOX_BUBBLEWRAP:
    case SB_SANDBOX_BUBBLEWRAP_USERNS: return "bubblewrap";
    case SB_SANDBOX_RLIMITS: return "rlimits";
    default: return "auto";
    }
}

const char *sb_sandbox_confinement(sb_sandbox_isolation iso)
{
    switch (iso) {
    case SB_SANDBOX_CONFINED: return "seccomp+landlock+pidns+netns";
    case SB_SANDBOX_BUBBLEWRAP: return "bubblewrap:pidns+netns+mountns+nouserns";
    case SB_SANDBOX_BUBBLEWRAP_USERNS: return "bubblewrap:pidns+netns+mountns";
    case SB_SANDBOX_RLIMITS: return "none (rlimits only)";
    default: return "unknown";
    }
}

const char *sb_sandbox_nested_userns(sb_sandbox_isolation iso)
{
    switch (iso) {
    case SB_SANDBOX_CONFINED: return "refused (seccomp)";
    case SB_SANDBOX_BUBBLEWRAP: return "refused (bwrap --disable-userns)";
    default: return "not refused";
    }
}

int sb_sandbox_run(const char *const argv[], const char *workdir, const char *stdout_path,
                   const char *stderr_path, const sb_sandbox_limits *lim,
                   sb_sandbox_result *res, sb_error *err)
{
    memset(res, 0, sizeof *res);
    char prog[4096];
    if (sb_process_find(argv[0], prog, sizeof prog) != SB_OK)
        return sb_error_set(err, argv[0], NULL, "program not found or not executable");
    sb_sandbox_isolation iso = lim->isolation;
    if (iso == SB_SANDBOX_AUTO) {
        char why[800];
        if (sb_sandbox_choose(&iso, 0, why, sizeof why, err) != SB_OK)
            return SB_ERR;
    }
    res->isolation = iso;
    /* bubblewrap binds, and Landlock allows, the working folder by its real path. */
    char real_workdir[4096], bwrap[4096];
    if (!realpath(workdir, real_workdir))
        return sb_error_set(err, workdir, NULL, "cannot resolve the working folder: %s", strerror(errno));
    int bubblewrap = iso == SB_SANDBOX_BUBBLEWRAP || iso == SB_SANDBOX_BUBBLEWRAP_USERNS;
    if (bubblewrap && sb_process_find("bwrap", bwrap, sizeof bwrap) != SB_OK)
        return sb_error_set(err, "bwrap", NULL, "program not found or not executable");
    confine_ctx conf = {0};
    if (iso == SB_SANDBOX_CONFINED) {
        char why[600], real_prog[4096];
        if (!realpath(prog, real_prog))
            return sb_error_set(err, prog, NULL, "cannot resolve: %s", strerror(errno));
        if (conf_prepare(&conf, real_prog, real_workdir, lim, why, sizeof why) != 0)
            return sb_error_set(err, prog, NULL, "cannot confine: %s", why);
        conf.confined = 1;
    }
    /* Own pid and mount namespaces for the bounds (and the confinement). */
    int jail = iso == SB_SANDBOX_CONFINED || lim->disk_bytes || lim->max_tasks;
    jail_report *report = MAP_FAILED;
    if (jail) {
        report = mmap(NULL, sizeof *report, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (report == MAP_FAILED) {
            int e = errno;
            conf_free(&conf);
            return sb_error_set(err, NULL, NULL, "cannot map the sandbox's report: %s", strerror(e));
        }
        memset(report, 0, sizeof *report);
        report->min_free = ~0ULL;
        conf.lim = lim;
        conf.workdir = real_workdir;
        conf.report = report;
        conf.pidns_max = kernel_pidns_max();
        snprintf(conf.tmpfs_opts, sizeof conf.tmpfs_opts, "size=%llu,nr_inodes=%u,mode=700",
                 (unsigned long long)lim->disk_bytes, (unsigned)SB_SANDBOX_MAX_FILES);
    }
    int out_fd = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out_fd < 0) {
        int e = errno;
        conf_free(&conf);
        if (report != MAP_FAILED)
            munmap(report, sizeof *report);
        return sb_error_set(err, stdout_path, NULL, "cannot create: %s", strerror(e));
    }
    int err_fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (err_fd < 0) {
        int e = errno;
        close(out_fd);
        conf_free(&conf);
        if (report != MAP_FAILED)
            munmap(report, sizeof *report);
        return sb_error_set(err, stderr_path, NULL, "cannot create: %s", strerror(e));
    }
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    char **env = make_env(workdir);
    bwrap_argv bw = {0};
    const char **prog_argv = NULL;
    const char *const *run_argv = argv;
    int rc = SB_OK;
    if (null_fd < 0 || !env) {
        rc = sb_error_set(err, "/dev/null", NULL, "cannot prepare the child: %s", strerror(errno));
        goto done;
    }
    /* execve needs the path PATH gave; under bubblewrap too, since the
     * look-up happened out here. */
    size_t argc = 0;
    while (argv[argc])
        argc++;
    if (!(prog_argv = calloc(argc + 1, sizeof *prog_argv))) {
        rc = sb_error_set(err, NULL, NULL, "out of memory");
        goto done;
    }
    memcpy(prog_argv, argv, argc * sizeof *prog_argv);
    prog_argv[0] = prog;
    run_argv = prog_argv;
    if (bubblewrap) {
        if (bw_build(&bw, bwrap, iso == SB_SANDBOX_BUBBLEWRAP, real_workdir, lim->tool_dir, prog_argv) != 0) {
            rc = sb_error_set(err, NULL, NULL, "out of memory");
            goto done;
        }
        run_argv = bw.argv;
    }

    sb_process_opts o;
    sb_process_opts_init(&o);
    o.in_fd = null_fd;
    o.out_fd = out_fd;
    o.err_fd = err_fd;
    o.cwd = workdir;
    o.env = (const char *const *)env; /* C converts char ** to this only by a cast */
    o.own_group = 1;
    o.close_other_fds = 1;
    o.before_exec = apply_limits;
    o.ctx = (void *)lim;
    if (jail) {
        o.before_exec = jail_child;
        o.ctx = &conf;
    }
    double start = now_s();
    pid_t pid;
    rc = sb_process_start(run_argv, &o, &pid, err);
    if (rc != SB_OK)
        goto done;
    close(out_fd);
    close(err_fd);
    close(null_fd);
    out_fd = err_fd = null_fd = -1;

    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            int e = errno;
            kill(-pid, SIGKILL);
            rc = sb_error_set(err, prog, NULL, "waitpid: %s", strerror(e));
            goto done;
        }
        if (now_s() - start > lim->wall_s) {
            res->timed_out = 1;
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            break;
        }
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(-pid, SIGKILL); /* whatever the child left behind in its group */
    res->wall_s = now_s() - start;
    if (WIFEXITED(status)) {
        res->exited = 1;
        res->exit_code = WEXITSTATUS(status);
        /* bubblewrap exits 128 + N when the program is killed by signal N. */
        if (bubblewrap && res->exit_code > 128 && res->exit_code < 128 + 65) {
            res->exited = 0;
            res->signaled = 1;
            res->term_signal = res->exit_code - 128;
            res->exit_code = 0;
        }
    } else if (WIFSIGNALED(status)) {
        res->signaled = 1;
        res->term_signal = WTERMSIG(status);
    }
    if (jail && report->jailed) {
        res->jailed = 1;
        res->peak_tasks = report->peak_tasks;
        res->peak_disk = report->peak_disk;
        res->disk_full = lim->disk_bytes && report->min_free < DISK_FULL_SLACK;
        /* The namespace's init and the task that found no free pid are
         * among those counted; the count is a sample every 20 ms. */
        res->tasks_full = conf.pidns_max && lim->max_tasks && report->peak_tasks + 2 >= lim->max_tasks;
    }
done:
    if (out_fd >= 0)
        close(out_fd);
    if (err_fd >= 0)
        close(err_fd);
    if (null_fd >= 0)
        close(null_fd);
    free_env(env);
    free(prog_argv);
    bw_free(&bw);
    conf_free(&conf);
    if (report != MAP_FAILED)
        munmap(report, sizeof *report);
    return rc;
}

void sb_sandbox_describe(const sb_sandbox_result *res, const sb_sandbox_limits *lim,
                         char *buf, size_t size)
{
    if (res->timed_out) {
        snprintf(buf, size, "timed out after %.0f s, process group killed", lim->wall_s);
    } else if (res->exited) {
        snprintf(buf, size, "exit %d", res->exit_code);
    } else if (res->signaled) {
        const char *why = "";
        switch (res->term_signal) {
        case SIGXFSZ: why = " (file size limit)"; break;
        case SIGXCPU: why = " (CPU time limit)"; break;
        case SIGSEGV: why = " (segmentation fault)"; break;
        case SIGKILL: why = " (killed)"; break;
        case SIGABRT: why = " (aborted)"; break;
        default: break;
        }
        snprintf(buf, size, "killed by %s%s", strsignal(res->term_signal), why);
    } else {
        snprintf(buf, size, "ended in an unknown way");
    }
    size_t n = strlen(buf);
    if (res->disk_full && n < size)
        snprintf(buf + n, size - n, "; stopped by the disk bound (its folder's tmpfs of %llu MiB full)",
                 (unsigned long long)(lim->disk_bytes >> 20));
    n = strlen(buf);
    if (res->tasks_full && n < size)
        snprintf(buf + n, size - n, "; stopped by the process bound (%u tasks at once)", lim->max_tasks);
}

void sb_sandbox_bounds(const sb_sandbox_result *res, const sb_sandbox_limits *lim, char *buf, size_t size)
{
    char disk[160], tasks[160], fsize[64] = ", no RLIMIT_FSIZE";
    if (lim->fsize_bytes)
        snprintf(fsize, sizeof fsize, ", RLIMIT_FSIZE %llu MiB a file", (unsigned long long)(lim->fsize_bytes >> 20));
    if (!lim->disk_bytes)
        snprintf(disk, sizeof disk, "the host's%s", fsize);
    else if (res->jailed)
        snprintf(disk, sizeof disk, "tmpfs of %llu MiB%s", (unsigned long long)(lim->disk_bytes >> 20), fsize);
    else
        snprintf(disk, sizeof disk, "the host's (no mount namespace)%s", fsize);
    int nproc_binds = geteuid() != 0;
    if (!lim->max_tasks)
        snprintf(tasks, sizeof tasks, "not bounded");
    else if (res->jailed && kernel_pidns_max())
        snprintf(tasks, sizeof tasks, "pid_max %u of its pid namespace", lim->max_tasks);
    else
        snprintf(tasks, sizeof tasks, "RLIMIT_NPROC %u%s", lim->max_tasks,
                 nproc_binds ? " (the user's processes, all together)" : " (does not bind root)");
    snprintf(buf, size, "disk: %s; tasks: %s", disk, tasks);
}
