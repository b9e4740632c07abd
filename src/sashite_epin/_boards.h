/* Epin.boards' fast path: one placement in one branch-free pass, for the column scan
 * (_boards_c.pxi).  A column of placements mixes letters, counts and separators in no
 * order a predictor learns, so _placement.h's switch mispredicts about once a token;
 * here every byte does the same work, chosen by tables: a 32-byte store of CODE_NONE
 * (a count's squares), the square's code (a letter's), the marker bits or'ed into the
 * square before, and the rank's length.  It accepts only what it is sure of: on any
 * byte the grammar refuses there, a count past 16, a text past FAST_MAX bytes, it
 * returns -1 and the caller scans the row with sashite_scan_placement, whose reasons
 * and offsets are the contract.  So the fast path decides no fault, and can only be
 * wrong by accepting: the tests hold both scans to the same reference. */
#ifndef SASHITE_BOARDS_H
#define SASHITE_BOARDS_H

#include "_placement.h"

/* Bytes of a text the fast path takes: at 9 squares a byte at most and 16 stored past
 * the last, 7000 bytes stay in a board's room (65536 squares). */
#define SASHITE_FAST_MAX 7000

/* Byte classes; START is the two bytes put before a text (and any byte 0x01 in it,
 * which no pair allows). */
enum { FB_LETTER, FB_MODIFIER, FB_CARET, FB_APOS, FB_DIGIT, FB_ZERO, FB_SLASH, FB_OTHER,
       FB_START, FB_CLASSES };

typedef struct {
    unsigned char cls[256];
    /* refused[epin][class before][class]: 1 where the pair is refused, or is a count of
     * two digits or more (left to the full scan) */
    unsigned char refused[2][FB_CLASSES][FB_CLASSES];
    unsigned char advance[256]; /* squares a byte adds: 1 a letter, d a digit d */
    int16_t code[256];          /* a letter's code, rank normal */
    int16_t modifier[256];      /* what "+" / "-" takes off the next letter's code */
    int16_t marker[256];        /* the bit "^" (2) / "'" (1) sets on the letter before */
    int ready;
} sashite_board_tables;

static sashite_board_tables sashite_bt;

static void sashite_boards_init(void)
{
    int b, e, s, k;
    if (!sashite_pt.ready)
        sashite_placement_init();
    for (b = 0; b < 256; b++) {
        sashite_bt.cls[b] = FB_OTHER;
        sashite_bt.advance[b] = 0;
        sashite_bt.code[b] = sashite_bt.modifier[b] = sashite_bt.marker[b] = 0;
    }
    for (b = 0; b < 256; b++)
        if (sashite_pt.kind[b] == SP_LETTER) {
            sashite_bt.cls[b] = FB_LETTER;
            sashite_bt.advance[b] = 1;
            sashite_bt.code[b] = (int16_t)sashite_pt.bits[b];
        }
    sashite_bt.cls['+'] = sashite_bt.cls['-'] = FB_MODIFIER;
    sashite_bt.modifier['+'] = (int16_t)sashite_pt.bits['+'];
    sashite_bt.modifier['-'] = (int16_t)sashite_pt.bits['-'];
    sashite_bt.cls['^'] = FB_CARET;
    sashite_bt.marker['^'] = 2;
    sashite_bt.cls['\''] = FB_APOS;
    sashite_bt.marker['\''] = 1;
    for (b = '1'; b <= '9'; b++) {
        sashite_bt.cls[b] = FB_DIGIT;
        sashite_bt.advance[b] = (unsigned char)(b - '0');
    }
    sashite_bt.cls['0'] = FB_ZERO;
    sashite_bt.cls['/'] = FB_SLASH;
    sashite_bt.cls[1] = FB_START;
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
                sashite_bt.refused[e][s][k] = (unsigned char)!(ok && s != FB_OTHER);
            }
    sashite_bt.ready = 1;
}

/* The placement p[0..n-1] into squares / rank_lengths / separators (room for 9 * n +
 * 16 squares and n ranks): 0 with the counts set, or -1 where the caller must scan
 * the row itself (nothing it wrote counts then).  q: room for n + 4 bytes, where the
 * text is copied between two START bytes before and two NULs after, so that each
 * byte's neighbours are read without a test. */
static int sashite_board_fast(const unsigned char *p, Py_ssize_t n, int epin,
                              unsigned char *q, int16_t *squares, int32_t *rank_lengths,
                              uint8_t *separators, Py_ssize_t *square_count,
                              Py_ssize_t *rank_count)
{
    const unsigned char(*refused)[FB_CLASSES] = sashite_bt.refused[epin ? 1 : 0];
    const unsigned char *cls = sashite_bt.cls;
    unsigned bad = 0;
    Py_ssize_t i, sq = 0, rank = 0, rank_start = 0;
    static const int16_t none16[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                       -1, -1, -1, -1, -1, -1, -1, -1};
    if (n <= 0 || n > SASHITE_FAST_MAX)
        return -1;
    q[0] = q[1] = 1;
    memcpy(q + 2, p, (size_t)n);
    q[n + 2] = q[n + 3] = 0;
    q += 2;
    for (i = 0; i < n; i++) {
        const unsigned c = q[i], k = cls[c], before = cls[q[i - 1]];
        const int slash = k == FB_SLASH, second = slash && before == FB_SLASH;
        const int16_t after = sashite_bt.marker[q[i + 1]];
        int16_t code = (int16_t)(sashite_bt.code[c] - sashite_bt.modifier[q[i - 1]]);
        code |= after | (sashite_bt.marker[q[i + 2]] & (after >> 1)); /* "^'" */
        bad |= refused[before][k] | (second & (cls[q[i - 2]] == FB_SLASH));
        memcpy(squares + sq, none16, sizeof(none16));
        squares[sq] = k == FB_LETTER ? code : (int16_t)-1;
        sq += sashite_bt.advance[c];
        /* a rank ends at its "/": its length, then "/" (1); a second "/" makes it 2 */
        rank_lengths[rank] = (int32_t)(sq - rank_start);
        separators[rank - second] = (uint8_t)(1 + second);
        rank += slash && !second;
        rank_start = slash ? sq : rank_start;
    }
    if (bad || cls[q[n - 1]] == FB_SLASH || cls[q[n - 1]] == FB_MODIFIER)
        return -1;
    rank_lengths[rank] = (int32_t)(sq - rank_start);
    separators[rank] = 0;
    *square_count = sq;
    *rank_count = rank + 1;
    return 0;
}

#endif
