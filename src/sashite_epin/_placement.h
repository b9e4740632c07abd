/* A FEEN piece placement, whole: the C behind the C API's scan_placement and
 * format_placement and behind Epin.boards (_placement_c.pxi and _boards_c.pxi wrap
 * them; docs/capi.md gives the contract).
 *
 * scan, two roads.  The fast road (sashite_placement_fast) is branch-free: placements
 * mix letters, counts and separators in no order a predictor learns, so a switch on
 * each byte's kind mispredicts about once a token (some 15 cycles, the most of a
 * hand-written parser's time).  It checks every pair of neighbouring byte classes
 * against a table in one pass, counting squares and ranks, then writes every byte's
 * square in a second, each byte doing the same work.  It accepts only what it is sure
 * of: on any pair the grammar refuses, a count of two digits, too little room, it
 * declines and the full scan (a class table and a switch, one case per kind of byte)
 * reads the text, whose reasons and offsets are the contract.  So the fast road decides
 * no fault and can only be wrong by accepting: the tests hold both to one reference.
 * Only the first fault is judged, and the token grammar's reasons are the core's (the
 * wrapper asks stop_reason), so nothing here knows them beyond "not a token".
 *
 * format: each code's token is 4 bytes of a table and its length; with 4 bytes of room
 * left the 4 are stored at once and the output moves on by the length. */
#ifndef SASHITE_PLACEMENT_H
#define SASHITE_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define SASHITE_PLACEMENT_SSE2 1
#endif

#if defined(__GNUC__)
#define SASHITE_LIKELY(x) __builtin_expect(!!(x), 1)
#define SASHITE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SASHITE_LIKELY(x) (x)
#define SASHITE_UNLIKELY(x) (x)
#endif

/* Byte kinds of a placement, for the full scan's switch. */
enum { SP_OTHER, SP_LETTER, SP_MODIFIER, SP_DIGIT, SP_ZERO, SP_SLASH };

/* Byte classes of the fast road; START stands before the text (and is the class of a
 * byte 0x01 in it, which no pair allows). */
enum { FB_LETTER, FB_MODIFIER, FB_CARET, FB_APOS, FB_DIGIT, FB_ZERO, FB_SLASH, FB_OTHER,
       FB_START, FB_CLASSES };

/* The fast road's word on each byte value. */
typedef struct {
    int16_t code;          /* a letter's code with rank normal; CODE_NONE for any other */
    int16_t modifier;      /* what "+" / "-" takes off the next letter's code */
    int16_t marker;        /* the bit "^" (2) / "'" (1) sets on the letter before */
    unsigned char advance; /* squares the byte adds: 1 a letter, d a digit d */
    unsigned char cls;     /* FB_* */
} sashite_fast_entry;

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
    sashite_fast_entry fast[256];
    /* refused[epin][class before][class]: 1 where the pair is refused, or is a count of
     * two digits or more (left to the full scan) */
    unsigned char refused[2][FB_CLASSES][FB_CLASSES];
    int ready;
} sashite_placement_tables;

static sashite_placement_tables sashite_pt;

static void sashite_fast_init(void)
{
    sashite_fast_entry *f = sashite_pt.fast;
    int b, e, s, k;
    for (b = 0; b < 256; b++) {
        f[b].cls = FB_OTHER;
        f[b].code = -1;
        f[b].modifier = f[b].marker = 0;
        f[b].advance = 0;
        if (sashite_pt.kind[b] == SP_LETTER) {
            f[b].cls = FB_LETTER;
            f[b].code = (int16_t)sashite_pt.bits[b];
            f[b].advance = 1;
        }
    }
    f['+'].cls = f['-'].cls = FB_MODIFIER;
    f['+'].modifier = (int16_t)sashite_pt.bits['+'];
    f['-'].modifier = (int16_t)sashite_pt.bits['-'];
    f['^'].cls = FB_CARET;
    f['^'].marker = 2;
    f['\''].cls = FB_APOS;
    f['\''].marker = 1;
    for (b = '1'; b <= '9'; b++) {
        f[b].cls = FB_DIGIT;
        f[b].advance = (unsigned char)(b - '0');
    }
    f['0'].cls = FB_ZERO;
    f['/'].cls = FB_SLASH;
    f[1].cls = FB_START;
    for (e = 0; e < 2; e++)
        for (s = 0; s < FB_CLASSES; s++)
            for (k = 0; k < FB_CLASSES; k++) {
                int ok;
                switch (k) {
                case FB_LETTER:
                    ok = 1;
                    break;
                case FB_MODIFIER:
                    ok = s != FB_MODIFIER;
                    break;
                case FB_DIGIT:
                    ok = s != FB_MODIFIER && s != FB_DIGIT;
                    break;
                case FB_CARET:
                    ok = s == FB_LETTER;
                    break;
                case FB_APOS:
                    ok = e && (s == FB_LETTER || s == FB_CARET);
                    break;
                case FB_SLASH:
                    ok = s != FB_MODIFIER && s != FB_START;
                    break;
                default: /* "0" (a leading zero, or a second digit), any other byte */
                    ok = 0;
                }
                sashite_pt.refused[e][s][k] = (unsigned char)!(ok && s != FB_OTHER);
            }
}

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
    sashite_fast_init();
    sashite_pt.ready = 1;
}

/* The fast road reads q, a copy of the text with q[-2], q[-1] a byte no letter
 * follows (1) and q[n], q[n + 1] none (0), so that each byte's neighbours are read
 * without a test, and zeros after it past its last 64-byte block and the 2 bytes after
 * that (the vector scan reads whole blocks and their neighbours); sashite_fast_copy
 * makes it in room for n + SASHITE_FAST_PAD bytes and returns q. */
#define SASHITE_FAST_PAD 68
static inline unsigned char *sashite_fast_copy(const unsigned char *p, Py_ssize_t n,
                                               unsigned char *room)
{
    room[0] = room[1] = 1;
    memcpy(room + 2, p, (size_t)n);
    memset(room + 2 + n, 0, SASHITE_FAST_PAD - 2);
    return room + 2;
}

#if defined(_MSC_VER) && !defined(__clang__)
#define SASHITE_NOINLINE __declspec(noinline)
#else
#define SASHITE_NOINLINE __attribute__((noinline))
#endif

/* The fast road, over q: 0 with the placement written and counted, or -1 when the
 * full scan must decide (a pair of neighbouring bytes the grammar refuses, a count of
 * two digits, "///", a text ending with a separator or a modifier), having written
 * what does not count.  Every byte does the same work: it stores 16 CODE_NONE at the
 * next square (a count's squares) and its code over the first (a letter's, or
 * CODE_NONE), and moves on by its advance; a later byte overwrites what was not final.
 * squares needs room for 9 * n + 16, the ranks for n. */
static const int16_t sashite_none16[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                           -1, -1, -1, -1, -1, -1, -1, -1};

#ifdef SASHITE_PLACEMENT_SSE2
/* 64 bytes at a time.  SSE2 compares give a mask of each class (bit i for byte i), and
 * the pairs the grammar refuses are operations on the masks, each class's bit before
 * carried from the block before (byte -1, the text's start, has none).  The same
 * compares, over the bytes before and after, give every byte's code in 16-bit lanes
 * (a letter's index and side, rank normal less the modifier before, the markers
 * after) and its advance; a scalar loop lays the squares out, and the ranks are read
 * from the mask of first "/"s. */
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
static inline int sashite_placement_ctz(uint64_t x)
{
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
}
#else
#define sashite_placement_ctz(x) __builtin_ctzll(x)
#endif

static inline uint64_t sashite_mask16(__m128i m, int k)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(m) << (16 * k);
}

static inline int sashite_fast_scan(const unsigned char *q, Py_ssize_t n, int epin,
                                    int16_t *squares, int32_t *rank_lengths,
                                    uint8_t *separators, Py_ssize_t *square_count,
                                    Py_ssize_t *rank_count)
{
    const __m128i zero = _mm_setzero_si128(), lower = _mm_set1_epi8(0x20);
    const __m128i a = _mm_set1_epi8((char)(0x80 - 'a')), one = _mm_set1_epi8((char)(0x80 - '1'));
    const __m128i below26 = _mm_set1_epi8((char)(-128 + 26));
    const __m128i below9 = _mm_set1_epi8((char)(-128 + 9));
    const __m128i slash = _mm_set1_epi8('/'), plus = _mm_set1_epi8('+');
    const __m128i minus = _mm_set1_epi8('-'), caret = _mm_set1_epi8('^');
    const __m128i apos = _mm_set1_epi8('\''), digit0 = _mm_set1_epi8('0');
    const __m128i bit0 = _mm_set1_epi8(1), bit1 = _mm_set1_epi8(2), bit2 = _mm_set1_epi8(4);
    const __m128i bit3 = _mm_set1_epi8(8), bit4 = _mm_set1_epi8(0x10);
    uint64_t bad = 0, carry_l = 0, carry_m = 0, carry_d = 0, carry_c = 0, carry_s = 0,
             carry_ss = 0;
    Py_ssize_t at, sq = 0, rank = 0, rank_start = 0;
    int16_t code[64];
    unsigned char advance[64];
    uint16_t square_at[64]; /* squares before each byte: a rank ends at its "/" */
    for (at = 0; at < n; at += 64) {
        uint64_t L = 0, D = 0, S = 0, M = 0, C = 0, A = 0, V, pl, pm, pd, pc, ps, pss, first;
        const int m = n - at >= 64 ? 64 : (int)(n - at);
        int k, j;
        for (k = 0; k < 4; k++) {
            const unsigned char *b = q + at + 16 * k;
            const __m128i v = _mm_loadu_si128((const __m128i *)b);
            const __m128i before = _mm_loadu_si128((const __m128i *)(b - 1));
            const __m128i after = _mm_loadu_si128((const __m128i *)(b + 1));
            const __m128i after2 = _mm_loadu_si128((const __m128i *)(b + 2));
            const __m128i index = _mm_add_epi8(_mm_or_si128(v, lower), a);
            const __m128i letter = _mm_cmplt_epi8(index, below26);
            const __m128i digit = _mm_cmplt_epi8(_mm_add_epi8(v, one), below9);
            const __m128i modifier = _mm_or_si128(_mm_cmpeq_epi8(v, plus), _mm_cmpeq_epi8(v, minus));
            const __m128i caret_after = _mm_cmpeq_epi8(after, caret);
            /* side (lowercase: bit 4), rank normal (2 << 2) less "+" (1 << 2) or "-"
             * (2 << 2) before, "^" (bit 1) and "'" (bit 0) after, "'" after "^" */
            const __m128i low = _mm_or_si128(
                _mm_or_si128(_mm_and_si128(_mm_srli_epi16(v, 1), bit4),
                             _mm_sub_epi8(bit3, _mm_or_si128(
                                 _mm_and_si128(_mm_cmpeq_epi8(before, plus), bit2),
                                 _mm_and_si128(_mm_cmpeq_epi8(before, minus), bit3)))),
                _mm_or_si128(_mm_and_si128(caret_after, bit1),
                             _mm_and_si128(_mm_or_si128(_mm_cmpeq_epi8(after, apos),
                                                        _mm_and_si128(caret_after,
                                                                      _mm_cmpeq_epi8(after2, apos))),
                                           bit0)));
            const __m128i letter_index = _mm_sub_epi8(index, _mm_set1_epi8((char)0x80));
            const __m128i other = _mm_cmpeq_epi8(letter, zero);
            __m128i lanes;
            L |= sashite_mask16(letter, k);
            D |= sashite_mask16(digit, k);
            S |= sashite_mask16(_mm_cmpeq_epi8(v, slash), k);
            M |= sashite_mask16(modifier, k);
            C |= sashite_mask16(_mm_cmpeq_epi8(v, caret), k);
            A |= sashite_mask16(_mm_cmpeq_epi8(v, apos), k);
            /* the code: index << 5 | low, CODE_NONE where no letter stands */
            lanes = _mm_or_si128(_mm_slli_epi16(_mm_unpacklo_epi8(letter_index, zero), 5),
                                 _mm_unpacklo_epi8(low, zero));
            _mm_storeu_si128((__m128i *)(code + 16 * k),
                             _mm_or_si128(lanes, _mm_unpacklo_epi8(other, other)));
            lanes = _mm_or_si128(_mm_slli_epi16(_mm_unpackhi_epi8(letter_index, zero), 5),
                                 _mm_unpackhi_epi8(low, zero));
            _mm_storeu_si128((__m128i *)(code + 16 * k + 8),
                             _mm_or_si128(lanes, _mm_unpackhi_epi8(other, other)));
            _mm_storeu_si128((__m128i *)(advance + 16 * k),
                             _mm_or_si128(_mm_and_si128(letter, bit0),
                                          _mm_and_si128(digit, _mm_sub_epi8(v, digit0))));
        }
        V = m == 64 ? ~(uint64_t)0 : ((uint64_t)1 << m) - 1;
        pl = L << 1 | carry_l;
        pm = M << 1 | carry_m;
        pd = D << 1 | carry_d;
        pc = C << 1 | carry_c;
        ps = S << 1 | carry_s;
        pss = S << 2 | carry_ss;
        bad |= V & (~(L | M | C | A | D | S) /* "0", any byte no class holds */
                    | (M & pm)               /* a modifier after a modifier */
                    | (D & (pm | pd))        /* a count after a modifier, a second digit */
                    | (C & ~pl)              /* "^" not after a letter */
                    | (A & (epin ? ~(pl | pc) : ~(uint64_t)0)) /* "'" not after either */
                    | (S & (pm | (ps & pss))));                /* "+/", "///" */
        carry_l = L >> 63;
        carry_m = M >> 63;
        carry_d = D >> 63;
        carry_c = C >> 63;
        carry_s = S >> 63;
        carry_ss = S >> 62;
        for (j = 0; j < m; j++) {
            square_at[j] = (uint16_t)sq;
            memcpy(squares + sq, sashite_none16, sizeof(sashite_none16));
            squares[sq] = code[j];
            sq += advance[j];
        }
        /* a rank ends at each first "/" of "/" or "//" */
        for (first = S & ~ps & V; first; first &= first - 1) {
            const int i = sashite_placement_ctz(first);
            rank_lengths[rank] = (int32_t)(square_at[i] - rank_start);
            separators[rank] = (uint8_t)(1 + (q[at + i + 1] == '/'));
            rank_start = square_at[i];
            rank++;
        }
    }
    /* "/" first; a separator or a modifier last */
    if (bad || q[0] == '/' || q[n - 1] == '/' || q[n - 1] == '+' || q[n - 1] == '-')
        return -1;
    rank_lengths[rank] = (int32_t)(sq - rank_start);
    separators[rank] = 0;
    *square_count = sq;
    *rank_count = rank + 1;
    return 0;
}
#else
/* A byte at a time: neighbours' classes against the pair table, then each byte's
 * square from tables, and its rank's length and separator so far. */
static inline int sashite_fast_scan(const unsigned char *q, Py_ssize_t n, int epin,
                                    int16_t *squares, int32_t *rank_lengths,
                                    uint8_t *separators, Py_ssize_t *square_count,
                                    Py_ssize_t *rank_count)
{
    const sashite_fast_entry *f = sashite_pt.fast;
    const unsigned char(*refused)[FB_CLASSES] = sashite_pt.refused[epin ? 1 : 0];
    unsigned bad = 0, before = FB_START;
    Py_ssize_t i, sq = 0, rank = 0, rank_start = 0;
    for (i = 0; i < n; i++) {
        const unsigned k = f[q[i]].cls;
        bad |= refused[before][k];
        bad |= (q[i] == '/') & (q[i - 1] == '/') & (q[i - 2] == '/');
        before = k;
    }
    if (bad || before == FB_SLASH || before == FB_MODIFIER)
        return -1;
    for (i = 0; i < n; i++) {
        const unsigned c = q[i];
        const int slash = c == '/';
        const int16_t after = f[q[i + 1]].marker;
        /* a letter's code: the modifier before taken off, "^", "'" or "^'" after put on */
        int16_t code = (int16_t)(f[c].code - f[q[i - 1]].modifier);
        code |= (int16_t)(after | (f[q[i + 2]].marker & (after >> 1)));
        memcpy(squares + sq, sashite_none16, sizeof(sashite_none16));
        squares[sq] = code;
        sq += f[c].advance;
        rank_lengths[rank] = (int32_t)(sq - rank_start);
        separators[rank] = (uint8_t)(1 + (q[i + 1] == '/')); /* "//" is 2 */
        rank += slash & (q[i - 1] != '/');
        rank_start = slash ? sq : rank_start;
    }
    rank_lengths[rank] = (int32_t)(sq - rank_start);
    separators[rank] = 0;
    *square_count = sq;
    *rank_count = rank + 1;
    return 0;
}
#endif

/* Bytes of a text scan_placement's fast road takes (its copy is on the stack). */
#define SASHITE_FAST_TEXT 500

/* The fill for rooms smaller than the fill's bounds (an engine's 64 squares): into
 * buffers of its own, copied when the counts fit; -1 when they do not (the full scan
 * says which room is short, and where).  A call of its own, so that the common road's
 * stack frame stays small. */
static SASHITE_NOINLINE int sashite_fast_scan_copied(
    const unsigned char *q, Py_ssize_t n, int epin, int16_t *squares, Py_ssize_t square_room,
    Py_ssize_t *square_count, int32_t *rank_lengths, uint8_t *separators,
    Py_ssize_t rank_room, Py_ssize_t *rank_count)
{
    int16_t own_squares[9 * SASHITE_FAST_TEXT + 16];
    int32_t own_lengths[SASHITE_FAST_TEXT + 1];
    uint8_t own_separators[SASHITE_FAST_TEXT + 1];
    Py_ssize_t total, ranks;
    if (sashite_fast_scan(q, n, epin, own_squares, own_lengths, own_separators, &total,
                          &ranks) < 0
        || total > square_room || ranks > rank_room)
        return -1;
    memcpy(squares, own_squares, (size_t)total * sizeof(int16_t));
    memcpy(rank_lengths, own_lengths, (size_t)ranks * sizeof(int32_t));
    memcpy(separators, own_separators, (size_t)ranks);
    *square_count = total;
    *rank_count = ranks;
    return 0;
}

/* The fast road for scan_placement: 0 with the placement written and counted, or -1
 * (nothing written that counts: the full scan reads the text). */
static int sashite_placement_fast(const unsigned char *p, Py_ssize_t n, int epin,
                                  int16_t *squares, Py_ssize_t square_room,
                                  Py_ssize_t *square_count, int32_t *rank_lengths,
                                  uint8_t *separators, Py_ssize_t rank_room,
                                  Py_ssize_t *rank_count)
{
    unsigned char room[SASHITE_FAST_TEXT + SASHITE_FAST_PAD];
    const unsigned char *q;
    if (n <= 0 || n > SASHITE_FAST_TEXT)
        return -1;
    q = sashite_fast_copy(p, n, room);
    if (SASHITE_LIKELY(square_room >= 9 * n + 16 && rank_room >= n))
        return sashite_fast_scan(q, n, epin, squares, rank_lengths, separators, square_count,
                                 rank_count);
    return sashite_fast_scan_copied(q, n, epin, squares, square_room, square_count,
                                    rank_lengths, separators, rank_room, rank_count);
}

/* Bytes of a row Epin.boards' fast road takes: at 9 squares a byte at most and 16
 * stored past the last, 7000 bytes stay in a board's room (65536 squares). */
#define SASHITE_FAST_MAX 7000

/* The fast road for a column's row: as sashite_placement_fast, with the rooms the
 * column's (a board's 65536 squares, a rank a byte) and room, n + SASHITE_FAST_PAD
 * bytes, the caller's. */
static int sashite_board_fast(const unsigned char *p, Py_ssize_t n, int epin,
                              unsigned char *room, int16_t *squares, int32_t *rank_lengths,
                              uint8_t *separators, Py_ssize_t *square_count,
                              Py_ssize_t *rank_count)
{
    const unsigned char *q;
    if (n <= 0 || n > SASHITE_FAST_MAX)
        return -1;
    q = sashite_fast_copy(p, n, room);
    return sashite_fast_scan(q, n, epin, squares, rank_lengths, separators, square_count,
                             rank_count);
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
    if (!sashite_placement_fast(p, n, epin, squares, square_room, square_count, rank_lengths,
                                separators, rank_room, rank_count))
        return 0;
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
