"""The web reader: static files shipped in the package (no build step, no CDN), served by `liuyao serve`.

One page (index.html + app.js + style.css) answers every reader address — /cast?spec=…, /rules, /passage/ID,
/urn/URN (a browser's; other clients get the passage's JSON there: serve/endpoint.py), /query — and reads everything through the JSON API (/api/…) and the SPARQL endpoint (/sparql).
"""
from __future__ import annotations

from importlib import resources

from liuyao_kg.serve.api import Response

#: reader addresses: the page decides what to show from the path
PAGES = ("/", "/cast", "/rules", "/query")
_MEDIA = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
          ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}


def is_page(path: str) -> bool:
    return path in PAGES or path.startswith(("/passage/", "/urn/"))


def _file(name: str) -> bytes | None:
    entry = resources.files(__package__).joinpath("static", name)
    return entry.read_bytes() if entry.is_file() else None


def answer(path: str) -> Response | None:
    """The reader's page for a reader address, a static file under /web/, or None (not the reader's)."""
    if is_page(path):
        return Response(200, _file("index.html"), _MEDIA[".html"])
    if path.startswith("/web/"):
        name = path[len("/web/"):]
        suffix = name[name.rfind("."):] if "." in name else ""
        if "/" in name or ".." in name or suffix not in _MEDIA:
            return Response(404, b"no such file\n", "text/plain; charset=utf-8")
        data = _file(name)
        if data is None:
            return Response(404, f"no such file {name}\n".encode(), "text/plain; charset=utf-8")
        return Response(200, data, _MEDIA[suffix])
    return None
