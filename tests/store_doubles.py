"""A pyoxigraph store with some methods replaced, for fault tests (its C type cannot be patched)."""
from __future__ import annotations


class Wrapped:
    """The store, but for the methods given by name."""

    def __init__(self, store, **methods):
        self._store, self._methods = store, methods

    def __getattr__(self, name):
        return self._methods.get(name) or getattr(self._store, name)

    def __iter__(self):
        return iter(self._store)
