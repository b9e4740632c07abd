# cython: language_level=3
"""sashite_epin's C-level API, for other Cython modules (engines, FEEN parsers):

    from sashite_epin cimport scan_token, scan_prefix, format_token, reason_text, Record

This is the public name to cimport; the declarations live in sashite_epin/_core_c.pxd
(the compiled core), whose documentation and contract are in docs/capi.md.  Every
function works without the GIL and without Python objects.  Importing a module that
cimports these imports sashite_epin._core_c when it loads.
"""

from sashite_epin._core_c cimport (
    CODE_LIMIT, RECORD_SIZE,
    RANK_DIMINISHED, RANK_ENHANCED, RANK_NORMAL,
    STATE_NORMAL, STATE_ENHANCED, STATE_DIMINISHED,
    R_EMPTY, R_TOO_LONG, R_ONE_LETTER, R_STATE_MODIFIER, R_TERMINAL_MARKER,
    R_DERIVATION_MARKER, R_UNEXPECTED, R_MISSING,
    Record, ScanTables,
    scan_token, scan_prefix, scan_many, scan_tables, scan_with, format_token, reason_text,
    compose_code, code_is_valid, code_index, code_abbr, code_letter, code_side,
    code_rank, code_state, code_terminal, code_derived, code_record, record_code,
)
