/* A FEEN piece placement, whole, in one pass: the C behind the C API's scan_placement
 * and format_placement (_placement_c.pxi wraps them; docs/capi.md gives the contract).
 *
 * scan: a class table and a switch, one case per kind of byte; the token's code comes
 * from a second table (the letter's bits with rank normal), so the common square, a
 * plain letter, is two loads and a store.  A run of empty squares of at most 8 is one
 * 16-byte store of CODE_NONE (-1: every byte 0xFF) where the room allows, not a loop.
 * Only the first fault is judged, and the token grammar's reasons are the core's
 * (the wrapper asks stop_reason), so nothing here knows them beyond "not a token".
 *
 * format: each code's token is 4 bytes of a table and its length; with 4 bytes of room
 * left the 4 are stored at once and the output moves on by the length. */
#ifndef SASHITE_PLACEMENT_H
#define SASHITE_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#define SASHITE_LIKELY(x) __builtin_expect(!!(x), 1)
#define SASHITE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SASHITE_LIKELY(x) (x)
#define SASHITE_UNLIKELY(x) (x)
#endif

/* Byte kinds of a placement. */
enum { SP_OTHER, SP_LETTER, SP_MODIFIER, SP_DIGIT, SP_ZERO, SP_SLASH };

/* What sashite_scan_placement returns besides 0 and minus a placement reason: no token
 * starts at *error_at, and the wrapper asks the core's stop_reason why. */
#define SP_NOT_A_TOKEN (-1000)

typedef struct {
    unsigned char kind[256];
    /* A letter's code with rank normal; a modifier's rank bits as the code has them. */
    uint16_t bits[256];
    /* kind << 12 | bits: one load a byte tells both */
    uint16_t entry[256];
    /* format: the token of each code below 832, 4 bytes, and its length (0: no code). */
    char text[832][4];
    unsigned char length[832];
    int ready;
} sashite_placement_tables;

static sashite_placement_tables sashite_pt;

/* layout: letter(5) | side(1) | rank(2) | terminal(1) | derived(1); rank 2 is normal,
 * 1 enhanced, 0 diminished (_core_c.pxd's, checked there against _layout.py). */
static void sashite_placement_init(void)
{
    int b, code;
    for (b = 0; b < 256; b++) {
        sashite_pt.kind[b] = SP_OTHER;
        sashite_pt.bits[b] = 0;
    }
    for (b = 'A'; b <= 'Z'; b++) {
        sashite_pt.kind[b] = sashite_pt.kind[b + 32] = SP_LETTER;
        sashite_pt.bits[b] = (uint16_t)(((b - 'A') << 5) | (2 << 2));
        sashite_pt.bits[b + 32] = (uint16_t)(((b - 'A') << 5) | (1 << 4) | (2 << 2));
    }
    for (b = '1'; b <= '9'; b++)
        sashite_pt.kind[b] = SP_DIGIT;
    sashite_pt.kind['0'] = SP_ZERO;
    sashite_pt.kind['/'] = SP_SLASH;
    sashite_pt.kind['+'] = sashite_pt.kind['-'] = SP_MODIFIER;
    /* what to take off a letter's normal rank: 2 - 1 for "+", 2 - 0 for "-" */
    sashite_pt.bits['+'] = 1 << 2;
    sashite_pt.bits['-'] = 2 << 2;
    for (b = 0; b < 256; b++)
        sashite_pt.entry[b] = (uint16_t)((sashite_pt.kind[b] << 12) | sashite_pt.bits[b]);
    for (code = 0; code < 832; code++) {
        int rank = (code >> 2) & 3, n = 0;
        char *t = sashite_pt.text[code];
        memset(t, 0, 4);
        if (rank == 3) {
            sashite_pt.length[code] = 0;
            continue;
        }
        if (rank != 2)
            t[n++] = rank == 0 ? '-' : '+';
        t[n++] = (char)(((code >> 4) & 1 ? 'a' : 'A') + (code >> 5));
        if (code & 2)
            t[n++] = '^';
        if (code & 1)
            t[n++] = '\'';
        sashite_pt.length[code] = (unsigned char)n;
    }
    sashite_pt.ready = 1;
}

static const int16_t sashite_none8[8] = {-1, -1, -1, -1, -1, -1, -1, -1};

/* The scan, for one notation (epin a constant in each caller, so the compiler makes
 * two loops).  Returns 0, minus a placement reason (R_* of _core_c.pxd), or
 * SP_NOT_A_TOKEN; *error_at is the offset of the fault, *last where the last token
 * read starts (-1: none), for stop_reason. */
static inline __attribute__((always_inline)) int sashite_scan_placement_as(
    const unsigned char *p, Py_ssize_t n, const int epin, int16_t *squares,
    Py_ssize_t square_room, Py_ssize_t *square_count, int32_t *rank_lengths,
    uint8_t *separators, Py_ssize_t rank_room, Py_ssize_t *rank_count,
    Py_ssize_t *error_at, Py_ssize_t *last)
{
    const unsigned char *kind = sashite_pt.kind;
    const uint16_t *entry = sashite_pt.entry;
    Py_ssize_t i = 0, sq = 0, rank = 0, rank_start = 0, start = -1, separator_at = 0;
    int code, reason;
    if (n <= 0) {
        *error_at = 0;
        return -1; /* R_EMPTY */
    }
    while (i < n) {
        unsigned c = p[i];
        unsigned e = entry[c];
        switch (e >> 12) {
        case SP_MODIFIER:
            if (SASHITE_UNLIKELY(i + 1 >= n || kind[p[i + 1]] != SP_LETTER)) {
                *error_at = i;
                *last = start;
                return SP_NOT_A_TOKEN;
            }
            /* the letter after it, with the modifier's rank taken off its code */
            i++;
            e = entry[p[i]] - (e & 0x3FF);
            start = i - 1;
            goto piece;
        case SP_LETTER:
            /* a run of pieces ("rnbqk^bnr", "pppppppp") loops here, not through the
             * switch's jump */
            for (;;) {
                start = i;
            piece:
                code = e & 0x3FF;
                i++;
                if (i < n && p[i] == '^') {
                    code |= 2;
                    i++;
                }
                if (epin && i < n && p[i] == '\'') {
                    code |= 1;
                    i++;
                }
                if (SASHITE_UNLIKELY(sq >= square_room)) {
                    *error_at = start;
                    reason = 20; /* R_NO_ROOM */
                    goto fail;
                }
                squares[sq++] = (int16_t)code;
                if (i >= n)
                    break;
                e = entry[p[i]];
                if ((e >> 12) != SP_LETTER)
                    break;
            }
            break;
        case SP_DIGIT: {
            /* a rank's length is an int32_t: a count past what the rank can still hold
             * is too long whatever the room, and run * 10 stays far from overflow */
            Py_ssize_t run = c - '0', room = square_room - sq, at = i;
            const Py_ssize_t rank_left = (Py_ssize_t)INT32_MAX - (sq - rank_start);
            unsigned d;
            if (room > rank_left)
                room = rank_left;
            i++;
            while (i < n && (d = (unsigned)p[i] - '0') < 10) {
                run = run * 10 + d;
                i++;
                if (SASHITE_UNLIKELY(run > room))
                    break;
            }
            if (SASHITE_UNLIKELY(run > room)) {
                *error_at = at;
                reason = 19; /* R_RUN_TOO_LONG */
                goto fail;
            }
            if (SASHITE_LIKELY(run <= 8 && room >= 8)) {
                memcpy(squares + sq, sashite_none8, sizeof(sashite_none8));
                sq += run;
            } else {
                while (run-- > 0)
                    squares[sq++] = -1;
            }
            break;
        }
        case SP_SLASH: {
            int separator = 1;
            if (i + 1 < n && p[i + 1] == '/') {
                separator = 2;
                if (SASHITE_UNLIKELY(i + 2 < n && p[i + 2] == '/')) {
                    *error_at = i;
                    reason = 18; /* R_TOO_MANY_SEPARATORS */
                    goto fail;
                }
            }
            if (SASHITE_UNLIKELY(sq == rank_start)) {
                *error_at = i;
                reason = 16; /* R_EMPTY_RANK */
                goto fail;
            }
            if (SASHITE_UNLIKELY(rank >= rank_room)) {
                *error_at = i;
                reason = 20; /* R_NO_ROOM */
                goto fail;
            }
            rank_lengths[rank] = (int32_t)(sq - rank_start);
            separators[rank] = (uint8_t)separator;
            rank++;
            rank_start = sq;
            separator_at = i;
            i += separator;
            break;
        }
        case SP_ZERO:
            *error_at = i;
            reason = 17; /* R_LEADING_ZERO */
            goto fail;
        default: /* a stray marker, a space, any other byte: the core says why */
            *error_at = i;
            *last = start;
            return SP_NOT_A_TOKEN;
        }
    }
    if (SASHITE_UNLIKELY(sq == rank_start)) { /* the text ends with a separator */
        *error_at = separator_at;
        reason = 16;
        goto fail;
    }
    if (SASHITE_UNLIKELY(rank >= rank_room)) {
        *error_at = n;
        reason = 20;
        goto fail;
    }
    rank_lengths[rank] = (int32_t)(sq - rank_start);
    separators[rank] = 0;
    *square_count = sq;
    *rank_count = rank + 1;
    return 0;
fail:
    *square_count = sq;
    *rank_count = rank;
    return -reason;
}

static int sashite_scan_placement(const unsigned char *p, Py_ssize_t n, int epin,
                                  int16_t *squares, Py_ssize_t square_room,
                                  Py_ssize_t *square_count, int32_t *rank_lengths,
                                  uint8_t *separators, Py_ssize_t rank_room,
                                  Py_ssize_t *rank_count, Py_ssize_t *error_at,
                                  Py_ssize_t *last)
{
    if (epin)
        return sashite_scan_placement_as(p, n, 1, squares, square_room, square_count,
                                         rank_lengths, separators, rank_room, rank_count,
                                         error_at, last);
    return sashite_scan_placement_as(p, n, 0, squares, square_room, square_count,
                                     rank_lengths, separators, rank_room, rank_count,
                                     error_at, last);
}

/* Decimal digits of v (> 0) into out, most significant first; their count. */
static inline int sashite_decimal(Py_ssize_t v, char *out)
{
    char digits[24];
    int n = 0, k;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (k = 0; k < n; k++)
        out[k] = digits[n - 1 - k];
    return n;
}

/* The placement's text into out[0..room-1]: its length, or minus a reason with
 * *error_at the square (or, for a rank's fault, the rank) at fault.  CODE_NONE (-1)
 * squares become runs; a derived code in PIN is R_DERIVATION_IN_PIN (8). */
static Py_ssize_t sashite_format_placement(const int16_t *squares, Py_ssize_t square_count,
                                           const int32_t *rank_lengths,
                                           const uint8_t *separators, Py_ssize_t rank_count,
                                           int epin, char *out, Py_ssize_t room,
                                           Py_ssize_t *error_at)
{
    Py_ssize_t o = 0, sq = 0, r, end, run;
    if (rank_count <= 0) {
        *error_at = 0;
        return -16; /* R_EMPTY_RANK: nothing to write */
    }
    for (r = 0; r < rank_count; r++) {
        if (SASHITE_UNLIKELY(rank_lengths[r] <= 0)) {
            *error_at = r;
            return -16;
        }
        end = sq + rank_lengths[r];
        if (SASHITE_UNLIKELY(end > square_count)) {
            *error_at = r;
            return -20; /* the ranks hold more squares than there are */
        }
        while (sq < end) {
            const int code = squares[sq];
            if (code == -1) {
                run = 1;
                while (sq + run < end && squares[sq + run] == -1)
                    run++;
                if (SASHITE_LIKELY(run < 10 && o < room)) {
                    out[o++] = (char)('0' + run);
                } else {
                    char digits[24];
                    int k = sashite_decimal(run, digits);
                    if (SASHITE_UNLIKELY(room - o < k)) {
                        *error_at = sq;
                        return -20;
                    }
                    memcpy(out + o, digits, (size_t)k);
                    o += k;
                }
                sq += run;
                continue;
            }
            if (SASHITE_UNLIKELY((unsigned)code >= 832u || !sashite_pt.length[code]
                                 || (!epin && (code & 1)))) {
                *error_at = sq;
                return (unsigned)code < 832u && sashite_pt.length[code] ? -8 : -21;
            }
            if (SASHITE_LIKELY(room - o >= 4)) {
                memcpy(out + o, sashite_pt.text[code], 4);
                o += sashite_pt.length[code];
            } else {
                const int k = sashite_pt.length[code];
                if (room - o < k) {
                    *error_at = sq;
                    return -20;
                }
                memcpy(out + o, sashite_pt.text[code], (size_t)k);
                o += k;
            }
            sq++;
        }
        if (r + 1 < rank_count) {
            const int separator = separators[r];
            if (SASHITE_UNLIKELY(separator != 1 && separator != 2)) {
                *error_at = r;
                return -18; /* R_TOO_MANY_SEPARATORS: only "/" and "//" */
            }
            if (SASHITE_UNLIKELY(room - o < separator)) {
                *error_at = sq;
                return -20;
            }
            out[o] = out[o + separator - 1] = '/';
            o += separator;
        }
    }
    if (SASHITE_UNLIKELY(sq != square_count)) {
        *error_at = sq;
        return -20;
    }
    return o;
}

#endif
