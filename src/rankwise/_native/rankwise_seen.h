/*
 * The documents seen in the current block of one query (a duplicate check):
 * an open-addressing set cleared in O(1) per block by a generation number.
 * Shared by rankwise.io._ctrec and rankwise.data._ccolumns, which keep different
 * things per document: include after defining `Seen`, a struct with at least
 * `uint64_t hash` and `uint32_t generation` (a slot is taken when its
 * generation is the set's), and write seen_add, which compares what the
 * module keeps.
 */
#ifndef RANKWISE_SEEN_H
#define RANKWISE_SEEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    Seen *slots;
    size_t cap;
    size_t count;
    uint32_t generation;
} SeenSet;

static int
seen_init(SeenSet *set)
{
    set->cap = 2048;
    set->count = 0;
    set->generation = 1;
    set->slots = calloc(set->cap, sizeof(Seen));
    return set->slots == NULL ? -1 : 0;
}

static void
seen_clear(SeenSet *set)
{
    set->count = 0;
    set->generation++;
    if (set->generation == 0) { /* wrapped: really clear */
        memset(set->slots, 0, set->cap * sizeof(Seen));
        set->generation = 1;
    }
}

static int
seen_grow(SeenSet *set)
{
    size_t cap = set->cap * 2;
    Seen *slots = calloc(cap, sizeof(Seen));
    if (slots == NULL) {
        return -1;
    }
    for (size_t i = 0; i < set->cap; i++) {
        if (set->slots[i].generation == set->generation) {
            size_t at = (size_t)set->slots[i].hash & (cap - 1);
            while (slots[at].generation == set->generation) {
                at = (at + 1) & (cap - 1);
            }
            slots[at] = set->slots[i];
        }
    }
    free(set->slots);
    set->slots = slots;
    set->cap = cap;
    return 0;
}

#endif /* RANKWISE_SEEN_H */
