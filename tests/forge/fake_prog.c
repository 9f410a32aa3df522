/* fake_prog.c - the program fake_nvcc.sh "builds" (it compiles this file
 * with the host's cc): acts as forge_test or forge_bench by its name, as
 * NAME.params says (see fake_nvcc.sh). A compiled program, not a script,
 * because the sandbox lets a test or bench program execute nothing but
 * itself. */
#define _GNU_SOURCE /* fallocate */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* disk-fill: 4 x 1000 MiB of disk, taken 1 MiB at a time by fallocate
 * without changing the files' sizes (FALLOC_FL_KEEP_SIZE, which
 * RLIMIT_FSIZE does not see); exit 1 when any of it is refused. */
static int disk_fill(void)
{
    long taken = 0;
    for (int i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof name, "fill%d.bin", i);
        int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        for (off_t mb = 0; fd >= 0 && mb < 1000 && fallocate(fd, FALLOC_FL_KEEP_SIZE, mb << 20, 1 << 20) == 0; mb++)
            taken++;
        if (fd >= 0)
            close(fd);
    }
    fprintf(stderr, "took %ld of 4000 MiB\n", taken);
    return taken == 4000 ? 0 : 1;
}

/* fork-bomb: forks until fork fails and keeps trying for a second; the
 * children, named fake-fork-bomb, wait forever; exit 1. */
static int fork_bomb(void)
{
    long made = 0;
    for (int tries = 0; tries < 100 && made < 100000;) {
        pid_t p = fork();
        if (p == 0) {
            prctl(PR_SET_NAME, "fake-fork-bomb", 0, 0, 0);
            for (;;)
                pause();
        }
        if (p > 0) {
            made++;
            continue;
        }
        tries++;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "made %ld processes\n", made);
    return 1;
}

static void provider(FILE *o, const char *name, double ms, int iters, int repeats)
{
    fprintf(o, "{\"name\": \"%s\", \"error\": null, \"check\": {\"reference\": \"float64-host\", "
               "\"checked_elements\": 16, \"max_abs_err\": 0.0078125, \"max_rel_err\": 0.004, \"rel_l2_err\": 0.002, "
               "\"atol\": 0.01, \"rtol\": 0.016, \"unwritten\": 0, \"finite\": true, \"passed\": true}, \"samples\": [",
            name);
    for (int r = 0; r < repeats; r++) {
        fputs(r ? ", [" : "[", o);
        for (int i = 0; i < iters; i++)
            fprintf(o, "%s%.6f", i ? ", " : "", ms * (1 + 0.001 * ((r * iters + i) % 7)));
        fputs("]", o);
    }
    fputs("]}", o);
}

static int bench(const char *mode, int argc, char **argv)
{
    if (strcmp(mode, "bench-hang") == 0)
        for (;;)
            ;
    if (strcmp(mode, "bench-silent") == 0)
        return 0;
    double cand = 0.02, base = 0.06;
    if (strncmp(mode, "ms=", 3) == 0 && sscanf(mode + 3, "%lf,%lf", &cand, &base) != 2)
        return 2;
    const char *out = NULL, *l2 = "cold";
    int iters = 50, repeats = 5, warm = 20;
    const char *shapes[64];
    int nshapes = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--out") == 0)
            out = argv[i + 1];
        else if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--repeats") == 0)
            repeats = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--warmup") == 0)
            warm = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--l2") == 0)
            l2 = argv[i + 1];
        else if (strcmp(argv[i], "--shape") == 0 && nshapes < 64)
            shapes[nshapes++] = argv[i + 1];
    }
    FILE *o = out ? fopen(out, "w") : NULL;
    if (!o)
        return 2;
    fprintf(o, "{\"harness\": \"forge_bench\", \"harness_version\": 1, \"device\": {\"index\": 0, "
               "\"name\": \"NVIDIA H100 80GB HBM3\", \"compute_capability\": \"9.0\", \"sm_count\": 132, "
               "\"memory_bytes\": 85520809984, \"l2_bytes\": 52428800, \"uuid\": \"GPU-fake\", "
               "\"cuda_runtime_version\": \"13.0\", \"cuda_driver_api_version\": \"13.0\"}, "
               "\"protocol\": {\"warmup_iters\": %d, \"iters\": %d, \"repeats\": %d, \"l2\": \"%s\", "
               "\"input_sets\": 1, \"graph\": false, \"seed\": 1234}, \"cases\": [",
            warm, iters, repeats, l2);
    for (int k = 0; k < nshapes; k++) {
        fprintf(o, "%s{\"shape\": {", k ? ", " : "");
        char buf[512];
        snprintf(buf, sizeof buf, "%s", shapes[k]);
        int d = 0;
        for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(kv, '=');
            if (!eq)
                return 2;
            *eq = '\0';
            fprintf(o, "%s\"%s\": %s", d++ ? ", " : "", kv, eq + 1);
        }
        fputs("}, \"bytes\": 67117056, \"flops\": 67108864, \"problem_device_bytes\": 134234112, \"providers\": [", o);
        provider(o, "candidate", cand, iters, repeats);
        fputs(", ", o);
        provider(o, "baseline", base, iters, repeats);
        fputs("]}", o);
    }
    fputs("]}\n", o);
    return fclose(o) == 0 ? 0 : 2;
}

int main(int argc, char **argv)
{
    char path[4096], mode[256] = "";
    snprintf(path, sizeof path, "%s.params", argv[0]);
    FILE *p = fopen(path, "r");
    if (!p || !fgets(mode, sizeof mode, p)) {
        fprintf(stderr, "fake_prog: cannot read %s\n", path);
        return 2;
    }
    fclose(p);
    mode[strcspn(mode, "\n")] = '\0';
    const char *name = strrchr(argv[0], '/');
    name = name ? name + 1 : argv[0];
    if (strcmp(name, "forge_test") == 0) {
        if (strcmp(mode, "hang") == 0)
            for (;;)
                ;
        if (strcmp(mode, "disk-fill") == 0)
            return disk_fill();
        if (strcmp(mode, "fork-bomb") == 0)
            return fork_bomb();
        if (strcmp(mode, "fail") == 0) {
            fprintf(stderr, "M=3 N=7: FAIL max_abs_err=0.5 max_rel_err=0.3 unwritten=0\n");
            return 1;
        }
        printf("M=1 N=1: ok\n");
        return 0;
    }
    if (strcmp(name, "forge_bench") == 0)
        return bench(mode, argc, argv);
    fprintf(stderr, "fake_prog: unknown name %s\n", argv[0]);
    return 2;
}
