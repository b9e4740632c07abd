/* parse_many's list path: the records of str objects (a list's, a tuple's, a numpy
 * object array's items), for the fast loop of parse_objects in _bulk_c.pxi.  It takes
 * exact, compact-ASCII str objects that are valid tokens and stops at the first item
 * that is anything else; the exact scanner there decides that item and gives its
 * reason.  The caller holds the GIL and runs no Python code meanwhile, so no item can
 * change or be freed while this reads it.
 *
 * Two things make it fast:
 *
 * 1. No per-shape branch.  A token's bytes (at most 4; a str has its length plus a NUL
 *    readable, and nothing past that is read) are loaded as one integer, which
 *    sashite_key_record (_kernels.h) decodes through the kernels' record table; under
 *    the SIMD kernels, eight items' integers at once.
 * 2. Repeated objects are read once.  Data holds the same str objects many times over:
 *    CPython shares one object per 1-character string (str.split(), json, Arrow's
 *    to_pylist() all hand out those), and lists built from a vocabulary repeat theirs.
 *    A per-call table keyed by the object's address remembers each record, so a
 *    repeated item costs a load, a compare and a store.  Addresses are only compared
 *    within one call, while the caller keeps every item alive, so an address always
 *    means the same object.  Where few items repeat, probing only costs, so each chunk
 *    that mostly misses turns the table off for the next SASHITE_SEEN_REST chunks. */
#ifndef SASHITE_EPIN_STRS_H
#define SASHITE_EPIN_STRS_H

#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_kernels.h"

#define SASHITE_SEEN_SLOTS 2048  /* 32 KB: an L1 data cache's worth of entries */
#define SASHITE_SEEN_CHUNK 4096  /* items between two looks at the hit rate */
#define SASHITE_SEEN_REST 15     /* chunks without the table after a chunk that misses */

typedef struct {
    PyObject *str;
    uint64_t record;
} sashite_seen;

static inline uint16_t sashite_load16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* The record of str o's token, or 0 (not an exact compact-ASCII str, or not a token:
 * the caller's exact scanner says why).  records: the kernels' table (letter byte |
 * flags << 8).  PIN refuses the derivation marker. */
static inline uint64_t sashite_str_record(PyObject *o, const uint64_t *records, int epin)
{
    Py_ssize_t n;
    const unsigned char *p;
    if (!(Py_IS_TYPE(o, &PyUnicode_Type) && PyUnicode_IS_COMPACT_ASCII(o)))
        return 0;
    n = PyUnicode_GET_LENGTH(o);
    if ((size_t)(n - 1) > 3)  /* empty, or longer than any token */
        return 0;
    p = (const unsigned char *)((PyASCIIObject *)o + 1);  /* compact ASCII: right after */
    /* Bytes 0-1, then 2-3 when there are 3 or 4 (byte n is the NUL, so readable): a
     * 4-byte load could read past the object. */
    return sashite_key_record(
        sashite_key_bytes((uint32_t)sashite_load16(p)
                          | (uint32_t)sashite_load16(p + ((n >= 3) << 1)) << 16, n),
        n, records, epin);
}

static inline sashite_seen *sashite_seen_slot(sashite_seen *seen, PyObject *o)
{
    /* Objects of one size sit 64 bytes apart in CPython's allocator, the 1-character
     * singletons 56: mixing in bits from both scales keeps neighbours apart. */
    uintptr_t a = (uintptr_t)o;
    return &seen[((a >> 6) ^ (a >> 3)) & (SASHITE_SEEN_SLOTS - 1)];
}

/* The two loops are kept out of line (SASHITE_NOINLINE, _kernels.h). */
/* Items i..end-1 without the table; returns where it stopped. */
static SASHITE_NOINLINE Py_ssize_t sashite_str_run(const char *base, Py_ssize_t i,
                                                   Py_ssize_t end, Py_ssize_t stride,
                                                   unsigned char *out,
                                                   const uint64_t *records, int epin)
{
    uint64_t record;
    for (; i < end; i++) {
        record = sashite_str_record(*(PyObject *const *)(base + i * stride), records, epin);
        if (!record)
            break;
        memcpy(out + 5 * i, &record, 8);
    }
    return i;
}

/* Items i..end-1 through the table, counting hits; returns where it stopped. */
static SASHITE_NOINLINE Py_ssize_t sashite_str_run_seen(const char *base, Py_ssize_t i,
                                                        Py_ssize_t end, Py_ssize_t stride,
                                                        unsigned char *out,
                                                        const uint64_t *records, int epin,
                                                        sashite_seen *seen,
                                                        Py_ssize_t *hits)
{
    uint64_t record;
    Py_ssize_t found = 0;
    for (; i < end; i++) {
        PyObject *o = *(PyObject *const *)(base + i * stride);
        sashite_seen *slot = sashite_seen_slot(seen, o);
        if (slot->str == o) {
            memcpy(out + 5 * i, &slot->record, 8);
            found++;
            continue;
        }
        record = sashite_str_record(o, records, epin);
        if (!record)
            break;
        slot->str = o;
        slot->record = record;
        memcpy(out + 5 * i, &record, 8);
    }
    *hits = found;
    return i;
}

/* The two loops under errors="mark": an item sashite_str_record refuses gets the zero
 * record and its position appended to marks[*m ..] (room for end - i more), and the
 * loop goes on, so a column half missing or half invalid stays in it; the caller's
 * exact scanner reads only the marked positions after.  The table remembers refused
 * objects too (record 0): a column's None, or a typo repeated, is a load and a compare. */
static SASHITE_NOINLINE void sashite_str_run_marking(const char *base, Py_ssize_t i,
                                                     Py_ssize_t end, Py_ssize_t stride,
                                                     unsigned char *out,
                                                     const uint64_t *records, int epin,
                                                     Py_ssize_t *marks, Py_ssize_t *m)
{
    uint64_t record;
    Py_ssize_t k = *m;
    for (; i < end; i++) {
        record = sashite_str_record(*(PyObject *const *)(base + i * stride), records, epin);
        memcpy(out + 5 * i, &record, 8);
        marks[k] = i;
        k += !record;
    }
    *m = k;
}

static SASHITE_NOINLINE void sashite_str_run_seen_marking(const char *base, Py_ssize_t i,
                                                          Py_ssize_t end, Py_ssize_t stride,
                                                          unsigned char *out,
                                                          const uint64_t *records, int epin,
                                                          sashite_seen *seen,
                                                          Py_ssize_t *hits,
                                                          Py_ssize_t *marks, Py_ssize_t *m)
{
    uint64_t record;
    Py_ssize_t found = 0, k = *m;
    for (; i < end; i++) {
        PyObject *o = *(PyObject *const *)(base + i * stride);
        sashite_seen *slot = sashite_seen_slot(seen, o);
        if (slot->str == o) {
            record = slot->record;
            found++;
        } else {
            record = sashite_str_record(o, records, epin);
            slot->str = o;
            slot->record = record;
        }
        memcpy(out + 5 * i, &record, 8);
        marks[k] = i;
        k += !record;
    }
    *hits = found;
    *m = k;
}

/* Under AVX2 and AVX-512, items are read eight at a time: each one's type, state and
 * length are checked one by one (a str's bytes are read only once it is known to be
 * an exact compact-ASCII str of 1-4 characters), its length and bytes go into two
 * vectors, and the rule runs on the eight lanes at once (_kernels.h).  The scalar
 * decode above is some 60 instructions a token, and on lists of fresh objects that,
 * not memory, bounded the loop: per million fresh objects, a loop reading only each
 * one's type, state, length and first byte took 2.0 ms, the decode 4.4, these lanes
 * 2.5 (prefetching the objects ahead changed nothing). */
#ifdef SASHITE_EPIN_AVX2
#define SASHITE_STR_LANE(K)                                                                \
    o = *(PyObject *const *)(base + (K) * stride);                                        \
    if (!(Py_IS_TYPE(o, &PyUnicode_Type) && PyUnicode_IS_COMPACT_ASCII(o)))               \
        return 0;                                                                          \
    n##K = PyUnicode_GET_LENGTH(o);                                                        \
    if ((size_t)(n##K - 1) > 3)                                                            \
        return 0;                                                                          \
    p = (const unsigned char *)((PyASCIIObject *)o + 1);                                   \
    w##K = (uint32_t)sashite_load16(p) | (uint32_t)sashite_load16(p + ((n##K >= 3) << 1)) << 16;

/* The lengths and words of items base[0], base[stride], ... base[7 * stride], or 0 at
 * the first that is not an exact compact-ASCII str of 1-4 characters. */
SASHITE_AVX2_TARGET
static inline int sashite_str_group8(const char *base, Py_ssize_t stride, __m256i *n,
                                     __m256i *w)
{
    PyObject *o;
    const unsigned char *p;
    Py_ssize_t n0, n1, n2, n3, n4, n5, n6, n7;
    uint32_t w0, w1, w2, w3, w4, w5, w6, w7;
    SASHITE_STR_LANE(0) SASHITE_STR_LANE(1) SASHITE_STR_LANE(2) SASHITE_STR_LANE(3)
    SASHITE_STR_LANE(4) SASHITE_STR_LANE(5) SASHITE_STR_LANE(6) SASHITE_STR_LANE(7)
    *n = _mm256_setr_epi32((int)n0, (int)n1, (int)n2, (int)n3, (int)n4, (int)n5, (int)n6,
                           (int)n7);
    *w = _mm256_setr_epi32((int)w0, (int)w1, (int)w2, (int)w3, (int)w4, (int)w5, (int)w6,
                           (int)w7);
    return 1;
}
#undef SASHITE_STR_LANE

/* The same under errors="mark": an item that is not an exact compact-ASCII str of 1-4
 * characters gets length 0, which the rule refuses. */
#define SASHITE_STR_LANE_MARKING(K)                                                        \
    o = *(PyObject *const *)(base + (K) * stride);                                        \
    n##K = 0, w##K = 0;                                                                    \
    if (Py_IS_TYPE(o, &PyUnicode_Type) && PyUnicode_IS_COMPACT_ASCII(o)) {                \
        length = PyUnicode_GET_LENGTH(o);                                                  \
        if ((size_t)(length - 1) <= 3) {                                                   \
            p = (const unsigned char *)((PyASCIIObject *)o + 1);                           \
            n##K = length;                                                                 \
            w##K = (uint32_t)sashite_load16(p)                                             \
                   | (uint32_t)sashite_load16(p + ((length >= 3) << 1)) << 16;             \
        }                                                                                  \
    }

SASHITE_AVX2_TARGET
static inline void sashite_str_group8_marking(const char *base, Py_ssize_t stride,
                                              __m256i *n, __m256i *w)
{
    PyObject *o;
    const unsigned char *p;
    Py_ssize_t length;
    Py_ssize_t n0, n1, n2, n3, n4, n5, n6, n7;
    uint32_t w0, w1, w2, w3, w4, w5, w6, w7;
    SASHITE_STR_LANE_MARKING(0) SASHITE_STR_LANE_MARKING(1) SASHITE_STR_LANE_MARKING(2)
    SASHITE_STR_LANE_MARKING(3) SASHITE_STR_LANE_MARKING(4) SASHITE_STR_LANE_MARKING(5)
    SASHITE_STR_LANE_MARKING(6) SASHITE_STR_LANE_MARKING(7)
    *n = _mm256_setr_epi32((int)n0, (int)n1, (int)n2, (int)n3, (int)n4, (int)n5, (int)n6,
                           (int)n7);
    *w = _mm256_setr_epi32((int)w0, (int)w1, (int)w2, (int)w3, (int)w4, (int)w5, (int)w6,
                           (int)w7);
}
#undef SASHITE_STR_LANE_MARKING

/* The readers, one per x86 kernel (kernels/generic/strs.h). */
#define SASHITE_READERS "strs.h"
#include "kernels/generic/x86_readers.h"
#endif

#ifdef SASHITE_EPIN_NEON
/* NEON: the same eight items, their lengths and words into arrays for the rule on two
 * 4-lane vectors (_kernels.h). */
static inline int sashite_str_group8_neon(const char *base, Py_ssize_t stride, uint32_t *n,
                                          uint32_t *w)
{
    PyObject *o;
    const unsigned char *p;
    Py_ssize_t length;
    int k;
    for (k = 0; k < 8; k++) {
        o = *(PyObject *const *)(base + k * stride);
        if (!(Py_IS_TYPE(o, &PyUnicode_Type) && PyUnicode_IS_COMPACT_ASCII(o)))
            return 0;
        length = PyUnicode_GET_LENGTH(o);
        if ((size_t)(length - 1) > 3)
            return 0;
        p = (const unsigned char *)((PyASCIIObject *)o + 1);
        n[k] = (uint32_t)length;
        w[k] = (uint32_t)sashite_load16(p) | (uint32_t)sashite_load16(p + ((length >= 3) << 1)) << 16;
    }
    return 1;
}

static SASHITE_NOINLINE Py_ssize_t sashite_str_lanes_neon(const char *base, Py_ssize_t i,
                                                          Py_ssize_t count, Py_ssize_t stride,
                                                          unsigned char *out,
                                                          const uint64_t *records, int epin)
{
#define SASHITE_LANES_STATE SASHITE_LANES_STATE_NEON
#define SASHITE_LANES_WRITE sashite_write_scalar
#define SASHITE_LANES_GROUP(I, TO)                                                         \
    (sashite_str_group8_neon(base + (I) * stride, stride, n, w)                            \
     && sashite_keys8_neon(n, w, epin, TO))
#include "kernels/generic/lanes.h"
#undef SASHITE_LANES_GROUP
#include "kernels/generic/undef.h"
}
#endif

/* Items i..end-1 without the table: in groups of eight under a SIMD kernel, the
 * group that holds something else (and the last items) by the scalar loop, which
 * stops at the first item it refuses; returns where it stopped. */
static Py_ssize_t sashite_str_plain(const char *base, Py_ssize_t i, Py_ssize_t end,
                                    Py_ssize_t stride, unsigned char *out,
                                    const uint64_t *records, int epin, int kernel)
{
    Py_ssize_t upto, done;
    if (!sashite_kernel_lanes(kernel))
        return sashite_str_run(base, i, end, stride, out, records, epin);
    while (i < end) {
#ifdef SASHITE_EPIN_AVX2
        if (kernel == SASHITE_KERNEL_AVX512)
            i = sashite_str_lanes_avx512(base, i, end, stride, out, records, epin);
        else
            i = sashite_str_lanes_avx2(base, i, end, stride, out, records, epin);
#endif
#ifdef SASHITE_EPIN_NEON
        i = sashite_str_lanes_neon(base, i, end, stride, out, records, epin);
#endif
        upto = end - i > 8 ? i + 8 : end;
        done = sashite_str_run(base, i, upto, stride, out, records, epin);
        if (done < upto)
            return done;
        i = upto;
    }
    return i;
}

/* sashite_str_plain under errors="mark": every item i..end-1 written, the refused
 * ones' positions appended to marks[*m ..] (room for end - i more).  NEON reads these
 * one at a time (no marking lanes there yet): the same records and marks. */
static void sashite_str_plain_marking(const char *base, Py_ssize_t i, Py_ssize_t end,
                                      Py_ssize_t stride, unsigned char *out,
                                      const uint64_t *records, int epin, int kernel,
                                      Py_ssize_t *marks, Py_ssize_t *m)
{
#ifdef SASHITE_EPIN_AVX2
    if (kernel == SASHITE_KERNEL_AVX512)
        i = sashite_str_lanes_marking_avx512(base, i, end, stride, out, records, epin, marks,
                                             m);
    else if (kernel == SASHITE_KERNEL_AVX2)
        i = sashite_str_lanes_marking_avx2(base, i, end, stride, out, records, epin, marks, m);
#endif
    (void)kernel;
    sashite_str_run_marking(base, i, end, stride, out, records, epin, marks, m);
}

/* One call's reader: the address table and how many chunks it rests.  It outlives
 * each stop at an item the fast loop refuses, so the caller can read that item
 * exactly and hand the rest back (a list with missing values stays on the fast loop
 * between them) without zeroing a new table each time. */
typedef struct {
    sashite_seen *seen; /* NULL: no table */
    int rest;           /* chunks still to read without it */
    int kernel;         /* the bytes kernel: SIMD ones read eight items at a time */
    int warming;        /* the table was just emptied: its next chunk's misses are its own */
} sashite_str_reader;

/* A list shorter than a chunk is not worth zeroing a table for; if the table cannot
 * be allocated, the items are read without it. */
static void sashite_str_reader_open(sashite_str_reader *r, Py_ssize_t count, int kernel)
{
    r->seen = NULL;
    if (count >= SASHITE_SEEN_CHUNK)
        r->seen = (sashite_seen *)calloc(SASHITE_SEEN_SLOTS, sizeof(sashite_seen));
    r->rest = 0;
    r->kernel = kernel;
    r->warming = 0;
}

/* After Python code ran (a signal handler, a collection): a str the table remembers
 * may be gone and its address taken by another. */
static void sashite_str_reader_forget(sashite_str_reader *r)
{
    if (r->seen != NULL)
        memset(r->seen, 0, SASHITE_SEEN_SLOTS * sizeof(sashite_seen));
    r->warming = 1;
}

static void sashite_str_reader_close(sashite_str_reader *r)
{
    free(r->seen);
    r->seen = NULL;
}

/* Writes the 5-byte records of items base[i * stride], ... (i up to count - 1) to
 * out + 5 * i (8-byte stores: 3 bytes of slack after the last) until an item
 * sashite_str_record refuses; returns that item's index, or count. */
static Py_ssize_t sashite_str_records(sashite_str_reader *r, const char *base, Py_ssize_t i,
                                      Py_ssize_t count, Py_ssize_t stride, unsigned char *out,
                                      const uint64_t *records, int epin)
{
    Py_ssize_t end, done, hits;
    while (i < count) {
        end = count - i > SASHITE_SEEN_CHUNK ? i + SASHITE_SEEN_CHUNK : count;
        if (r->seen == NULL || r->rest > 0) {
            done = sashite_str_plain(base, i, end, stride, out, records, epin, r->kernel);
            if (r->rest > 0)
                r->rest--;
        } else {
            done = sashite_str_run_seen(base, i, end, stride, out, records, epin, r->seen,
                                        &hits);
            /* Under three hits in four, the table costs more than it saves; under
             * seven in eight where the SIMD kernels read the misses. */
            if (!r->warming
                && 8 * hits < (sashite_kernel_lanes(r->kernel) ? 7 : 6) * (done - i))
                r->rest = SASHITE_SEEN_REST;
            r->warming = 0;
        }
        if (done < end)
            return done;
        i = end;
    }
    return i;
}

/* sashite_str_records under errors="mark": every item i..count-1 written, the zero
 * record and its position in marks[*m ..] (room for count - i more) for each item
 * sashite_str_record refuses, which the caller's exact scanner then reads. */
static void sashite_str_records_marking(sashite_str_reader *r, const char *base,
                                        Py_ssize_t i, Py_ssize_t count, Py_ssize_t stride,
                                        unsigned char *out, const uint64_t *records, int epin,
                                        Py_ssize_t *marks, Py_ssize_t *m)
{
    Py_ssize_t end, hits;
    while (i < count) {
        end = count - i > SASHITE_SEEN_CHUNK ? i + SASHITE_SEEN_CHUNK : count;
        if (r->seen == NULL || r->rest > 0) {
            sashite_str_plain_marking(base, i, end, stride, out, records, epin, r->kernel,
                                      marks, m);
            if (r->rest > 0)
                r->rest--;
        } else {
            sashite_str_run_seen_marking(base, i, end, stride, out, records, epin, r->seen,
                                         &hits, marks, m);
            if (!r->warming
                && 8 * hits < (sashite_kernel_lanes(r->kernel) ? 7 : 6) * (end - i))
                r->rest = SASHITE_SEEN_REST;
            r->warming = 0;
        }
        i = end;
    }
}

#endif
