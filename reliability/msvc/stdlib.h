/* As string.h here: what the C parts take from MSVC's stdlib.h. */
#ifndef SASHITE_MSVC_STDLIB_H
#define SASHITE_MSVC_STDLIB_H
typedef __SIZE_TYPE__ size_t;
void *malloc(size_t size);
void *realloc(void *p, size_t size);
void free(void *p);
#endif
