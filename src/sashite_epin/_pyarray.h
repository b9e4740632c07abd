/* Writing into an array.array in place.  A result's offsets are an array('q') of one
 * entry per token: built in our own memory and then copied in (frombytes), the copy
 * cost a fifth of tokenize_many.  So the array is sized first and written where it
 * keeps its items.
 *
 * The array module has no C API; its object is laid out in Modules/arraymodule.c as
 * below (the same since Python 3.0; Cython's cpython/array.pxd reads it too).  The
 * layout is checked against a real array at import (sashite_pyarray_layout_ok), and
 * without it the caller copies, as before. */
#ifndef SASHITE_EPIN_PYARRAY_H
#define SASHITE_EPIN_PYARRAY_H

#include <Python.h>

typedef struct {
    PyObject_VAR_HEAD
    char *ob_item;
    Py_ssize_t allocated;
} sashite_pyarray;

/* Whether a, an array('q') of the items 1, 2, 3 whose buffer_info() address is item0,
 * is laid out as above. */
static int sashite_pyarray_layout_ok(PyObject *a, void *item0) {
    sashite_pyarray *h = (sashite_pyarray *)a;
    return Py_SIZE(a) == 3 && h->ob_item == (char *)item0 && h->allocated >= 3
           && ((long long *)(void *)h->ob_item)[2] == 3;
}

/* The array's items resized to items of itemsize bytes, the new ones not written: a
 * must be an array no one else holds, with no buffer exported (the caller's own, new
 * one).  Its address after, or NULL with MemoryError set. */
static void *sashite_pyarray_resize(PyObject *a, Py_ssize_t items, Py_ssize_t itemsize) {
    sashite_pyarray *h = (sashite_pyarray *)a;
    char *p;
    if (items < 0 || (size_t)items > PY_SSIZE_T_MAX / (size_t)itemsize) {
        PyErr_NoMemory();
        return NULL;
    }
    p = (char *)PyMem_Realloc(h->ob_item, (size_t)(items ? items : 1) * (size_t)itemsize);
    if (p == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    h->ob_item = p;
    h->allocated = items;
    Py_SET_SIZE(a, items);
    return p;
}

/* The array's length set to items (no more than it has room for): the room past them
 * stays the array's, untouched, so never faulted in; giving it back would make the
 * allocator map fresh memory, and fault it in, on the next call of the same size. */
static void sashite_pyarray_set_size(PyObject *a, Py_ssize_t items) { Py_SET_SIZE(a, items); }

#endif
