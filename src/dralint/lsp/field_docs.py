"""A field's upstream documentation and allowed values, for hover.

Read from `schemas/docs.json`, which tools/extract_schemas.py writes from the Go
types' comments (tools/go_docs.py): release -> group/version -> Go type -> JSON
field, each text and table stored once.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

from ..records import NamedRecord, tuple_new
from ..schemas import schemas_dir

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any


class FieldDoc(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        text: str,  # the Go comment, markers dropped ("" if none)
        values: tuple[str, ...],  # the values of its string type's constants (ExactCount, All), if any
    ) -> "FieldDoc":
        return tuple_new(_cls, (text, values))


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    try:
        with open(os.path.join(schemas_dir(), "docs.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):  # hover goes without; linting does not need it
        return {}


def field_doc(release: str, api_version: str | None, go_type: str | None, field: str) -> FieldDoc | None:
    data = _data()
    table = data.get("releases", {}).get(release, {}).get(api_version or "")
    if table is None or go_type is None:
        return None
    fields = data["tables"][table].get(go_type)
    entry = data["types"][fields].get(field) if fields is not None else None
    if entry is None:
        return None
    return FieldDoc(data["texts"][entry[0]], tuple(entry[1]))
