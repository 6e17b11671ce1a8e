"""A stored cast found by what a person has of it: a batch record's id, its hash (or the hash's first
characters), or its IRI — `liuyao show ID`.

A record id is kept as the cast's rdfs:label by `liuyao load`; it names the cast, but is not part of its identity,
so two batches may have used one id for two casts: then the id is ambiguous and the casts are listed. A record id
that is also the start of a hash names the record's cast.
"""
from __future__ import annotations

from liuyao_kg import queries
from liuyao_kg.loaders.errors import UnknownCastId
from liuyao_kg.namespaces import CAST


def find_cast(kg, key: str) -> str:
    """The IRI of the one stored cast `key` names; UnknownCastId (naming the candidates) for none or several."""
    key = key.strip()
    if not key:
        raise UnknownCastId("an empty id: give a record id, a cast's hash or its IRI", field="id", value=key)
    if key.startswith(("http://", "https://")):
        if kg.has_cast(key):
            return key
        raise UnknownCastId(f"no cast {key} in the store", field="id", value=key)
    rows = queries.run(kg, "casts-by-id", id=key)
    for by in ("record", "hash"):
        found = list(dict.fromkeys(r["cast"] for r in rows if r["by"] == by))
        if len(found) == 1:
            return found[0]
        if found:
            shown = ", ".join(f.removeprefix(CAST) for f in found[:10]) + (" …" if len(found) > 10 else "")
            raise UnknownCastId(f"id {key!r} names {len(found)} casts by their {by if by == 'hash' else 'record id'}"
                                f" ({shown}): give more of the hash, or the IRI", field="id", value=key)
    raise UnknownCastId(f"no cast in the store has the record id or a hash starting {key!r}", field="id", value=key)
