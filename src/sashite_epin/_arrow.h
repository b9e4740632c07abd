/* The Arrow C Data Interface structs (a stable ABI, from the Arrow specification), read
 * by _arrow_c.pxi and written by the TokenArray exporter.  The guard is the one the
 * specification asks every copy to use, so this header can meet another's. */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#include <stdint.h>

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

#endif

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};

#endif

#ifndef SASHITE_EPIN_ARROW_H
#define SASHITE_EPIN_ARROW_H

/* Calls through the structs' function pointers (Cython cannot call a member that is a
 * function pointer taking the struct itself without these). */
static inline void sashite_release_schema(struct ArrowSchema *s) {
    if (s->release != NULL) s->release(s);
}
static inline void sashite_release_array(struct ArrowArray *a) {
    if (a->release != NULL) a->release(a);
}
static inline void sashite_release_stream(struct ArrowArrayStream *s) {
    if (s->release != NULL) s->release(s);
}
static inline int sashite_stream_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
    return s->get_schema(s, out);
}
static inline int sashite_stream_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
    return s->get_next(s, out);
}
static inline const char *sashite_stream_error(struct ArrowArrayStream *s) {
    return s->get_last_error != NULL ? s->get_last_error(s) : NULL;
}

#endif
