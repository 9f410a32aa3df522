/* host_parallel.h - run the parts of a host-side job (filling an input,
 * a float64 reference over every row) on a few threads. */
#ifndef SOLBOOK_BENCH_HOST_PARALLEL_H
#define SOLBOOK_BENCH_HOST_PARALLEL_H

/* Runs fn(arg, part) for part = 0 .. parts-1 on up to max_threads threads
 * (no more than the online CPUs; part k goes to thread k mod threads) and
 * returns when all are done. A thread that cannot be started leaves its
 * parts to the caller's thread, so every part always runs. Callers that
 * sum give each part its own slot and add the slots in part order, so
 * that the result does not depend on the thread count. */
void sb_host_parallel(int parts, int max_threads, void (*fn)(void *arg, int part), void *arg);

#endif
