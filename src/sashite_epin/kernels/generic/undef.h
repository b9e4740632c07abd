/* Undefines what a kernel's header defined for the shared loops (generic/), so the
 * next kernel's header defines its own. */
#undef SASHITE_NAMED
#undef SASHITE_TARGET
#undef SASHITE_SEP_MASK
#undef SASHITE_POPCOUNT
#undef SASHITE_PREPARE
#undef SASHITE_BLOCK
#undef SASHITE_COMPRESS
#undef SASHITE_WRITE
#undef SASHITE_LANES_STATE
#undef SASHITE_INDEX8
#undef SASHITE_MARK8
#undef SASHITE_MARK8_ROOM
#undef SASHITE_MARK8_KEYS
#undef SASHITE_LANES_WRITE
