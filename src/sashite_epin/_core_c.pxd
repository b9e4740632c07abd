# cython: language_level=3
"""The C-level API of the compiled core, for other Cython modules (engines, FEEN parsers):

    from sashite_epin._core_c cimport scan_token, scan_prefix, format_token, code_record

Every call below works without the GIL and without Python objects.  A *code* is an int
in [0, CODE_LIMIT) laid out as letter(5) | side(1) | rank(2) | terminal(1) | derived(1)
(docs/design.md, "Codes and records"); codes sort in FEEN's canonical hand order and
index tables of CODE_LIMIT entries.  A PIN code is the EPIN code of the same token
(derived bit 0).  A failure is minus a reason (R_* below, the values of
sashite_epin.Reason).

The functions declared without a body (scan_token, scan_prefix, scan_tables, ...) are
exported by the compiled module (Cython's C-API capsules, __pyx_capi__: importing the
cimporting module imports sashite_epin._core_c and checks each one's signature);
format_token, scan_with and the code_* / record_* helpers are inline and compile into
the caller, with the constants and struct layouts (what docs/capi.md's compatibility
promise is about).  This file is the C definition of the code layout; the Python
one is sashite_epin/_layout.py, and the core does not import if they disagree.
"""

from libc.stdint cimport int16_t, int32_t, uint8_t

# -- the code layout ----------------------------------------------------------------
cdef enum:
    CODE_LIMIT = 832      # every code is below this: 26 letters << LETTER_SHIFT
    CODE_NONE = -1        # no code: an empty square, an entry marked invalid
    LETTER_SHIFT = 5      # bits 9..5: letter index 0 (A) .. 25 (Z)
    SIDE_SHIFT = 4        # bit 4: 0 first (uppercase), 1 second (lowercase)
    RANK_SHIFT = 2        # bits 3..2: the rank
    TERMINAL_SHIFT = 1    # bit 1: terminal (^)
    DERIVED_SHIFT = 0     # bit 0: derived ('), 0 in every PIN code
    LETTER_MASK = 0x3E0   # the letter index's bits: (code & LETTER_MASK) >> LETTER_SHIFT
    SIDE_BIT = 0x10
    RANK_MASK = 0x0C
    TERMINAL_BIT = 0x02
    DERIVED_BIT = 0x01
    LOW_BITS = 0x0F       # rank, terminal, derived: what a scan table entry carries

# The rank orders the states as FEEN's hand order does: "-" before "+" before none.
# It is the code's bits, (code & RANK_MASK) >> RANK_SHIFT, not a numbering of the states
# to use elsewhere: that is STATE_* below (the record's, code_state's), the public one.
cdef enum:
    RANK_DIMINISHED = 0
    RANK_ENHANCED = 1
    RANK_NORMAL = 2

# The record's state field numbers them the other way: state == RANK_NORMAL - rank.
cdef enum:
    STATE_NORMAL = 0
    STATE_ENHANCED = 1
    STATE_DIMINISHED = 2
    RECORD_SIZE = 5       # letter, side, state, terminal, derived: unsigned bytes

# One entry of a TokenArray's buffer (its format is T{B:letter:B:side:B:state:B:terminal:
# B:derived:}): a typed memoryview ``const Record[::1] records = token_array`` reads them
# with no copy.  letter is the ASCII of the uppercase letter, 0 for an entry marked
# invalid; state is STATE_*.
ctypedef packed struct Record:
    unsigned char letter
    unsigned char side
    unsigned char state
    unsigned char terminal
    unsigned char derived

# -- scanning -----------------------------------------------------------------------
cdef enum:
    SHAPE_COUNT = 4096    # 4 positions x 3-bit byte class
    SHAPE_VALID = 0x8000  # a shape entry: VALID | letter position << 8 | LOW_BITS
    SHAPE_LETTER_AT = 0x100
    PREFIX_SHIFT = 10     # a prefix entry's token length (1-4), bits 10-12

# Byte classes.
cdef enum:
    K_OTHER = 0
    K_PLUS = 1
    K_MINUS = 2
    K_LETTER = 3
    K_CARET = 4
    K_APOS = 5
    K_ABSENT = 6

# Reasons: the values of sashite_epin.Reason, whose documentation gives the order in
# which a string that breaks several rules gets its reason.
cdef enum:
    R_EMPTY = 1
    R_TOO_LONG = 2
    R_LINE_BREAK = 3
    R_WHITESPACE = 4
    R_NOT_A_LETTER = 5
    R_MORE_THAN_ONE_LETTER = 6
    R_OTHER_CHARACTER = 7
    R_DERIVATION_IN_PIN = 8
    R_MULTIPLE_STATE_MODIFIERS = 9
    R_MODIFIER_NOT_FIRST = 10
    R_MULTIPLE_DERIVATION_MARKERS = 11
    R_DERIVATION_NOT_LAST = 12
    R_MULTIPLE_TERMINAL_MARKERS = 13
    R_TERMINAL_NOT_AFTER_LETTER = 14
    R_MISSING = 15        # bulk only: None, NaN, pandas.NA, an Arrow null
    # A FEEN piece placement's own faults (scan_placement, format_placement).
    R_EMPTY_RANK = 16             # a rank with no square ("/" first, last, "///")
    R_LEADING_ZERO = 17           # a count of empty squares written "0" or "08"
    R_TOO_MANY_SEPARATORS = 18    # "///": FEEN has "/" between ranks, "//" between layers
    R_RUN_TOO_LONG = 19           # a count of empty squares beyond the squares' room
    R_NO_ROOM = 20                # more squares, ranks or output bytes than the room
    R_NOT_A_CODE = 21             # format_placement: a square that is no code
    R_COUNT = 22          # one more than the highest: int t[R_COUNT] holds every reason

# The longest token of each notation, and how many tokens each has.
cdef enum:
    PIN_MAX_LENGTH = 3
    EPIN_MAX_LENGTH = 4
    PIN_TOKEN_COUNT = 312
    EPIN_TOKEN_COUNT = 624

# The message of a reason (R_*, or a scan's negative result as it is), as the Python
# API words it, for the PIN (epin false) or EPIN grammar: a NUL-terminated static
# string; NULL for a number that is no reason.
cdef const char* reason_text(int reason, bint epin) noexcept nogil

# Why no token starts at p (n bytes readable): the reason of what stands there, the
# markers, the letter after them if any and the markers after it (at most 8 bytes).
# scan_prefix and scan_with return minus this when they find no token; where a token
# does start, the number means nothing.
cdef int prefix_reason(const unsigned char* p, Py_ssize_t n, bint epin) noexcept nogil

# The code of the whole token p[0..n-1] (epin: EPIN grammar, else PIN), or -reason.
# Reads p[0..min(n, 4)-1] only; n <= 0 is R_EMPTY, n too long R_TOO_LONG.
cdef int scan_token(const unsigned char* p, Py_ssize_t n, bint epin) noexcept nogil

# Greedy scan of the token starting at p, n bytes readable (a longer text: tokens back
# to back, as in FEEN): optional "+"/"-", a letter, optional "^", optional "'" (EPIN).
# Returns its code and sets used[0] to its length (1-4); or returns -reason and sets
# used[0] = 0 when no token starts at p.  Reads p[0..min(n, 4)-1] only.
cdef int scan_prefix(const unsigned char* p, Py_ssize_t n, bint epin,
                     Py_ssize_t* used) noexcept nogil

# Every token of the text p[0..n-1], written back to back or between other bytes (a
# FEEN placement or hand; bytes outside the notation's alphabet, such as digits and "/",
# are skipped), in one pass: codes[k] and starts[k] (offsets from p) for each, at most
# room of them.  Returns how many it wrote and sets stop[0] and reason[0]:
#   reason 0, stop n:       the whole text was read;
#   reason 0, stop < n:     room was reached; call again from p + stop;
#   reason R_*, stop = i:   a token character at p[i] starts no token; the reason is
#                           the one Pin.tokenize / Epin.tokenize give there (stop_reason's:
#                           "K^^" is R_MULTIPLE_TERMINAL_MARKERS), so no stop_reason call
#                           is needed; the tokens before it were written.  A call that
#                           stops for room never stops right before such a stray marker.
# The tokens are those of scan_prefix applied from each token start, greedy.  Reads
# p[0..n-1] only.  The bytes kernel (sashite_epin.BYTES_KERNEL) takes whole 64-byte
# blocks of a long text at once; every kernel gives the same tokens, stop and reason.
cdef Py_ssize_t scan_many(const unsigned char* p, Py_ssize_t n, bint epin,
                          unsigned short* codes, Py_ssize_t* starts, Py_ssize_t room,
                          Py_ssize_t* stop, int* reason) noexcept nogil

# The reason Pin.tokenize / Epin.tokenize give where scan_many (or scan_prefix) found no
# token at p[stop], in the text p[0..n-1]; previous is where the token before stop starts
# (-1 for none).  A "^" (or, in EPIN, "'") right after that token is judged with it, so
# "K^^" is R_MULTIPLE_TERMINAL_MARKERS and "K''" R_MULTIPLE_DERIVATION_MARKERS, where
# scan_prefix at the stray marker alone says R_NOT_A_LETTER; anything else is what
# prefix_reason says at stop.  The one rule, shared with the Python API.
cdef int stop_reason(const unsigned char* p, Py_ssize_t n, Py_ssize_t stop,
                     Py_ssize_t previous, bint epin) noexcept nogil

# The tables behind scan_prefix, for scan_with (below) to inline the same scan into
# the caller's loop: no call, and the length stays in a register.
cdef struct ScanTables:
    const unsigned char* byte_class       # 256 entries: K_* of each byte
    const unsigned short* pin_prefixes    # SHAPE_COUNT entries each, from the DFA
    const unsigned short* epin_prefixes

cdef const ScanTables* scan_tables() noexcept nogil

# -- whole placements ---------------------------------------------------------------
# A FEEN piece placement's squares and ranks, in buffers the caller owns: squares
# [0..square_room) gets one code a square in text order (CODE_NONE for an empty one),
# rank_lengths / separators [0..rank_room) the squares of each rank and what follows it
# (1 for "/", 2 for "//" between layers, 0 after the last).  scan_placement fills
# square_count, rank_count and, on a fault, error_at (the offset of the byte at fault);
# format_placement reads square_count and rank_count and, on a fault, sets error_at to
# the square (or, for a rank's own fault, the rank) at fault.
cdef struct Placement:
    int16_t* squares
    Py_ssize_t square_room
    Py_ssize_t square_count
    int32_t* rank_lengths
    uint8_t* separators
    Py_ssize_t rank_room
    Py_ssize_t rank_count
    Py_ssize_t error_at

# The placement text[0..length-1] into p (see Placement), strictly as FEEN 1.0.0 writes
# it: EPIN (or PIN) tokens, a decimal count of empty squares (1-9, then any digits),
# "/" between ranks and "//" between layers, nothing else.  Returns 0, or minus a
# reason with p.error_at its offset: what Epin.tokenize / Pin.tokenize say of a token
# that fails there (a stray "^" judged with the token before it), and of any other
# byte (R_WHITESPACE, R_LINE_BREAK, R_NOT_A_LETTER...; a "'" in PIN is
# R_DERIVATION_IN_PIN); R_EMPTY for no text, R_EMPTY_RANK, R_LEADING_ZERO,
# R_TOO_MANY_SEPARATORS, R_RUN_TOO_LONG (a count beyond the squares' room left, or
# past what the rank's int32_t length holds) and R_NO_ROOM (a square or a rank beyond
# the room).  Reads text[0..length-1] only and writes inside the rooms only;
# square_count and rank_count say how far it got.
cdef int scan_placement(const unsigned char* text, Py_ssize_t length, bint epin,
                        Placement* p) noexcept nogil

# The text of p's placement into out[0..room-1] (no NUL): its length, or minus a
# reason with p.error_at the square (or rank) at fault: R_NO_ROOM (out is too small, or
# the ranks' lengths do not add up to square_count), R_EMPTY_RANK (no rank, or one of
# length 0), R_TOO_MANY_SEPARATORS (a separator other than 1 or 2 between two ranks),
# R_NOT_A_CODE (a square that is neither a code nor CODE_NONE), R_DERIVATION_IN_PIN (a
# derived code, epin false).  The inverse of scan_placement.
cdef Py_ssize_t format_placement(Placement* p, bint epin, char* out,
                                 Py_ssize_t room) noexcept nogil


# -- the code layout, inline --------------------------------------------------------
cdef inline int compose_code(int index, int second, int rank, int terminal,
                             int derived) noexcept nogil:
    """Attribute numbers (already valid) packed into a code."""
    return ((index << LETTER_SHIFT) | (second << SIDE_SHIFT) | (rank << RANK_SHIFT)
            | (terminal << TERMINAL_SHIFT) | (derived << DERIVED_SHIFT))

cdef inline int letter_bits(unsigned char letter) noexcept nogil:
    """The letter and side bits of the code of an ASCII letter byte: its low five bits
    are its index + 1 whatever its case, bit 5 is the case (set for lowercase)."""
    return compose_code((letter & 0x1F) - 1, (letter >> 5) & 1, 0, 0, 0)

cdef inline bint code_is_valid(int code) noexcept nogil:
    return 0 <= code < CODE_LIMIT and (code & RANK_MASK) != RANK_MASK

cdef inline int code_index(int code) noexcept nogil:
    """0 (A) .. 25 (Z)."""
    return code >> LETTER_SHIFT

cdef inline char code_abbr(int code) noexcept nogil:
    """'A'..'Z'."""
    return <char>(65 + code_index(code))

cdef inline int code_side(int code) noexcept nogil:
    """0 first, 1 second."""
    return (code >> SIDE_SHIFT) & 1

cdef inline char code_letter(int code) noexcept nogil:
    """The letter as written: uppercase for the first side, lowercase for the second."""
    return <char>((97 if code_side(code) else 65) + code_index(code))

cdef inline int code_rank(int code) noexcept nogil:
    """RANK_DIMINISHED, RANK_ENHANCED or RANK_NORMAL (the order of the code)."""
    return (code & RANK_MASK) >> RANK_SHIFT

cdef inline int code_state(int code) noexcept nogil:
    """STATE_NORMAL, STATE_ENHANCED or STATE_DIMINISHED (the record's state field)."""
    return RANK_NORMAL - code_rank(code)

cdef inline int code_terminal(int code) noexcept nogil:
    return (code >> TERMINAL_SHIFT) & 1

cdef inline int code_derived(int code) noexcept nogil:
    return (code >> DERIVED_SHIFT) & 1

cdef inline void code_record(int code, unsigned char* out) noexcept nogil:
    """The 5-byte record (letter, side, state, terminal, derived) of a valid code, as
    in TokenArray's buffer."""
    out[0] = <unsigned char>code_abbr(code)
    out[1] = <unsigned char>code_side(code)
    out[2] = <unsigned char>code_state(code)
    out[3] = <unsigned char>code_terminal(code)
    out[4] = <unsigned char>code_derived(code)

cdef inline int format_token(int code, char* out) noexcept nogil:
    """Writes the token of a code into out (room for 4 bytes, no NUL added); returns its
    length (1-4), or -1 for a value that is no code.  Inline: a writer's loop has no
    call per token."""
    cdef int n = 0, rank
    if not code_is_valid(code):
        return -1
    rank = code_rank(code)
    if rank != RANK_NORMAL:
        out[0] = b'-' if rank == RANK_DIMINISHED else b'+'
        n = 1
    out[n] = code_letter(code)
    n += 1
    if code_terminal(code):
        out[n] = b'^'
        n += 1
    if code_derived(code):
        out[n] = b"'"
        n += 1
    return n

cdef inline int record_code(const unsigned char* r) noexcept nogil:
    """The code of a record, or -1 for the zero record of an entry marked invalid.  Not
    a check: use it on records this package wrote."""
    if r[0] == 0:
        return -1
    return compose_code(r[0] - 65, r[1], RANK_NORMAL - r[2], r[3], r[4])


# -- scanning, inline: table mechanics only (the grammar is in the tables) ----------
cdef inline int absent_tail(int n) noexcept nogil:
    """The classes of the positions n..3 of a shape, all K_ABSENT."""
    cdef int tail = 0, i
    for i in range(n, 4):
        tail |= K_ABSENT << (3 * i)
    return tail

cdef inline int code_of_entry(const unsigned char* p, unsigned short entry) noexcept nogil:
    """The code of the token at p whose shape entry is valid."""
    return letter_bits(p[1 if entry & SHAPE_LETTER_AT else 0]) | (entry & LOW_BITS)

cdef inline int scan_with(const ScanTables* t, const unsigned char* p, Py_ssize_t n,
                          bint epin, Py_ssize_t* used) noexcept nogil:
    """scan_prefix, inline, with t = scan_tables() (fetched once, outside the loop)."""
    cdef unsigned short entry
    cdef int shape
    if n >= 4:  # the common case in a long text: no length test per byte
        shape = (t.byte_class[p[0]] | (t.byte_class[p[1]] << 3)
                 | (t.byte_class[p[2]] << 6) | (t.byte_class[p[3]] << 9))
    elif n <= 0:
        used[0] = 0
        return -R_EMPTY
    else:
        shape = t.byte_class[p[0]] | absent_tail(n)
        shape |= (t.byte_class[p[1]] << 3) if n > 1 else 0
        shape |= (t.byte_class[p[2]] << 6) if n > 2 else 0
    entry = t.epin_prefixes[shape] if epin else t.pin_prefixes[shape]
    if not entry & SHAPE_VALID:
        used[0] = 0
        return -prefix_reason(p, n, epin)
    used[0] = (entry >> PREFIX_SHIFT) & 7
    return code_of_entry(p, entry)
