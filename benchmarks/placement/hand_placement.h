/* The baseline scan_placement and format_placement are measured against: what an
 * engine writes for itself, in plain good C.  A 256-entry class table and a switch,
 * the code computed from the letter's bits, runs of empty squares filled by a loop;
 * every fault is -1 (an engine's own parser says no more than that), every room is
 * checked.  The same code layout and output as the C API, so both are checked to give
 * the same squares and text.  noinline: each is called once a placement, as a library
 * function is, and the C API's are calls too. */
#include <stdint.h>
#include <string.h>

enum { H_OTHER, H_LETTER, H_PLUS, H_MINUS, H_DIGIT, H_ZERO, H_SLASH };

static unsigned char hand_class[256];

static void hand_init(void)
{
    int b;
    memset(hand_class, H_OTHER, sizeof(hand_class));
    for (b = 'A'; b <= 'Z'; b++)
        hand_class[b] = hand_class[b + 32] = H_LETTER;
    for (b = '1'; b <= '9'; b++)
        hand_class[b] = H_DIGIT;
    hand_class['0'] = H_ZERO;
    hand_class['+'] = H_PLUS;
    hand_class['-'] = H_MINUS;
    hand_class['/'] = H_SLASH;
}

__attribute__((noinline)) static int hand_scan(const unsigned char *p, Py_ssize_t n,
                                               int16_t *squares, Py_ssize_t room,
                                               int32_t *lengths, uint8_t *separators,
                                               Py_ssize_t rank_room, Py_ssize_t *square_count,
                                               Py_ssize_t *rank_count)
{
    Py_ssize_t i = 0, sq = 0, rank = 0, start = 0, run;
    int code, state, sep;
    unsigned c;
    if (n <= 0)
        return -1;
    while (i < n) {
        c = p[i];
        switch (hand_class[c]) {
        case H_PLUS:
        case H_MINUS:
            state = hand_class[c] == H_PLUS ? 1 : 0; /* enhanced, diminished */
            if (i + 1 >= n || hand_class[p[i + 1]] != H_LETTER)
                return -1;
            c = p[++i];
            goto piece;
        case H_LETTER:
            state = 2; /* normal */
        piece:
            code = (((c & 0x1F) - 1) << 5) | (((c >> 5) & 1) << 4) | (state << 2);
            i++;
            if (i < n && p[i] == '^') {
                code |= 2;
                i++;
            }
            if (i < n && p[i] == '\'') {
                code |= 1;
                i++;
            }
            if (sq >= room)
                return -1;
            squares[sq++] = (int16_t)code;
            break;
        case H_DIGIT:
            run = c - '0';
            i++;
            while (i < n && p[i] >= '0' && p[i] <= '9') {
                run = run * 10 + (p[i] - '0');
                i++;
                if (run > room - sq)
                    return -1;
            }
            if (run > room - sq)
                return -1;
            while (run-- > 0)
                squares[sq++] = -1;
            break;
        case H_SLASH:
            sep = 1;
            if (i + 1 < n && p[i + 1] == '/') {
                sep = 2;
                if (i + 2 < n && p[i + 2] == '/')
                    return -1;
            }
            if (sq == start || rank >= rank_room)
                return -1;
            lengths[rank] = (int32_t)(sq - start);
            separators[rank] = (uint8_t)sep;
            rank++;
            start = sq;
            i += sep;
            break;
        default: /* H_ZERO, H_OTHER */
            return -1;
        }
    }
    if (sq == start || rank >= rank_room)
        return -1;
    lengths[rank] = (int32_t)(sq - start);
    separators[rank] = 0;
    *square_count = sq;
    *rank_count = rank + 1;
    return 0;
}

__attribute__((noinline)) static Py_ssize_t hand_format(const int16_t *squares,
                                                        Py_ssize_t square_count,
                                                        const int32_t *lengths,
                                                        const uint8_t *separators,
                                                        Py_ssize_t rank_count, char *out,
                                                        Py_ssize_t room)
{
    Py_ssize_t o = 0, sq = 0, r, end, run;
    int code, state;
    char digits[24];
    int k;
    for (r = 0; r < rank_count; r++) {
        end = sq + lengths[r];
        if (lengths[r] <= 0 || end > square_count)
            return -1;
        while (sq < end) {
            code = squares[sq];
            if (code == -1) {
                run = 0;
                while (sq < end && squares[sq] == -1) {
                    run++;
                    sq++;
                }
                k = 0;
                do {
                    digits[k++] = (char)('0' + run % 10);
                    run /= 10;
                } while (run);
                if (room - o < k)
                    return -1;
                while (k)
                    out[o++] = digits[--k];
                continue;
            }
            state = (code >> 2) & 3;
            if (code < 0 || code >= 832 || state == 3)
                return -1;
            if (room - o < 4)
                return -1;
            if (state == 1)
                out[o++] = '+';
            else if (state == 0)
                out[o++] = '-';
            out[o++] = (char)(((code >> 4) & 1 ? 'a' : 'A') + (code >> 5));
            if (code & 2)
                out[o++] = '^';
            if (code & 1)
                out[o++] = '\'';
            sq++;
        }
        if (r + 1 < rank_count) {
            if (room - o < separators[r] || separators[r] < 1 || separators[r] > 2)
                return -1;
            out[o++] = '/';
            if (separators[r] == 2)
                out[o++] = '/';
        }
    }
    return sq == square_count ? o : -1;
}
