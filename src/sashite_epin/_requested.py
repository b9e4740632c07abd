"""The export in the form a consumer asks for: the Arrow PyCapsule interface's
``requested_schema``, honoured by both cores' ``__arrow_c_array__`` and
``__arrow_c_stream__``.

The export is written as always, then each dictionary field asked for as a string is
decoded by pyarrow (one gather over the field's 26 or fewer words, in C).  Any other
request is refused with a message naming the first field that differs: no silent
fix-up.  It imports nothing of the package (both cores call it), so the public
``schema()`` (``_schema.py``) is built on it, not the other way round.
"""

from __future__ import annotations

# typing is not imported at run time: annotations are strings, and type checkers read
# this block.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError:
        raise ImportError(
            "a requested schema is read with pyarrow: pip install 'sashite-epin[arrow]'"
        ) from None
    return pyarrow


def plain(exported: Any) -> Any:
    """The schema with each dictionary field as its value type (string)."""
    pa = _pyarrow()
    return pa.schema(
        [f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in exported]
    )


def requested_array(result: Any, requested: object) -> tuple[object, object]:
    """``__arrow_c_array__(requested_schema)``: the export as the request's struct."""
    array = _honour(result, requested)
    return array.__arrow_c_array__()  # type: ignore[no-any-return]


def requested_stream(result: Any, requested: object) -> object:
    """``__arrow_c_stream__(requested_schema)``: the export as a stream of the
    request's schema, one batch."""
    pa = _pyarrow()
    batch = pa.RecordBatch.from_struct_array(_honour(result, requested))
    return pa.RecordBatchReader.from_batches(batch.schema, [batch]).__arrow_c_stream__()


def _honour(result: Any, requested: object) -> Any:
    """The export as a StructArray of the requested fields' types: the same names in
    the same order, each field of its exported type or, for a dictionary or string
    field, plain string or large_string; a non-nullable field only where it holds no
    null."""
    pa = _pyarrow()
    wanted = pa.DataType._import_from_c_capsule(requested)
    array = pa.array(result)  # the export as written, no request
    have = array.type
    if not pa.types.is_struct(wanted):
        raise ValueError(f"{result.notation} results export a struct of fields, not {wanted}")
    names = [f.name for f in have]
    asked = [f.name for f in wanted]
    if asked != names:
        raise ValueError(
            f"{result.notation} results export the fields {names}, not {asked}: "
            "sashite_epin.schema() gives the schemas it can export"
        )
    fields = []
    for k, (field, want) in enumerate(zip(have, wanted, strict=True)):
        child = array.field(k)
        if want.type != field.type:
            strings = pa.types.is_string(want.type) or pa.types.is_large_string(want.type)
            textual = pa.types.is_dictionary(field.type) or pa.types.is_string(field.type)
            if not (textual and strings):
                raise ValueError(
                    f"{result.notation} results export {field.name} as {field.type}, "
                    f"not {want.type}: sashite_epin.schema() gives the schemas it can export"
                )
            if pa.types.is_dictionary(field.type):
                child = child.dictionary_decode()
            child = child.cast(want.type)
        # A field asked for as not nullable may be given only if it holds no null, as
        # pyarrow's own cast decides: a schema that says "not null" over nulls is a lie
        # its reader trusts (it may skip the validity bitmap).
        if not want.nullable and child.null_count:
            raise ValueError(
                f"{result.notation} results export {field.name} with {child.null_count} "
                "null(s) here, not as the non-nullable field asked for"
            )
        fields.append(child)
    # Entries are never null as a whole (an invalid one has null fields): no mask.
    return pa.StructArray.from_arrays(fields, fields=list(wanted))
