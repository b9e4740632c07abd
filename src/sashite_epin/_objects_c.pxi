# The interned Pin / Epin objects, indexed by code: part of the compiled core (included
# by _core_c.pyx).  The facade builds them once and registers them here, so a parse
# ends in a table load.  Its twin is _objects_py.py.

from cpython.ref cimport PyObject

cdef PyObject* pin_objects[CODE_LIMIT]
cdef PyObject* epin_objects[CODE_LIMIT]
cdef tuple kept = ()  # owns the references behind the two arrays
cdef bint registered = False


def register(pins, epins):
    """Give the core the interned objects, indexed by code (None at unused codes)."""
    global kept, registered
    pins, epins = tuple(pins), tuple(epins)
    if len(pins) != CODE_LIMIT or len(epins) != CODE_LIMIT:
        raise ValueError(f"tables must have {CODE_LIMIT} entries")
    kept = (pins, epins)
    for i in range(CODE_LIMIT):
        pin_objects[i] = <PyObject*>pins[i]
        epin_objects[i] = <PyObject*>epins[i]
    registered = True


cdef inline object table_object(int code, bint epin):
    if not registered:
        raise RuntimeError("sashite_epin core used before its tables were registered")
    return <object>(epin_objects[code] if epin else pin_objects[code])
