"""Loaders: user input (a cast spec, pillars, a date, batches) → validated casts → asserted RDF quads."""
from .batch import good_casts, parse_batch, read_batch, rejected
from .calendar import CalendarPillars, parse_datetime, pillars_for
from .cast_input import CastInput, make_cast_input, normalise_sex, normalise_topic
from .errors import (BadDate, BadLineValue, BadSex, BatchError, CastInputError, DuplicateRecordId,
                     ImpossibleStemBranch, InconsistentCast, MissingField, UnknownBranch, UnknownHexagram,
                     UnknownStem, UnknownSubject, UnknownTopic, UnknownSchool, BadUseGod)
from .lines import LineSpec, hexagram_name, hexagram_number, parse_lines, parse_values
from .pillars import parse_birth, parse_branch, parse_day, parse_month, parse_stem_branch, parse_year
from .rdf import cast_quads

__all__ = [
    "CastInput", "make_cast_input", "normalise_topic", "normalise_sex", "cast_quads",
    "read_batch", "parse_batch", "good_casts", "rejected",
    "CalendarPillars", "parse_datetime", "pillars_for",
    "LineSpec", "parse_lines", "parse_values", "hexagram_number", "hexagram_name",
    "parse_stem_branch", "parse_branch", "parse_month", "parse_day", "parse_year", "parse_birth",
    "CastInputError", "UnknownHexagram", "BadLineValue", "ImpossibleStemBranch", "InconsistentCast",
    "BadDate", "UnknownTopic", "UnknownSubject", "UnknownBranch", "UnknownStem", "MissingField", "DuplicateRecordId",
    "BatchError", "BadSex", "UnknownSchool", "BadUseGod",
]
