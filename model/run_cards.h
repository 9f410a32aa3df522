/* run_cards.h - the physical card of each result run, by its GPU UUID
 * (provenance.device.uuid), as reports read it: regressions prefer steps
 * between runs of one card (report/regress.h). db/run_devices.h loads
 * them. Nothing here reads the database.
 */
#ifndef SOLBOOK_MODEL_RUN_CARDS_H
#define SOLBOOK_MODEL_RUN_CARDS_H

#include <stddef.h>

typedef struct sb_run_devices {
    long long *run_id; /* ascending */
    char **uuid;       /* NULL where the run recorded none */
    size_t n;
} sb_run_devices;

void sb_run_devices_free(sb_run_devices *d);
/* The UUID of run_id, or NULL when unknown. */
const char *sb_run_device(const sb_run_devices *d, long long run_id);

#endif
