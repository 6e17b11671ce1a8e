"""Loaders: user input (a cast spec, pillars, a date, batches) → validated casts → asserted RDF quads.

The names below are imported from their modules when first used (PEP 562): a single cast needs neither the batch
reader (PyYAML, csv) nor, without a date, the calendar, and importing them slowed every `liuyao cast` (benchmarks/cold_start.py).
"""
from __future__ import annotations

import importlib

_FROM = {
    "batch": ["good_casts", "parse_batch", "read_batch", "rejected"],
    "calendar": ["CalendarPillars", "LocalDay", "parse_datetime", "parse_iso", "pillars_for"],
    "cast_input": ["CastInput", "make_cast_input", "normalise_sex", "normalise_topic"],
    "errors": ["AmbiguousDay", "BadDate", "BadLineValue", "BadSex", "BatchError", "CastInputError", "DuplicateRecordId",
               "ImpossibleStemBranch", "InconsistentCast", "MissingField", "UnknownBranch", "UnknownHexagram",
               "UnknownStem", "UnknownSubject", "UnknownTopic", "UnknownSchool", "BadUseGod", "UnknownCastId"],
    "moment": ["now", "parse_zone", "when"],
    "lines": ["LineSpec", "hexagram_name", "hexagram_number", "parse_lines", "parse_values"],
    "pillars": ["parse_birth", "parse_branch", "parse_day", "parse_month", "parse_stem_branch", "parse_year"],
    "rdf": ["cast_quads"],
}
_MODULE_OF = {name: module for module, names in _FROM.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
