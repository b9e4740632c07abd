"""A kit for hostile Arrow producers: C Data Interface structs built with ctypes (no
pyarrow), every field settable to anything, handed over through the PyCapsule
interface.  Every release callback counts its calls and marks its struct released, as
the specification asks; what the consumer leaves in a capsule the kit releases at the
end, as the capsule's destructor would.

``python tests/arrow_producers.py CASE`` runs one case of ``CASES`` in this process
(the parent test runs each in its own, so a crash is a failure, not the end of the
run) and prints one JSON line: what ``parse_many`` and ``tokenize_many`` did, each with
a producer of its own, and how often each struct was released.  ``--random SEED
COUNT`` runs COUNT producers with random lies (what the fuzz target ``arrow_structs``
hands over) and prints their outcomes.
"""

from __future__ import annotations

import ctypes
import json
import struct
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any


class ArrowSchema(ctypes.Structure):
    pass


class ArrowArray(ctypes.Structure):
    pass


class ArrowArrayStream(ctypes.Structure):
    pass


SchemaRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
ArrayRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))
StreamRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))
GetSchema = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowSchema)
)
GetNext = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowArray)
)
GetLastError = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))

ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", SchemaRelease),
    ("private_data", ctypes.c_void_p),
]
ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ArrayRelease),
    ("private_data", ctypes.c_void_p),
]
ArrowArrayStream._fields_ = [
    ("get_schema", GetSchema),
    ("get_next", GetNext),
    ("get_last_error", GetLastError),
    ("release", StreamRelease),
    ("private_data", ctypes.c_void_p),
]

# Function objects of their own (ctypes.pythonapi's are shared, and the twin sets their
# argument types its own way).  The pointer one takes the capsule's raw address: a
# destructor must not take a reference to the capsule being freed.
_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", ctypes.pythonapi)
)
_Pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)


class Kit:
    """Structs and the memory they point to, kept alive as long as the kit; releases
    counted by the name each struct was made with."""

    def __init__(self) -> None:
        self.released: Counter[str] = Counter()
        self.names: dict[int, str] = {}
        self.keep: list[Any] = []
        self.top: list[Any] = []  # the structs handed over in capsules

    def hold(self, thing: Any) -> Any:
        self.keep.append(thing)
        return thing

    def data(self, raw: bytes) -> int:
        """A buffer holding raw, with room past its end (reads there are the reader's
        fault, but need not crash this test)."""
        block = self.hold(ctypes.create_string_buffer(raw, len(raw) + 64))
        return ctypes.addressof(block)

    def offsets(self, entries: list[bytes], large: bool = False) -> tuple[int, int]:
        ends, at = [0], 0
        for e in entries:
            at += len(e)
            ends.append(at)
        packed = struct.pack(f"<{len(ends)}{'q' if large else 'i'}", *ends)
        return self.data(packed), self.data(b"".join(entries))

    def pointers(self, addresses: list[int | None]) -> Any:
        return self.hold((ctypes.c_void_p * max(1, len(addresses)))(*addresses))

    def _tag(self, name: str) -> int:
        key = len(self.names) + 1
        self.names[key] = name
        return key

    def schema(self, name: str, fmt: bytes | None, **fields: Any) -> ArrowSchema:
        s = self.hold(ArrowSchema())
        s.format = fmt
        s.private_data = self._tag(name)

        def release(p: Any) -> None:
            self.released[self.names[p.contents.private_data]] += 1
            p.contents.release = SchemaRelease()

        s.release = self.hold(SchemaRelease(release))
        for key, value in fields.items():
            setattr(s, key, value)
        return s

    def array(self, name: str, count: int, buffers: list[int | None], **fields: Any) -> ArrowArray:
        """An array of count entries over buffers; fields set last, whatever they say."""
        a = self.hold(ArrowArray())
        a.length, a.n_buffers = count, len(buffers)
        a.buffers = ctypes.cast(self.pointers(buffers), ctypes.POINTER(ctypes.c_void_p))
        a.private_data = self._tag(name)

        def release(p: Any) -> None:
            self.released[self.names[p.contents.private_data]] += 1
            p.contents.release = ArrayRelease()

        a.release = self.hold(ArrayRelease(release))
        for key, value in fields.items():
            setattr(a, key, value)
        return a

    def children(self, kind: Any, items: list[Any]) -> Any:
        table = self.hold((ctypes.POINTER(kind) * max(1, len(items)))())
        for i, item in enumerate(items):
            table[i] = ctypes.pointer(item) if item is not None else ctypes.POINTER(kind)()
        return ctypes.cast(table, ctypes.POINTER(ctypes.POINTER(kind)))

    def capsule(self, thing: Any, name: bytes) -> Any:
        """A capsule over a struct.  It has no destructor: the kit releases what is
        left at the end (finish), as a destructor would.  (A ctypes destructor would run
        Python code while the consumer's exception is being raised, which CPython does
        not allow; a producer's own destructor is C.)"""
        self.top.append(thing)
        return _New(ctypes.addressof(thing), name, None)

    def finish(self) -> None:
        """Release every struct handed over in a capsule that is not released yet."""
        for thing in self.top:
            if thing.release:
                thing.release(ctypes.pointer(thing))


class ArrayProducer:
    """Hands over (schema, array) through __arrow_c_array__, made fresh each call."""

    def __init__(self, kit: Kit, make: Callable[[Kit], tuple[ArrowSchema, ArrowArray]]) -> None:
        self.kit, self.make = kit, make

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[Any, Any]:
        schema, array = self.make(self.kit)
        return (
            self.kit.capsule(schema, b"arrow_schema"),
            self.kit.capsule(array, b"arrow_array"),
        )


class StreamProducer:
    """Hands over a stream of chunks through __arrow_c_stream__; each get_next moves the
    next chunk (a fresh struct) into the consumer's; fields of the stream set as told."""

    def __init__(
        self,
        kit: Kit,
        schema: Callable[[Kit], ArrowSchema],
        chunks: list[Callable[[Kit], ArrowArray]],
        **fields: Any,
    ) -> None:
        self.kit, self.make_schema, self.chunks, self.fields = kit, schema, chunks, fields

    def __arrow_c_stream__(self, requested_schema: object = None) -> Any:
        kit, queue = self.kit, list(self.chunks)
        stream = kit.hold(ArrowArrayStream())

        def get_schema(p: Any, out: Any) -> int:
            s = self.make_schema(kit)
            ctypes.memmove(out, ctypes.addressof(s), ctypes.sizeof(ArrowSchema))
            return 0

        def get_next(p: Any, out: Any) -> int:
            if not queue:
                ctypes.memset(out, 0, ctypes.sizeof(ArrowArray))  # the end: release NULL
                return 0
            a = queue.pop(0)(kit)
            if a.release:  # one without is the end of the stream, by the specification
                kit.released["chunks handed over"] += 1
            ctypes.memmove(out, ctypes.addressof(a), ctypes.sizeof(ArrowArray))
            return 0

        def release(p: Any) -> None:
            kit.released["stream"] += 1
            p.contents.release = StreamRelease()

        stream.get_schema = kit.hold(GetSchema(get_schema))
        stream.get_next = kit.hold(GetNext(get_next))
        stream.get_last_error = kit.hold(GetLastError(lambda p: b"kit"))
        stream.release = kit.hold(StreamRelease(release))
        for key, value in self.fields.items():
            setattr(stream, key, value)
        return kit.capsule(stream, b"arrow_array_stream")


# -- the columns a case starts from -------------------------------------------------------

TOKENS = [b"K", b"+q^", b"b'", b"-P"]
HUGE = 2**62


def told(thing: Any, fields: dict[str, Any]) -> Any:
    """thing with the fields a case sets, whatever they were."""
    for key, value in fields.items():
        setattr(thing, key, value)
    return thing


def utf8(kit: Kit, large: bool = False, **fields: Any) -> tuple[ArrowSchema, ArrowArray]:
    offsets, data = kit.offsets(TOKENS, large)
    schema = kit.schema("schema", b"U" if large else b"u")
    return schema, told(kit.array("array", len(TOKENS), [None, offsets, data]), fields)


def views(kit: Kit, **fields: Any) -> tuple[ArrowSchema, ArrowArray]:
    packed = b"".join(struct.pack("<i12s", len(t), t) for t in TOKENS)
    sizes = kit.data(struct.pack("<q", 0))
    array = kit.array("array", len(TOKENS), [None, kit.data(packed), sizes])
    return kit.schema("schema", b"vu"), told(array, fields)


def dictionary(kit: Kit, **fields: Any) -> tuple[ArrowSchema, ArrowArray]:
    offsets, data = kit.offsets(TOKENS)
    values = kit.array("values", len(TOKENS), [None, offsets, data])
    indices = kit.data(struct.pack("<6i", 0, 1, 2, 3, 2, 1))
    array = kit.array("array", 6, [None, indices], dictionary=ctypes.pointer(values))
    schema = kit.schema("schema", b"i", dictionary=ctypes.pointer(kit.schema("values", b"u")))
    return schema, told(array, fields)


def table(kit: Kit, child: dict[str, Any] | None = None, **fields: Any) -> tuple[Any, Any]:
    offsets, data = kit.offsets(TOKENS)
    column = told(kit.array("column", len(TOKENS), [None, offsets, data]), child or {})
    columns = kit.children(ArrowArray, [column])
    array = kit.array("array", len(TOKENS), [None], n_children=1, children=columns)
    fields_schema = kit.children(ArrowSchema, [kit.schema("column", b"u")])
    schema = kit.schema("schema", b"+s", n_children=1, children=fields_schema)
    return schema, told(array, fields)


def nulls(kit: Kit, length: int) -> tuple[ArrowSchema, ArrowArray]:
    return kit.schema("schema", b"n"), kit.array("array", length, [])


def with_schema(make: Callable[..., Any], **fields: Any) -> Callable[[Kit], Any]:
    def build(kit: Kit) -> Any:
        schema, array = make(kit)
        for key, value in fields.items():
            setattr(schema, key, value)
        return schema, array

    return build


def array_case(make: Callable[..., Any], **fields: Any) -> Callable[[Kit], Any]:
    return lambda kit: ArrayProducer(kit, lambda k: make(k, **fields))


def self_referring_dictionary(kit: Kit) -> tuple[ArrowSchema, ArrowArray]:
    schema, array = dictionary(kit)
    schema.dictionary = ctypes.pointer(schema)  # its values are itself
    return schema, array


def self_referring_table(kit: Kit) -> tuple[ArrowSchema, ArrowArray]:
    schema, array = table(kit)
    schema.children = kit.children(ArrowSchema, [schema])
    return schema, array


def stream_case(
    chunks: list[Callable[[Kit], ArrowArray]], fmt: bytes = b"u", **fields: Any
) -> Callable[[Kit], StreamProducer]:
    return lambda kit: StreamProducer(kit, lambda k: k.schema("schema", fmt), chunks, **fields)


def chunk(length: int | None = None, **fields: Any) -> Callable[[Kit], ArrowArray]:
    def make(kit: Kit) -> ArrowArray:
        offsets, data = kit.offsets(TOKENS)
        a = told(kit.array("chunk", len(TOKENS), [None, offsets, data]), fields)
        if length is not None:
            a.length = length
        return a

    return make


def _null_child(kit: Kit) -> tuple[ArrowSchema, ArrowArray]:
    schema, array = table(kit)
    array.children = kit.children(ArrowArray, [None])
    return schema, array


def _null_chunk(length: int) -> Callable[[Kit], ArrowArray]:
    return lambda kit: kit.array("chunk", length, [])


def far_offsets(kit: Kit) -> tuple[ArrowSchema, ArrowArray]:
    """large_utf8 whose last offset is near 2**63: sums with it would overflow."""
    schema, array = utf8(kit, large=True)
    ends = struct.pack("<5q", 0, 1, 2, 2**63 - 8, 2**63 - 2)
    array.buffers[1] = kit.data(ends)
    return schema, array


NULL_BUFFERS = ctypes.POINTER(ctypes.c_void_p)()
# Each case: how it is made, and what parse_many must do: "ok" (the column parses),
# or the exception type whose message must hold the text given.
CASES: dict[str, tuple[Callable[[Kit], Any], str, str]] = {
    "a plain utf8 column": (array_case(utf8), "ok", ""),
    "a plain large_utf8 column": (array_case(utf8, large=True), "ok", ""),
    "a plain string_view column": (array_case(views), "ok", ""),
    "a plain dictionary column": (array_case(dictionary), "ok", ""),
    "a plain one-column table": (array_case(table), "ok", ""),
    "a plain stream": (stream_case([chunk(), chunk()]), "ok", ""),
    "length -2, utf8": (array_case(utf8, length=-2), "ValueError", "Arrow array: length -2"),
    "length -2, views": (array_case(views, length=-2), "ValueError", "Arrow array: length -2"),
    "length -2, table": (array_case(table, length=-2), "ValueError", "Arrow array: length -2"),
    "length -2, a table's column": (
        array_case(table, child={"length": -2}), "ValueError", "Arrow array's child: length -2"),
    "length -2, dictionary": (
        array_case(dictionary, length=-2), "ValueError", "Arrow array: length -2"),
    "length huge, utf8": (array_case(utf8, length=HUGE), "ValueError", "is too large"),
    "offset -1": (array_case(utf8, offset=-1), "ValueError", "Arrow array: offset -1"),
    "offset huge": (array_case(utf8, offset=HUGE), "ValueError", "is too large"),
    "offset + length overflows": (
        array_case(utf8, offset=2**62, length=2**62), "ValueError", "is too large"),
    "null_count -5": (array_case(utf8, null_count=-5), "ValueError", "null_count -5"),
    "n_buffers 2, utf8": (array_case(utf8, n_buffers=2), "ValueError", "n_buffers 2"),
    "n_buffers huge, utf8": (array_case(utf8, n_buffers=HUGE), "ValueError", "n_buffers"),
    "n_buffers 2, views": (array_case(views, n_buffers=2), "ValueError", "n_buffers 2"),
    "n_buffers -1": (array_case(utf8, n_buffers=-1), "ValueError", "n_buffers -1"),
    "buffers NULL": (array_case(utf8, buffers=NULL_BUFFERS), "ValueError", "buffers is NULL"),
    "n_children 1, utf8": (array_case(utf8, n_children=1), "ValueError", "n_children 1"),
    "n_children -1, table": (array_case(table, n_children=-1), "ValueError", "n_children -1"),
    "a table's children NULL": (
        array_case(table, children=ctypes.POINTER(ctypes.POINTER(ArrowArray))()),
        "ValueError", "children is NULL"),
    "a table's child NULL": (
        lambda kit: ArrayProducer(kit, lambda k: _null_child(k)), "ValueError", "child 0 is NULL"),
    "large_utf8 offsets near 2**63": (
        lambda kit: ArrayProducer(kit, far_offsets), "ValueError", "past 2**59"),
    "a table far longer than its column": (
        array_case(table, length=2**40), "ValueError", "short of the table's"),
    "a table's column shorter than the table": (
        array_case(table, child={"length": 2}), "ValueError", "short of the table's"),
    "a dictionary column without its dictionary": (
        array_case(dictionary, dictionary=ctypes.POINTER(ArrowArray)()),
        "ValueError", "dictionary is NULL"),
    "an array already released": (
        array_case(utf8, release=ArrayRelease()), "ValueError", "Arrow array: released"),
    "a schema already released": (
        lambda kit: ArrayProducer(kit, with_schema(utf8, release=SchemaRelease())),
        "ValueError", "Arrow schema: released"),
    "a schema without a format": (
        lambda kit: ArrayProducer(kit, with_schema(utf8, format=None)),
        "ValueError", "Arrow schema: format is NULL"),
    "a schema with n_children -3": (
        lambda kit: ArrayProducer(kit, with_schema(utf8, n_children=-3)),
        "ValueError", "n_children -3"),
    "a utf8 schema with children": (
        lambda kit: ArrayProducer(kit, with_schema(utf8, n_children=2)),
        "ValueError", "n_children 2"),
    "a dictionary schema whose values are itself": (
        lambda kit: ArrayProducer(kit, self_referring_dictionary), "TypeError", "dictionary"),
    "a table schema whose column is itself": (
        lambda kit: ArrayProducer(kit, self_referring_table), "TypeError", "struct"),
    "the null type, huge, marked": (
        lambda kit: ArrayProducer(kit, lambda k: nulls(k, 2**58)), "MemoryError", ""),
    "the null type, a length of 2**40, marked": (
        lambda kit: ArrayProducer(kit, lambda k: nulls(k, 2**40)), "MemoryError", ""),
    "a stream without get_schema": (
        stream_case([chunk()], get_schema=GetSchema()), "ValueError", "get_schema is NULL"),
    "a stream without get_next": (
        stream_case([chunk()], get_next=GetNext()), "ValueError", "get_next is NULL"),
    "a stream without get_last_error": (
        stream_case([chunk()], get_last_error=GetLastError()),
        "ValueError", "get_last_error is NULL"),
    "a stream already released": (
        stream_case([chunk()], release=StreamRelease()), "ValueError", "Arrow stream: released"),
    "a stream whose second chunk lies": (
        stream_case([chunk(), chunk(length=-7)]), "ValueError", "Arrow array: length -7"),
    "a stream whose chunks add up past memory": (
        stream_case([_null_chunk(2**40), _null_chunk(2**58)], fmt=b"n"), "MemoryError", ""),
}  # fmt: skip


# The readers a producer is handed to, each with a producer of its own: parse_many, and
# tokenize_many (each entry a text), both marking what they refuse, so a valid column
# and a huge one both go all the way.
READERS = ("parse_many", "tokenize_many")


def read_with(reader: str, make: Callable[[Kit], Any]) -> tuple[str, Counter[str]]:
    """What reader did with a fresh producer (kind and message, or "ok" and the
    entries' count: the parent judges) and the releases counted."""
    import gc

    import sashite_epin

    kit = Kit()
    producer = make(kit)
    try:
        result = getattr(sashite_epin.Epin, reader)(producer, errors="mark")
        outcome = f"ok {len(result)}"
    except Exception as error:  # what kind, and what it says: the parent judges
        outcome = f"{type(error).__name__}: {error}"
    del producer
    gc.collect()
    kit.finish()
    return outcome, kit.released


def run(case: str) -> dict[str, Any]:
    """One case in this process: each reader's outcome and the releases counted."""
    make, _, _ = CASES[case]
    said = {}
    for reader in READERS:
        outcome, released = read_with(reader, make)
        said[reader] = {"outcome": outcome, "released": dict(released)}
    return said


# -- random lies: what the fuzz target and the random sweep hand over ------------------

# Values a field may be set to: what the structs can show is impossible (negative,
# beyond any byte size), or consistent with the kit's buffers (small counts, prefixes
# and suffixes of the 4 or 6 entries, read within the buffers' slack).  Never a
# plausible size past the buffers: that is the lie no consumer can see.
INT_LIES = {
    "length": [-(2**63), -1, 0, 1, 3, 2**62, 2**63 - 1],
    "offset": [-(2**63), -1, 0, 1, 2**62, 2**63 - 1],
    "null_count": [-(2**63), -2, -1, 0, 1, 2**63 - 1],
    "n_buffers": [-1, 0, 1, 2, 2**62, 2**63 - 1],
    "n_children": [-1, 0, 2, 2**62],
}
POINTER_LIES = {
    "buffers": ctypes.POINTER(ctypes.c_void_p),
    "children": ctypes.POINTER(ctypes.POINTER(ArrowArray)),
    "dictionary": ctypes.POINTER(ArrowArray),
    "release": ArrayRelease,
}
SCHEMA_LIES: list[tuple[str, Any]] = [
    ("format", None), ("format", b""), ("format", b"l"), ("format", b"+l"), ("format", b"n"),
    ("format", b"+s"), ("n_children", -1), ("n_children", 2), ("n_children", 2**62),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))()),
    ("dictionary", ctypes.POINTER(ArrowSchema)()), ("release", SchemaRelease()),
]  # fmt: skip
BASES: dict[str, Callable[[Kit], tuple[ArrowSchema, ArrowArray]]] = {
    "utf8": utf8,
    "large_utf8": lambda kit: utf8(kit, large=True),
    "views": views,
    "dictionary": dictionary,
    "table": table,
    "nulls": lambda kit: nulls(kit, 4),
}


def lie_to_array(a: ArrowArray, pick: Callable[[int], int], views_layout: bool) -> None:
    fields = [*INT_LIES, *POINTER_LIES]
    field = fields[pick(len(fields))]
    if field in INT_LIES:
        values = INT_LIES[field]
        if field == "n_buffers" and not views_layout:
            values = [*values, 4]  # views take any number: a count past theirs is unseen
        setattr(a, field, values[pick(len(values))])
    else:
        setattr(a, field, POINTER_LIES[field]())


def random_producer(kit: Kit, pick: Callable[[int], int]) -> Any:
    """A column of some layout, or a stream of two, with up to three fields lying."""
    names = [*BASES, "stream"]
    base = names[pick(len(names))]
    lies = pick(4)
    if base == "stream":
        stream_lies = [
            ("get_schema", GetSchema()), ("get_next", GetNext()),
            ("get_last_error", GetLastError()), ("release", StreamRelease()),
        ]  # fmt: skip
        fields = dict([stream_lies[pick(4)]]) if lies and pick(3) == 0 else {}
        told_chunks = [pick(2) == 0 for _ in range(2)] if lies else [False, False]

        def lying_chunk(lie: bool) -> Callable[[Kit], ArrowArray]:
            def make(k: Kit) -> ArrowArray:
                a = chunk()(k)
                if lie:
                    lie_to_array(a, pick, False)
                return a

            return make

        return StreamProducer(
            kit,
            lambda k: k.schema("schema", b"u"),
            [lying_chunk(t) for t in told_chunks],
            **fields,
        )
    schema, array = BASES[base](kit)
    targets: list[Any] = [array, schema]
    if base == "table":
        targets.append(array.children[0].contents)
    if base == "dictionary":
        targets.append(array.dictionary.contents)
    for _ in range(lies):
        target = targets[pick(len(targets))]
        if isinstance(target, ArrowSchema):
            field, value = SCHEMA_LIES[pick(len(SCHEMA_LIES))]
            setattr(target, field, value)
        else:
            lie_to_array(target, pick, base == "views")
    return ArrayProducer(kit, lambda k: (schema, array))


def run_random(seed: int, count: int) -> list[str]:
    """count random producers' outcomes (releases checked here)."""
    import random

    rng = random.Random(seed)
    outcomes = []
    for _ in range(count):
        lies = rng.randrange(2**32)  # the same producer for each reader

        def make(kit: Kit, lies: int = lies) -> Any:
            return random_producer(kit, random.Random(lies).randrange)

        for reader in READERS:
            outcome, released = read_with(reader, make)
            wrong = {
                k: n for k, n in released.items()
                if k not in ("chunk", "chunks handed over") and n > 1
            }  # fmt: skip
            if wrong or released["chunk"] != released["chunks handed over"]:
                outcome += f" RELEASES {dict(released)}"
            outcomes.append(f"{reader}: {outcome}")
    return outcomes


if __name__ == "__main__":
    if sys.argv[1] == "--random":
        print(json.dumps(run_random(int(sys.argv[2]), int(sys.argv[3]))))
    else:
        print(json.dumps(run(sys.argv[1])))
