"""What a SPARQL request would fetch from elsewhere: `SERVICE <…>` in queries and updates, `LOAD <…>` in updates.

pyoxigraph executes both (an HTTP request from the server to any host the query names), so the endpoint
refuses them unless the target's host is one the operator allowed (`liuyao serve --allow-service HOST`).
The text is read with the lexer the remote client uses for its dataset clauses (comments, strings and
IRIs are single tokens), so a keyword inside a literal or a comment is not mistaken for one, and a
keyword that is a prefixed name's local part (`ex:SERVICE`) is not either.

:func:`writes_data_only` says, with the same lexer, whether an update only writes the quads it spells out
(INSERT DATA / DELETE DATA / CREATE): its cost is then linear in its text, which the endpoint bounds
(``--max-body-bytes``), so the endpoint applies it without the dry run that time-limits other updates.
"""
from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable

from liuyao_kg.sparql.text import LEX as _LEX

OUTBOUND = ("SERVICE", "LOAD")
_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


class OutboundRequestRefused(Exception):
    """The request would make the server fetch from a host that is not allowed."""


def outbound_targets(text: str) -> list[tuple[str, str | None]]:
    """[(keyword, target IRI or None when it is not a literal IRI)] for every SERVICE / LOAD in `text`."""
    tokens = [(m.lastgroup, m.group(), m.start()) for m in _LEX.finditer(text) if m.lastgroup != "comment"]
    out = []
    for i, (kind, value, start) in enumerate(tokens):
        if kind != "word" or value.upper() not in OUTBOUND:
            continue
        if start > 0 and text[start - 1] == ":":  # the local part of a prefixed name
            continue
        j = i + 1
        if j < len(tokens) and tokens[j][0] == "word" and tokens[j][1].upper() == "SILENT":
            j += 1
        target = tokens[j][1][1:-1] if j < len(tokens) and tokens[j][0] == "iri" else None
        out.append((value.upper(), target))
    return out


#: words that make an update evaluate something (a WHERE, a graph management operation, a fetch)
_EVALUATING = frozenset({"WHERE", "USING", "WITH", "LOAD", "CLEAR", "DROP", "ADD", "MOVE", "COPY", "SERVICE"})


def writes_data_only(text: str) -> bool:
    """True if every operation of the update `text` is INSERT DATA, DELETE DATA or CREATE (ground quads, no WHERE).

    Conservative: an unusual spelling (a keyword in a \\u escape, a prefix named like a keyword) only makes it
    False, which costs a dry run, never a missed limit."""
    if _ESCAPE.search(text):
        return False
    words = [(m.group().upper(), m.start()) for m in _LEX.finditer(text) if m.lastgroup == "word"]
    for i, (word, start) in enumerate(words):
        if start > 0 and text[start - 1] == ":":  # the local part of a prefixed name (or a blank node label)
            continue
        if word in _EVALUATING:
            return False
        if word in ("INSERT", "DELETE") and (i + 1 >= len(words) or words[i + 1][0] != "DATA"):
            return False
    return True


def _host(iri: str) -> tuple[str, str] | None:
    parts = urllib.parse.urlsplit(iri)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    return parts.hostname.lower(), f"{parts.hostname.lower()}:{port}"


def check(text: str, allowed_hosts: Iterable[str] = ()) -> None:
    """Raise OutboundRequestRefused if `text` would fetch from a host not in `allowed_hosts` (host or host:port)."""
    allowed = {h.strip().lower() for h in allowed_hosts if h.strip()}
    # SPARQL 1.1 §19.2: \uXXXX escapes may stand anywhere in a query: read the text with them decoded too
    decoded = _ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), text)
    targets = outbound_targets(text) + (outbound_targets(decoded) if decoded != text else [])
    for keyword, target in targets:
        if target is None:
            raise OutboundRequestRefused(f"{keyword} needs a literal <http://…> IRI here (a variable or prefixed name "
                                         f"cannot be checked against the allowed hosts)")
        host = _host(target)
        if host is None or not (host[0] in allowed or host[1] in allowed):
            shown = target if len(target) <= 120 else target[:120] + "…"
            raise OutboundRequestRefused(
                f"{keyword} <{shown}> refused: this endpoint makes no outbound requests"
                + (f" except to {', '.join(sorted(allowed))}" if allowed else "")
                + " (start it with --allow-service HOST to allow one)")


__all__ = ["OutboundRequestRefused", "outbound_targets", "check", "writes_data_only"]
