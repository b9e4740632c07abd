/* scan_many's block loop, written once for every kernel that has it: a kernel's
 * header (kernels/KERNEL.h) includes this file once, after defining
 * - SASHITE_NAMED(f), SASHITE_TARGET: as for count.h;
 * - SASHITE_BLOCK(q, c, index): step 1 with the indexes by byte position (a block that
 *   compresses them, as AVX-512's, does not serve here);
 * and undefines them after.  No include guard: it is meant to be included again. */

/* scan_many's block loop (_text_c.pxi): tokens written back to back, other bytes
 * between them skipped.  Per 64-byte block, the same classes and record indexes; the
 * block is taken when every '^' follows a letter, every '\'' (EPIN only) a letter or
 * an accepted '^', and every modifier precedes a letter, exactly what scan_many's
 * greedy scan accepts.  Each letter is then one token: its index gives its code
 * (code_of) and whether a modifier starts it.  A token belongs to the block where it
 * starts, as in scan_many's own loop (so either can go on from the other): one whose
 * modifier ends a block is written with that block, its letter then skipped.  Stops
 * before a block that fails, one that would overflow room, or the last 72 bytes
 * (scan_many's own loop reads those); returns the tokens written, *b_at the block it
 * stopped at and *resume_at the end of the last token written. */
SASHITE_TARGET static Py_ssize_t SASHITE_NAMED(sashite_scan)(const unsigned char *p, Py_ssize_t n,
                                                             int epin, const uint16_t *code_of,
                                                             uint16_t *codes, Py_ssize_t *starts,
                                                             Py_ssize_t room, Py_ssize_t *b_at,
                                                             Py_ssize_t *resume_at) {
    Py_ssize_t b = 0, k = 0, resume = 0;
    unsigned char pad[1 + 64 + 8];
    uint16_t index[64];
    sashite_classes c;
    uint64_t was_letter = 0, was_caret = 0, was_modifier = 0, letters, last_modifier;
    /* PIN has no derivation marker: a '\'' is another byte, never a flag */
    unsigned keep = epin ? 0xFFFFu : 0xFFFFu & ~(SASHITE_FLAG_DERIVED << 8);
    while (n - b >= 64 + 8) {
        const unsigned char *q = sashite_text_block(p, b, pad);
        SASHITE_BLOCK(q, &c, index);
        if (!epin)
            c.apostrophe = 0;
        letters = c.letter & ~was_modifier; /* a letter at 0 came with its modifier */
        last_modifier = c.modifier >> 63;
        if (sashite_text_refused(c.letter, c.caret, c.apostrophe, c.modifier, was_letter,
                                 was_caret, q[64])
            || sashite_popcount64(letters) + (Py_ssize_t)last_modifier > room - k)
            break;
        if (letters) { /* the end of the block's last token, unless one follows */
            int t = sashite_top64(letters);
            unsigned i = index[t] & keep;
            resume = b + t + 1 + (i >> 8 & SASHITE_FLAG_TERMINAL ? 1 : 0)
                     + (i >> 8 & SASHITE_FLAG_DERIVED ? 1 : 0);
        }
        while (letters) {
            int t = sashite_ctz64(letters);
            unsigned i = index[t] & keep;
            letters &= letters - 1;
            codes[k] = code_of[i];
            starts[k] = b + t - ((i >> 8 & (SASHITE_FLAG_PLUS | SASHITE_FLAG_MINUS)) != 0);
            k++;
        }
        if (last_modifier) { /* its letter is q[64]; q[65], q[66] say the rest */
            unsigned terminal = q[65] == '^';
            unsigned derived = epin && (q[65 + terminal] == '\'');
            unsigned i = q[64] | ((q[63] == '+' ? SASHITE_FLAG_PLUS : SASHITE_FLAG_MINUS)
                                  | terminal * SASHITE_FLAG_TERMINAL
                                  | derived * SASHITE_FLAG_DERIVED) << 8;
            codes[k] = code_of[i];
            starts[k] = b + 63;
            k++;
            resume = b + 65 + terminal + derived;
        }
        was_letter = c.letter >> 63, was_caret = c.caret >> 63;
        was_modifier = last_modifier;
        b += 64;
    }
    *b_at = b, *resume_at = resume;
    return k;
}
