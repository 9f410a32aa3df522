/* host_parallel.c - see host_parallel.h. */
#include "host_parallel.h"

#include <pthread.h>
#include <unistd.h>

#define MAX_THREADS 64

typedef struct worker {
    int parts, threads, index;
    void (*fn)(void *arg, int part);
    void *arg;
} worker;

static void *worker_run(void *p)
{
    worker *w = p;
    for (int part = w->index; part < w->parts; part += w->threads)
        w->fn(w->arg, part);
    return NULL;
}

void sb_host_parallel(int parts, int max_threads, void (*fn)(void *arg, int part), void *arg)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = parts < max_threads ? parts : max_threads;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if (cpus > 0 && threads > cpus)
        threads = (int)cpus;
    if (threads < 1)
        threads = 1;
    worker w[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int k = 0; k < threads; k++)
        w[k] = (worker){parts, threads, k, fn, arg};
    for (int k = 1; k < threads; k++)
        started[k] = pthread_create(&tid[k], NULL, worker_run, &w[k]) == 0;
    worker_run(&w[0]);
    for (int k = 1; k < threads; k++) {
        if (started[k])
            pthread_join(tid[k], NULL);
        else
            worker_run(&w[k]);
    }
}
