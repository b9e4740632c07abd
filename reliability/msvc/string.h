/* What the C parts take from MSVC's C library, declared as MSVC's string.h declares it,
 * for their compile under MSVC's rules here (.ci/checks), where MSVC's own headers are
 * not installed; the intrinsics' headers are clang's.  Not part of the package. */
#ifndef SASHITE_MSVC_STRING_H
#define SASHITE_MSVC_STRING_H
typedef __SIZE_TYPE__ size_t;
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int value, size_t n);
int memcmp(const void *a, const void *b, size_t n);
#endif
