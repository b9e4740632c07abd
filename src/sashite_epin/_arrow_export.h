/* Writing Arrow C Data Interface structs: the mechanics of TokenArray's export (the
 * columns' contents are computed in _export_c.pxi).  Every array node owns its
 * buffers and its children; release frees them, children first, and a child moved out
 * by a consumer (its release set to NULL in our copy) is left to the consumer, as the
 * specification allows.  Capsule destructors release what no consumer took. */
#ifndef SASHITE_EPIN_ARROW_EXPORT_H
#define SASHITE_EPIN_ARROW_EXPORT_H

#include <Python.h>
#include <stdlib.h>
#include <string.h>
#include "_arrow.h"
#include "_memory.h"

#define SASHITE_MAX_BUFFERS 4 /* a utf8_view column: validity, views, data, sizes */
#define SASHITE_MAX_CHILDREN 10

struct sashite_node {
    const void *buffers[SASHITE_MAX_BUFFERS];
    /* freed by release (1: free, 2: sashite_records_free); 0: inside another */
    unsigned char owned[SASHITE_MAX_BUFFERS];
    struct ArrowArray *children[SASHITE_MAX_CHILDREN];
    struct ArrowArray child_arrays[SASHITE_MAX_CHILDREN];
    struct ArrowArray dictionary;
};

static void sashite_release_node(struct ArrowArray *a) {
    struct sashite_node *node = (struct sashite_node *)a->private_data;
    int64_t i;
    for (i = 0; i < a->n_children; i++)
        if (node->children[i]->release != NULL) node->children[i]->release(node->children[i]);
    if (a->dictionary != NULL && a->dictionary->release != NULL)
        a->dictionary->release(a->dictionary);
    for (i = 0; i < a->n_buffers; i++)
        if (node->owned[i] == 1)
            free((void *)node->buffers[i]);
        else if (node->owned[i] == 2)
            sashite_records_free((void *)node->buffers[i]);
    free(node);
    a->release = NULL;
}

/* An empty node of length entries, with room for n_buffers buffers (all NULL, to be
 * filled with malloc'd memory the node then owns) and n_children children (already
 * pointed to, each to be initialised with sashite_node_init too).  0, or -1. */
static int sashite_node_init(struct ArrowArray *out, int64_t length, int64_t null_count,
                             int n_buffers, int n_children) {
    struct sashite_node *node = (struct sashite_node *)calloc(1, sizeof *node);
    int i;
    memset(out, 0, sizeof *out);
    if (node == NULL) return -1;
    for (i = 0; i < n_children; i++) node->children[i] = &node->child_arrays[i];
    out->length = length;
    out->null_count = null_count;
    out->n_buffers = n_buffers;
    out->n_children = n_children;
    out->buffers = node->buffers;
    out->children = n_children ? node->children : NULL;
    out->private_data = node;
    out->release = sashite_release_node;
    return 0;
}

static struct ArrowArray *sashite_node_child(struct ArrowArray *a, int i) {
    return ((struct sashite_node *)a->private_data)->children[i];
}

static struct ArrowArray *sashite_node_dictionary(struct ArrowArray *a) {
    a->dictionary = &((struct sashite_node *)a->private_data)->dictionary;
    return a->dictionary;
}

static void sashite_node_set_buffer(struct ArrowArray *a, int i, void *owned) {
    ((struct sashite_node *)a->private_data)->buffers[i] = owned;
    ((struct sashite_node *)a->private_data)->owned[i] = 1;
}

/* A buffer from sashite_records_alloc (_memory.h), which the node then owns: the
 * largest ones, whose memory a later export takes again instead of faulting in fresh
 * pages. */
static void sashite_node_set_kept_buffer(struct ArrowArray *a, int i, void *owned) {
    ((struct sashite_node *)a->private_data)->buffers[i] = owned;
    ((struct sashite_node *)a->private_data)->owned[i] = owned != NULL ? 2 : 0;
}

/* A buffer inside one the same node owns (set as buffer j < i): one allocation for
 * several buffers of a node, freed once. */
static void sashite_node_set_view(struct ArrowArray *a, int i, void *inside) {
    ((struct sashite_node *)a->private_data)->buffers[i] = inside;
    ((struct sashite_node *)a->private_data)->owned[i] = 0;
}

/* Schemas: formats and names are static strings; children live in one block. */
struct sashite_schema_node {
    struct ArrowSchema *children[SASHITE_MAX_CHILDREN];
    struct ArrowSchema child_schemas[SASHITE_MAX_CHILDREN];
    struct ArrowSchema dictionaries[SASHITE_MAX_CHILDREN];
};

static void sashite_release_schema_node(struct ArrowSchema *s) {
    struct sashite_schema_node *node = (struct sashite_schema_node *)s->private_data;
    int64_t i;
    for (i = 0; i < s->n_children; i++)
        if (node->children[i]->release != NULL) node->children[i]->release(node->children[i]);
    free(node);
    s->release = NULL;
}

static void sashite_release_leaf_schema(struct ArrowSchema *s) {
    if (s->dictionary != NULL && s->dictionary->release != NULL)
        s->dictionary->release(s->dictionary);
    s->release = NULL;
}

static void sashite_release_static_schema(struct ArrowSchema *s) { s->release = NULL; }

static void sashite_leaf_schema(struct ArrowSchema *out, const char *name, const char *format,
                                struct ArrowSchema *dictionary) {
    memset(out, 0, sizeof *out);
    out->format = format;
    out->name = name;
    out->flags = ARROW_FLAG_NULLABLE;
    out->dictionary = dictionary;
    out->release = sashite_release_leaf_schema;
    if (dictionary != NULL) {
        memset(dictionary, 0, sizeof *dictionary);
        dictionary->format = "u";
        dictionary->name = "";
        dictionary->release = sashite_release_static_schema;
    }
}

/* A struct schema of n fields: names[i] of formats[i], dictionary-encoded over utf8
 * where dictionary[i].  0, or -1. */
static int sashite_struct_schema(struct ArrowSchema *out, int n, const char *const *names,
                                 const char *const *formats, const int *dictionary) {
    struct sashite_schema_node *node = (struct sashite_schema_node *)calloc(1, sizeof *node);
    int i;
    memset(out, 0, sizeof *out);
    if (node == NULL) return -1;
    for (i = 0; i < n; i++) {
        node->children[i] = &node->child_schemas[i];
        sashite_leaf_schema(node->children[i], names[i], formats[i],
                            dictionary[i] ? &node->dictionaries[i] : NULL);
    }
    out->format = "+s";
    out->name = "";
    out->n_children = n;
    out->children = node->children;
    out->private_data = node;
    out->release = sashite_release_schema_node;
    return 0;
}

/* A struct schema of one field, name, a large_list (nullable) of the struct
 * sashite_struct_schema makes of the rest (its items, named "item" as pyarrow and
 * polars name them).  0, or -1. */
static int sashite_nested_schema(struct ArrowSchema *out, const char *name, int n,
                                 const char *const *names, const char *const *formats,
                                 const int *dictionary) {
    struct sashite_schema_node *top = (struct sashite_schema_node *)calloc(1, sizeof *top);
    struct sashite_schema_node *list = (struct sashite_schema_node *)calloc(1, sizeof *list);
    struct ArrowSchema *lists;
    memset(out, 0, sizeof *out);
    if (top == NULL || list == NULL) goto fail;
    list->children[0] = &list->child_schemas[0];
    if (sashite_struct_schema(list->children[0], n, names, formats, dictionary) < 0) goto fail;
    list->children[0]->name = "item";
    list->children[0]->flags = ARROW_FLAG_NULLABLE;
    lists = top->children[0] = &top->child_schemas[0];
    lists->format = "+L";
    lists->name = name;
    lists->flags = ARROW_FLAG_NULLABLE;
    lists->n_children = 1;
    lists->children = list->children;
    lists->private_data = list;
    lists->release = sashite_release_schema_node;
    out->format = "+s";
    out->name = "";
    out->n_children = 1;
    out->children = top->children;
    out->private_data = top;
    out->release = sashite_release_schema_node;
    return 0;
fail:
    free(top);
    free(list);
    return -1;
}

/* Capsules that own a struct: released (if no consumer moved it) and freed with them. */
static void sashite_schema_capsule_free(PyObject *capsule) {
    struct ArrowSchema *s = (struct ArrowSchema *)PyCapsule_GetPointer(capsule, "arrow_schema");
    if (s == NULL) { PyErr_Clear(); return; }
    if (s->release != NULL) s->release(s);
    free(s);
}

static void sashite_array_capsule_free(PyObject *capsule) {
    struct ArrowArray *a = (struct ArrowArray *)PyCapsule_GetPointer(capsule, "arrow_array");
    if (a == NULL) { PyErr_Clear(); return; }
    if (a->release != NULL) a->release(a);
    free(a);
}

static void sashite_stream_capsule_free(PyObject *capsule) {
    struct ArrowArrayStream *s =
        (struct ArrowArrayStream *)PyCapsule_GetPointer(capsule, "arrow_array_stream");
    if (s == NULL) { PyErr_Clear(); return; }
    if (s->release != NULL) s->release(s);
    free(s);
}

/* A stream of one array: get_schema copies the schema again each time (rebuilt by the
 * function the exporter gave, from the shape it gave), get_next hands the array over
 * once, then the end. */
struct sashite_one_chunk {
    struct ArrowArray array;
    int (*schema)(struct ArrowSchema *out, int shape);
    int shape;
};

static int sashite_one_chunk_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
    struct sashite_one_chunk *p = (struct sashite_one_chunk *)s->private_data;
    return p->schema(out, p->shape) == 0 ? 0 : 12; /* ENOMEM */
}

static int sashite_one_chunk_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
    struct sashite_one_chunk *p = (struct sashite_one_chunk *)s->private_data;
    memcpy(out, &p->array, sizeof *out); /* moved: after the last chunk, release is NULL */
    p->array.release = NULL;
    return 0;
}

static const char *sashite_one_chunk_error(struct ArrowArrayStream *s) {
    (void)s;
    return NULL;
}

static void sashite_one_chunk_release(struct ArrowArrayStream *s) {
    struct sashite_one_chunk *p = (struct sashite_one_chunk *)s->private_data;
    if (p->array.release != NULL) p->array.release(&p->array);
    free(p);
    s->release = NULL;
}

/* Takes the array over (its release moves into the stream).  0, or -1. */
static int sashite_one_chunk_stream(struct ArrowArrayStream *out, struct ArrowArray *array,
                                    int (*schema)(struct ArrowSchema *, int), int shape) {
    struct sashite_one_chunk *p = (struct sashite_one_chunk *)malloc(sizeof *p);
    if (p == NULL) return -1;
    memcpy(&p->array, array, sizeof *array);
    array->release = NULL;
    p->schema = schema;
    p->shape = shape;
    out->get_schema = sashite_one_chunk_schema;
    out->get_next = sashite_one_chunk_next;
    out->get_last_error = sashite_one_chunk_error;
    out->release = sashite_one_chunk_release;
    out->private_data = p;
    return 0;
}

#endif
