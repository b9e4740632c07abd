/* Memory for a TokenArray's records and the export's largest buffers.  A result of ten
 * million tokens is 50 MB, which malloc maps fresh and the kernel faults in page by page
 * (12,000 faults, three times the parse itself on the machines measured), and gives
 * back to the system when the result is freed: a loop that parses big inputs one after
 * another paid that on every call.  The Arrow export of a tokenize_many result adds two
 * int64 fields (8 bytes a token each), which put glibc past the point where it trims
 * its heap on free: each export then faulted in 16 bytes a token afresh.
 *
 * So the last freed blocks of 1 MiB or more are kept, four at most and 128 MiB in all
 * (SASHITE_SPARE_CAP): the most recently freed first; a fifth, or the oldest ones past
 * the cap, are given back, and a block larger than the cap is given back at once.  The
 * next allocation that fits a spare (without leaving more than three quarters unused)
 * takes it.  A spare more than four times too large for an allocation it meets is given
 * back, so a big block does not outlive the work it was for.  sashite_release_spares
 * gives every spare back (sashite_epin.release_memory()).
 *
 * Each slot is swapped atomically: threads without the GIL may allocate and free, and a
 * block is only ever in one thread's hands.  The bytes kept are counted atomically too:
 * a block's capacity is added before it goes into a slot and taken off once it is out,
 * so the count is never below what the slots hold (and is exactly that when no thread
 * is between the two steps).  Allocations under 1 MiB touch neither.
 *
 * Each block has a small header with its capacity before the memory handed out. */
#ifndef SASHITE_EPIN_MEMORY_H
#define SASHITE_EPIN_MEMORY_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#define SASHITE_EXCHANGE(slot, value) _InterlockedExchangePointer((void *volatile *)(slot), (value))
#ifdef _WIN64
#define SASHITE_FETCH_ADD(count, value) \
    ((size_t)_InterlockedExchangeAdd64((__int64 volatile *)(count), (__int64)(value)))
#else
#define SASHITE_FETCH_ADD(count, value) \
    ((size_t)_InterlockedExchangeAdd((long volatile *)(count), (long)(value)))
#endif
#else
#define SASHITE_EXCHANGE(slot, value) __atomic_exchange_n((slot), (value), __ATOMIC_ACQ_REL)
#define SASHITE_FETCH_ADD(count, value) __atomic_fetch_add((count), (value), __ATOMIC_ACQ_REL)
#endif

#define SASHITE_SPARE_MIN ((size_t)1 << 20)
#define SASHITE_SPARE_SLOTS 4
#ifndef SASHITE_SPARE_CAP
/* Room for what one big call frees, kept whole for the next: the records of twenty
 * million tokens (100 MB), or the boards of 200,000 chess placements (their squares,
 * ranks and separators, 94 MB of blocks).  docs/guide.md says this number. */
#define SASHITE_SPARE_CAP ((size_t)128 << 20)
#endif

typedef struct {
    size_t capacity;
    size_t pad; /* keeps what follows 16-byte aligned */
} sashite_block;

static void *volatile sashite_spares[SASHITE_SPARE_SLOTS]; /* sashite_block*s, or NULL */
static volatile size_t sashite_spare_bytes; /* their capacities: see above */

/* Slot i swapped for block in (NULL: emptied), and the count kept over the swap: what
 * goes in is counted before it is there, what comes out once it is no longer. */
static sashite_block *sashite_swap_spare(int i, sashite_block *in) {
    sashite_block *out;
    if (in != NULL) SASHITE_FETCH_ADD(&sashite_spare_bytes, in->capacity);
    out = (sashite_block *)SASHITE_EXCHANGE(&sashite_spares[i], in);
    if (out != NULL) SASHITE_FETCH_ADD(&sashite_spare_bytes, (size_t)0 - out->capacity);
    return out;
}

/* The bytes the spares hold (a block on its way into or out of a slot counted too). */
static size_t sashite_spares_held(void) {
    return SASHITE_FETCH_ADD(&sashite_spare_bytes, 0);
}

/* The oldest spares given back until what is kept is within SASHITE_SPARE_CAP.  A block
 * another thread is putting in may already be counted: one more spare given back then,
 * never one too few once the last thread is done. */
static void sashite_trim_spares(void) {
    int i;
    for (i = SASHITE_SPARE_SLOTS - 1; i >= 0 && sashite_spares_held() > SASHITE_SPARE_CAP; i--)
        free(sashite_swap_spare(i, NULL));
}

/* Every spare given back; the bytes they held.  On glibc the heap's free pages are then
 * trimmed too, as a spare below glibc's mmap threshold (up to 32 MiB) would otherwise
 * stay in its heap, resident, for malloc to reuse. */
static size_t sashite_release_spares(void) {
    sashite_block *b;
    size_t released = 0;
    int i;
    for (i = 0; i < SASHITE_SPARE_SLOTS; i++) {
        b = sashite_swap_spare(i, NULL);
        if (b == NULL) continue;
        released += b->capacity;
        free(b);
    }
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    return released;
}

/* A spare block that fits size (see above), or NULL. */
static sashite_block *sashite_take_spare(size_t size) {
    sashite_block *b, *taken = NULL;
    int i, kept = 0;
    if (size < SASHITE_SPARE_MIN) return NULL;
    for (i = 0; i < SASHITE_SPARE_SLOTS && taken == NULL; i++) {
        b = sashite_swap_spare(i, NULL);
        if (b == NULL) continue;
        if (b->capacity / 4 > size) {
            free(b); /* far too large: back to the system */
        } else if (b->capacity >= size) {
            taken = b;
        } else {
            /* too small here, kept for another; a block another thread freed into
             * the slot meanwhile is given back */
            free(sashite_swap_spare(i, b));
            kept = 1;
        }
    }
    if (kept) sashite_trim_spares(); /* another thread's spare may have come in meanwhile */
    return taken;
}

static void *sashite_records_alloc(size_t size) {
    sashite_block *b = sashite_take_spare(size);
    if (b != NULL) return b + 1;
    b = (sashite_block *)malloc(sizeof *b + size);
    if (b == NULL) return NULL;
    b->capacity = size;
    return b + 1;
}

static void sashite_records_free(void *p) {
    sashite_block *b;
    int i;
    if (p == NULL) return;
    b = (sashite_block *)p - 1;
    if (b->capacity < SASHITE_SPARE_MIN || b->capacity > SASHITE_SPARE_CAP) {
        free(b); /* small, or more than the spares may hold: back to malloc */
        return;
    }
    for (i = 0; i < SASHITE_SPARE_SLOTS && b != NULL; i++) /* the older ones move on */
        b = sashite_swap_spare(i, b);
    free(b); /* NULL, or the oldest spare */
    sashite_trim_spares();
}

/* A block growing to size whose first used bytes matter (an Arrow stream's records,
 * chunk after chunk, whose total nobody states beforehand): a spare of any capacity
 * that holds size is taken before realloc is asked, so the pages the last result
 * touched are written again instead of fresh ones faulted in (a stream of 40 chunks
 * faulted in its whole result, 2.5 ns a token, where one array of the same entries
 * took a spare).  A spare too large for what the stream turns out to hold is handed
 * back by sashite_records_fit. */
static void *sashite_records_realloc(void *p, size_t size);
static void *sashite_records_grow(void *p, size_t used, size_t size) {
    sashite_block *b, *taken = NULL;
    int i, kept = 0;
    if (p == NULL) return sashite_records_alloc(size);
    if (size <= ((sashite_block *)p - 1)->capacity) return p;
    if (size >= SASHITE_SPARE_MIN) {
        for (i = 0; i < SASHITE_SPARE_SLOTS && taken == NULL; i++) {
            b = sashite_swap_spare(i, NULL);
            if (b == NULL) continue;
            if (b->capacity >= size) {
                taken = b;
            } else { /* too small, kept for another (as sashite_records_alloc does) */
                free(sashite_swap_spare(i, b));
                kept = 1;
            }
        }
        if (kept) sashite_trim_spares();
        if (taken != NULL) {
            memcpy(taken + 1, p, used);
            sashite_records_free(p);
            return taken + 1;
        }
    }
    return sashite_records_realloc(p, size);
}

/* The block of a finished stream holding size bytes: a spare taken by
 * sashite_records_grow more than four times too large goes back to the spares (its
 * bytes copied to a block that fits), as sashite_records_alloc would not have given
 * it.  NULL when out of memory (p is then still the caller's). */
static void *sashite_records_fit(void *p, size_t size) {
    void *fit;
    if (p == NULL || ((sashite_block *)p - 1)->capacity / 4 <= size) return p;
    if (((sashite_block *)p - 1)->capacity < SASHITE_SPARE_MIN) return p;
    fit = sashite_records_alloc(size);
    if (fit == NULL) return NULL;
    memcpy(fit, p, size);
    sashite_records_free(p);
    return fit;
}

static void *sashite_records_realloc(void *p, size_t size) {
    sashite_block *b, *spare;
    if (p == NULL) return sashite_records_alloc(size);
    b = (sashite_block *)p - 1;
    if (size <= b->capacity) return p;
    /* Grown past the size of a spare: a spare that fits, if one is kept, with what the
     * block held copied in (a list grown by doubling from small would otherwise never
     * meet one, and fault in fresh memory at each call). */
    spare = sashite_take_spare(size);
    if (spare != NULL) {
        memcpy(spare + 1, p, b->capacity);
        sashite_records_free(p);
        return spare + 1;
    }
    b = (sashite_block *)realloc(b, sizeof *b + size);
    if (b == NULL) return NULL;
    b->capacity = size;
    return b + 1;
}

#endif
