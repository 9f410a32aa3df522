/* shape_key.h - the text key of a case's shape, as the database stores it
 * in configs.shape_key: "K=4096,M=4096,N=4096", the names in byte order,
 * each with its integer value. One function so that ingest and the readers
 * that match against stored runs (fleet gather) build the same key. */
#ifndef SOLBOOK_CORE_SHAPE_KEY_H
#define SOLBOOK_CORE_SHAPE_KEY_H

#include <jansson.h>

/* A malloc'd key of the shape object ("" for an empty object); NULL when
 * out of memory. */
char *sb_shape_key(const json_t *shape);

#endif
