/* Memory for a TokenArray's records.  A result of ten million tokens is 50 MB, which
 * malloc maps fresh and the kernel faults in page by page (12,000 faults, three times
 * the parse itself on the machines measured), and gives back to the system when the
 * result is freed: a loop that parses big inputs one after another paid that on every
 * call.  So the last freed block of 1 MiB or more is kept, one block only, and the next
 * result that fits in it (without leaving more than three quarters unused) takes it.
 * The slot is swapped atomically: threads without the GIL may allocate and free.
 *
 * Each block has a small header with its capacity before the memory handed out. */
#ifndef SASHITE_EPIN_MEMORY_H
#define SASHITE_EPIN_MEMORY_H

#include <stddef.h>
#include <stdlib.h>

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#define SASHITE_EXCHANGE(slot, value) _InterlockedExchangePointer((void *volatile *)(slot), (value))
#else
#define SASHITE_EXCHANGE(slot, value) __atomic_exchange_n((slot), (value), __ATOMIC_ACQ_REL)
#endif

#define SASHITE_SPARE_MIN ((size_t)1 << 20)

typedef struct {
    size_t capacity;
    size_t pad; /* keeps what follows 16-byte aligned */
} sashite_block;

static void *volatile sashite_spare = NULL; /* a sashite_block*, or NULL */

static void *sashite_records_alloc(size_t size) {
    sashite_block *b;
    if (size >= SASHITE_SPARE_MIN) {
        b = (sashite_block *)SASHITE_EXCHANGE(&sashite_spare, NULL);
        if (b != NULL) {
            if (b->capacity >= size && b->capacity / 4 <= size) return b + 1;
            free(b); /* not for this size: back to the system, as before */
        }
    }
    b = (sashite_block *)malloc(sizeof *b + size);
    if (b == NULL) return NULL;
    b->capacity = size;
    return b + 1;
}

static void sashite_records_free(void *p) {
    sashite_block *b;
    if (p == NULL) return;
    b = (sashite_block *)p - 1;
    if (b->capacity >= SASHITE_SPARE_MIN) b = (sashite_block *)SASHITE_EXCHANGE(&sashite_spare, b);
    free(b); /* the block given back, or the one it took the place of */
}

static void *sashite_records_realloc(void *p, size_t size) {
    sashite_block *b;
    if (p == NULL) return sashite_records_alloc(size);
    b = (sashite_block *)p - 1;
    if (size <= b->capacity) return p;
    b = (sashite_block *)realloc(b, sizeof *b + size);
    if (b == NULL) return NULL;
    b->capacity = size;
    return b + 1;
}

#endif
