# cython: language_level=3
"""sashite_epin's C-level API, for other Cython modules (engines, FEEN parsers):

    from sashite_epin cimport scan_token, scan_prefix, format_token, reason_text, Record

This is the public name to cimport; the declarations live in sashite_epin/_core_c.pxd
(the compiled core), whose documentation and contract are in docs/capi.md.  Every
function works without the GIL and without Python objects.

The three states have one numbering here, STATE_* (normal 0, enhanced 1, diminished 2:
a record's state field, code_state's answer).  RANK_* are not another numbering of them
but the values of the code's rank bits, (code & RANK_MASK) >> RANK_SHIFT, which order
codes as FEEN's hands do; the masks and shifts (*_SHIFT, *_MASK, *_BIT) let a table be
indexed by any part of a code.  Importing a module that cimports these imports
sashite_epin._core_c when it loads.
"""

from sashite_epin._core_c cimport (
    CODE_LIMIT, CODE_NONE, RECORD_SIZE,
    LETTER_SHIFT, SIDE_SHIFT, RANK_SHIFT, TERMINAL_SHIFT, DERIVED_SHIFT,
    LETTER_MASK, SIDE_BIT, RANK_MASK, TERMINAL_BIT, DERIVED_BIT, LOW_BITS,
    STATE_NORMAL, STATE_ENHANCED, STATE_DIMINISHED,
    RANK_DIMINISHED, RANK_ENHANCED, RANK_NORMAL,
    R_EMPTY, R_TOO_LONG, R_LINE_BREAK, R_WHITESPACE, R_NOT_A_LETTER, R_MORE_THAN_ONE_LETTER,
    R_OTHER_CHARACTER, R_DERIVATION_IN_PIN, R_MULTIPLE_STATE_MODIFIERS, R_MODIFIER_NOT_FIRST,
    R_MULTIPLE_DERIVATION_MARKERS, R_DERIVATION_NOT_LAST, R_MULTIPLE_TERMINAL_MARKERS,
    R_TERMINAL_NOT_AFTER_LETTER, R_MISSING, R_EMPTY_RANK, R_LEADING_ZERO,
    R_TOO_MANY_SEPARATORS, R_RUN_TOO_LONG, R_NO_ROOM, R_NOT_A_CODE, R_COUNT,
    PIN_MAX_LENGTH, EPIN_MAX_LENGTH, PIN_TOKEN_COUNT, EPIN_TOKEN_COUNT,
    Record, ScanTables,
    scan_token, scan_prefix, scan_many, scan_tables, scan_with, prefix_reason, stop_reason,
    format_token, Placement, scan_placement, format_placement,
    reason_text,
    compose_code, code_is_valid, code_index, code_abbr, code_letter, code_side,
    code_rank, code_state, code_terminal, code_derived, code_record, record_code,
)
