/* bench_config.h - the timing protocol a candidate asks for in its
 * candidate/bench.json: read by `solbook forge verify` (the metadata gate
 * refuses a bad one) and by `solbook forge bench` (the harness runs it).
 */
#ifndef SOLBOOK_FORGE_BENCH_CONFIG_H
#define SOLBOOK_FORGE_BENCH_CONFIG_H

#include "error.h"

typedef struct sb_forge_bench_config {
    int warmup_iters, iters, repeats;
    int cold_l2;
    unsigned long long seed;
} sb_forge_bench_config;

/* Reads candidate/bench.json: optional keys warmup_iters (0-10000, default
 * 20), iters (1-10000, 50), repeats (1-100, 5), l2 ("cold"|"warm", cold),
 * seed (0-2^53, 1234); any other key is refused. */
int sb_forge_bench_config_load(const char *path, sb_forge_bench_config *c, sb_error *err);

#endif
