# Whole FEEN piece placements for C callers (the C API's scan_placement and
# format_placement): part of the compiled core (included by _core_c.pyx).  The loops
# are C, in _placement.h; here, the core's own word on a token that fails.

cdef extern from "_placement.h" nogil:
    int SP_NOT_A_TOKEN
    void sashite_placement_init()
    int sashite_scan_placement(const unsigned char* p, Py_ssize_t n, int epin,
                               int16_t* squares, Py_ssize_t square_room,
                               Py_ssize_t* square_count, int32_t* rank_lengths,
                               uint8_t* separators, Py_ssize_t rank_room,
                               Py_ssize_t* rank_count, Py_ssize_t* error_at,
                               Py_ssize_t* last)
    Py_ssize_t sashite_format_placement(const int16_t* squares, Py_ssize_t square_count,
                                        const int32_t* rank_lengths,
                                        const uint8_t* separators, Py_ssize_t rank_count,
                                        int epin, char* out, Py_ssize_t room,
                                        Py_ssize_t* error_at)

sashite_placement_init()


cdef int scan_placement(const unsigned char* text, Py_ssize_t length, bint epin,
                        Placement* p) noexcept nogil:
    cdef Py_ssize_t last = -1
    cdef int status = sashite_scan_placement(
        text, length, epin, p.squares, p.square_room, &p.square_count, p.rank_lengths,
        p.separators, p.rank_room, &p.rank_count, &p.error_at, &last)
    if status != SP_NOT_A_TOKEN:
        return status
    # What tokenize says there, the rule shared with it (a stray "^" after a token is
    # judged with that token).  PIN's tokenize skips a "'" as text between tokens; a
    # placement has no such text, and in PIN the mark can only be a misplaced derivation.
    if not epin and text[p.error_at] == 0x27:
        return -R_DERIVATION_IN_PIN
    return -stop_reason(text, length, p.error_at, last, epin)


cdef Py_ssize_t format_placement(Placement* p, bint epin, char* out,
                                 Py_ssize_t room) noexcept nogil:
    return sashite_format_placement(p.squares, p.square_count, p.rank_lengths, p.separators,
                                    p.rank_count, epin, out, room, &p.error_at)
