/* tokenize_many's block loop, written once for every kernel whose block gives the record
 * indexes by byte position (SSE2, AVX2, NEON; AVX-512 has its own, which compresses
 * them): a kernel's header includes this file once, after defining what scan.h takes,
 * and undefines it after.  No include guard: it is meant to be included again. */

/* The texts of a piece written back to back, each followed by a byte that is no token's
 * (a newline), row r holding p[row_start[r] .. row_start[r + 1] - 1]: what scan.h's
 * block loop does, and in the same pass what tokenize_many keeps of each token, its
 * record (out + 5 k), its offset inside its row (offsets[k]), and for each row the index
 * of its first token (row_offsets[r]).  A token belongs to the block of its letter (a
 * modifier before it may end the block before): its record comes from the letter's
 * index, its offset from the letter's position, less one for a modifier.  The block's
 * letters are taken a row at a time, each row's from its own start.
 *
 * Starts at pos (0 or a row's start: p[pos - 1], if any, is no token's byte; *row is
 * the row holding pos) and stops before the last 72 bytes of p[0..n-1], or in the first
 * block the grammar refuses (scan.h's checks) once it took that block's tokens but the
 * one that may hold the first refused byte.  Returns the new k; *row is then the row
 * holding the last byte taken, row_offsets set for the rows up to it, and *resume_at
 * the end of the last token written (pos if none): scan_many goes on from there.  Room
 * for a token per byte of p[pos..n-1] from k, and 64 more, is the caller's. */
SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_rows)(
    const unsigned char *p, Py_ssize_t n, Py_ssize_t pos, int epin, const uint64_t *records,
    const int64_t *row_start, Py_ssize_t *row, int64_t *row_offsets, unsigned char *out,
    int64_t *offsets, Py_ssize_t k, Py_ssize_t *resume_at) {
    Py_ssize_t b = pos, r = *row, resume = pos;
    int64_t row_at = row_start[r], next_row = row_start[r + 1];
    unsigned char pad[1 + 64 + 8];
    uint16_t index[64];
    sashite_classes c;
    uint64_t was_letter = 0, was_caret = 0;
    /* PIN has no derivation marker: a '\'' is another byte, never a flag */
    unsigned keep = epin ? 0xFFFFu : 0xFFFFu & ~(SASHITE_FLAG_DERIVED << 8);
    while (n - b >= 64 + 8) {
        const unsigned char *q = sashite_text_block(p, b, pad);
        uint64_t letters, part, refused;
        Py_ssize_t stop = 64;
        SASHITE_BLOCK(q, &c, index);
        if (!epin)
            c.apostrophe = 0;
        refused = sashite_text_refused(c.letter, c.caret, c.apostrophe, c.modifier, was_letter,
                                       was_caret, q[64]);
        letters = c.letter;
        if (refused) { /* the tokens wholly before the first refused byte, then stop */
            int top = 0;
            letters = sashite_refused_prefix(letters, refused, &top);
            if (!letters)
                break;
            /* the start of the token left to scan_many: its letter, or a modifier */
            stop = top - ((index[top] >> 8 & (SASHITE_FLAG_PLUS | SASHITE_FLAG_MINUS)) != 0);
            c.letter = letters; /* the tokens taken, for resume below */
        }
        for (;;) { /* the letters of one row: all that are left, or those before the next */
            int last = next_row >= b + stop;
            Py_ssize_t from = b - row_at;
            part = last ? letters : letters & ((UINT64_C(1) << (next_row - b)) - 1);
            letters &= ~part;
            while (part) {
                int t = sashite_ctz64(part);
                unsigned i = index[t] & keep;
                part &= part - 1;
                memcpy(out + 5 * k, &records[i], 8);
                offsets[k] = from + t - ((i >> 8 & (SASHITE_FLAG_PLUS | SASHITE_FLAG_MINUS)) != 0);
                k++;
            }
            if (last)
                break;
            row_offsets[++r] = k;
            row_at = next_row;
            next_row = row_start[r + 1];
        }
        if (c.letter) { /* the end of the block's last token */
            int t = sashite_top64(c.letter);
            unsigned i = index[t] & keep;
            resume = b + t + 1 + (i >> 8 & SASHITE_FLAG_TERMINAL ? 1 : 0)
                     + (i >> 8 & SASHITE_FLAG_DERIVED ? 1 : 0);
        }
        if (refused)
            break;
        was_letter = c.letter >> 63, was_caret = c.caret >> 63;
        b += 64;
    }
    *row = r, *resume_at = resume;
    return k;
}
