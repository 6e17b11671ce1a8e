"""One validated cast: six line values, the pillars (each optional), birth branch, asker's sex, question and date.

:func:`make_cast_input` is the single entry point; it either returns a complete :class:`CastInput`
or raises a :class:`~liuyao_kg.loaders.errors.CastInputError` (a cast is all-or-nothing).

Identity: the cast IRI is ``https://w3id.org/liuyao-kg/cast/<id>`` where ``<id>`` is the first 16
hex characters of the SHA-256 of a canonical JSON serialisation of the cast's *content* – the line
values, month branch, month stem-branch (if known), day stem-branch, year stem-branch, birth branch,
the asker's sex, whom it concerns, the school and the user's own use-god (each only when given, so casts
without them keep their ids) and topic. The input form (name or values, simplified or traditional) does not change it; the
user's record id (``id=``, kept as ``label``) does not enter it; the ``date`` instant does, normalised
to UTC (the same moment written in two zones is one cast; the same lines at another moment are another).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
from dataclasses import dataclass

from liuyao_kg.namespaces import CAST
from liuyao_kg.ontology import questions, tables

from .calendar import DAY_BOUNDARIES, pillars_for
from .errors import (AmbiguousDay, BadDate, BadSex, BadUseGod, InconsistentCast, UnknownSchool, UnknownSubject,
                     UnknownTopic)
from .lines import hexagram_name, parse_lines
from .pillars import month_stem_for_year, parse_birth, parse_day, parse_month, parse_year

__all__ = ["CastInput", "make_cast_input", "normalise_topic", "normalise_about", "normalise_sex", "normalise_school",
           "normalise_use_god", "content_id", "TOPIC_NAMES", "SUBJECT_NAMES"]

# The asker's sex (男占 / 女占): stored as 男 or 女.
_SEX_LOOKUP = {"男": "男", "女": "女", "m": "男", "male": "男", "man": "男", "f": "女", "female": "女",
               "woman": "女", "남": "男", "여": "女"}

#: the questions of the scheme (tables.QUESTIONS), in scheme order
TOPIC_NAMES = questions.NAMES
SUBJECT_NAMES = questions.SUBJECT_NAMES
_SUBJECT_LOOKUP: dict[str, str] = {}
for _zh, _id, _en, _ko in tables.SUBJECTS:
    for _key in (_zh, _id.lower(), _en.lower(), _en.lower().split()[-1], _ko):
        _SUBJECT_LOOKUP[_key] = _zh
_SUBJECT_LOOKUP.update({alias: zh for zh, aliases in tables.SUBJECT_ALIASES.items() for alias in aliases})
_RELATIVE_LOOKUP: dict[str, str] = {}
for _zh, _rid, _ko in tables.RELATIVES.values():
    for _key in (_zh, _rid.lower(), _ko, _zh[-1]):
        _RELATIVE_LOOKUP[_key] = _zh
_RELATIVE_LOOKUP.update({"妻财": "妻財", "子孙": "子孫", "兄弟": "兄弟", "鬼": "官鬼", "官": "官鬼", "父": "父母",
                         "兄": "兄弟", "子": "子孫", "財": "妻財", "财": "妻財", "ghost": "官鬼", "officer": "官鬼"})
_POSITION_LOOKUP = {**{str(i): i for i in range(1, 7)},
                    **{n: i for i, n in enumerate(("初爻", "二爻", "三爻", "四爻", "五爻", "上爻"), 1)}}


@dataclass(frozen=True)
class CastInput:
    """A validated cast. ``values`` bottom-up; ``primary``/``changed`` are King Wen numbers."""

    values: tuple[int, ...]
    primary: int
    changed: int | None
    #: None when the cast gives no month / no day: the chart is then the time-independent part only
    month_branch: str | None
    day_gz: str | None
    month_gz: str | None = None
    year_gz: str | None = None
    birth_branch: str | None = None
    sex: str | None = None
    topic: str | None = None
    #: whom the question concerns (來者何人), as a tables.SUBJECTS name
    about: str | None = None
    #: the school (tables.USE_GOD_SCHOOLS id) the use-god is read by, where the works disagree
    school: str | None = None
    #: the school of the reading (tables.READING_SCHOOLS id), where the works read a cast differently
    reading_school: str | None = None
    #: the user's own use-god: a relative (妻財) or a line position (1–6)
    use_god: str | int | None = None
    cast_at: str | None = None
    #: the hour pillar (時辰), known only from a date; derived from the instant, so not part of the content id
    hour_gz: str | None = None
    day_boundary: str = "00:00"
    label: str | None = None

    @property
    def id(self) -> str:
        """Content id: 16 hex characters (see module docstring)."""
        return content_id(self)

    @property
    def iri(self) -> str:
        return CAST + self.id

    @property
    def primary_name(self) -> str:
        return hexagram_name(self.primary)

    @property
    def changed_name(self) -> str | None:
        return None if self.changed is None else hexagram_name(self.changed)

    @property
    def moving(self) -> tuple[int, ...]:
        return tuple(i + 1 for i, v in enumerate(self.values) if v in (6, 9))

    def content(self) -> dict:
        """The fields that define the cast (and its id)."""
        return {
            "values": "".join(map(str, self.values)),
            "month_branch": self.month_branch,
            "month_gz": self.month_gz,
            "day_gz": self.day_gz,
            "year_gz": self.year_gz,
            "birth_branch": self.birth_branch,
            "topic": self.topic,
            # only when given, so the ids of casts without them are those of earlier versions
            **({"about": self.about} if self.about is not None else {}),
            **({"sex": self.sex} if self.sex is not None else {}),
            **({"school": self.school} if self.school is not None else {}),
            **({"reading_school": self.reading_school} if self.reading_school is not None else {}),
            **({"use_god": self.use_god} if self.use_god is not None else {}),
            # The moment of casting is content: the same lines cast at another time are another cast.
            "instant": _utc(self.cast_at),
        }


def _utc(cast_at: str | None) -> str | None:
    if cast_at is None:
        return None
    return _dt.datetime.fromisoformat(cast_at).astimezone(_dt.timezone.utc).isoformat()


def content_id(ci: CastInput) -> str:
    payload = json.dumps({"liuyao-kg-cast": 1, **ci.content()}, ensure_ascii=False, sort_keys=True,
                         separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def normalise_topic(value) -> str:
    """A question of the scheme by its name, id, English or Korean label or a synonym (晴雨, 求名, 科舉 …) → zh."""
    found = questions.find(value) if isinstance(value, str) and value.strip() else None
    if found is None:
        near = questions.nearest(value) if isinstance(value, str) else []
        hint = f"; the nearest: {' '.join(near)}" if near else ""
        raise UnknownTopic(f"unknown question {value!r}{hint}; the questions are: {_scheme_list()} "
                           "(`liuyao topics` shows them with their synonyms)", field="topic", value=value)
    return found


def _scheme_list() -> str:
    return " ".join(("" if depth == 0 else "⊃" * depth) + zh for depth, zh in questions.tree_lines())


def normalise_about(value, topic: str | None) -> str:
    """Whom the question concerns (妻, wife, 아내, 嫂 …) → the zh name. It chooses the use-god of any question
    (卜筮正宗 用神分類定例第一); without a question the cast asks 人事, a matter concerning that person."""
    text = value.strip() if isinstance(value, str) else ""
    found = _SUBJECT_LOOKUP.get(text) or _SUBJECT_LOOKUP.get(text.lower())
    if found is None:
        raise UnknownSubject(f"unknown subject {value!r} (whom the question concerns); known: "
                             f"{' '.join(SUBJECT_NAMES)}", field="about", value=value)
    return found


def _school_named(text: str, schools, work_names: bool = False) -> str | None:
    """The school `text` names (its id with or without 'School', its zh; a school of the reading also by its work's
    name, 卜筮正宗 for 卜筮正宗斷法)."""
    return next((sid for sid, zh, en, *_ in schools
                 if text in (sid, sid[len("School"):], zh) or (work_names and text == zh[:-2]) or text.lower() in (sid.lower(), sid[len("School"):].lower())),
                None)


def normalise_school(value, topic: str | None) -> tuple[str | None, str | None]:
    """--school: one name or several (a list, or separated by commas or spaces), each a school of the reading
    (卜筮正宗, 易冒: tables.READING_SCHOOLS, for any cast) or a school of the question's use-god where the works
    disagree (tables.USE_GOD_SCHOOLS; id with or without 'School', or zh) → (use-god school id, reading school id)."""
    names = ([str(v).strip() for v in value] if isinstance(value, (list, tuple))
             else re.split(r"[\s,，、]+", value.strip()) if isinstance(value, str) else [])
    names = [n for n in names if n]
    if not names:
        raise UnknownSchool(f"school {value!r}: name a school (`liuyao topics` lists them)", field="school", value=value)
    use_god_school = reading_school = None
    for text in names:
        reading = _school_named(text, tables.READING_SCHOOLS, work_names=True)
        if reading is not None:
            if reading_school not in (None, reading):
                raise UnknownSchool(f"school {value!r}: two schools of the reading; name one", field="school", value=value)
            reading_school = reading
            continue
        found = _school_named(text, tables.USE_GOD_SCHOOLS)
        offered = questions.schools_for(topic) if topic else []
        names_offered = ", ".join(f"{s[len('School'):]} ({questions.SCHOOL_IDS[s][1]})" for s in offered)
        readings = ", ".join(f"{sid[len('School'):]} ({zh})" for sid, zh, *_ in tables.READING_SCHOOLS)
        if found is None or found not in offered:
            where = (f"the schools for {topic} are {names_offered}" if offered else
                     f"the texts agree on the use-god of {topic}: no school to pick" if topic
                     else "a school of the use-god needs a question (--topic)")
            raise UnknownSchool(f"school {text!r} does not choose a use-god here: {where}; the schools of the reading "
                                f"are {readings}", field="school", value=value)
        if use_god_school not in (None, found):
            raise UnknownSchool(f"school {value!r}: two schools of the use-god; name one", field="school", value=value)
        use_god_school = found
    return use_god_school, reading_school


def normalise_use_god(value) -> str | int:
    """The user's own use-god: a relative (妻財, 財, Wealth, 처재) or a line position (1–6, 初爻 … 上爻)."""
    text = str(value).strip() if value is not None else ""
    if text in _POSITION_LOOKUP:
        return _POSITION_LOOKUP[text]
    found = _RELATIVE_LOOKUP.get(text) or _RELATIVE_LOOKUP.get(text.lower())
    if found is None:
        raise BadUseGod(f"use-god {value!r}: name a relative (父母 兄弟 妻財 官鬼 子孫) or a line position 1–6",
                        field="use_god", value=value)
    return found


def normalise_sex(value) -> str:
    """The asker's sex: 男 / 女 (also m, male, f, female, 남, 여) → 男 or 女."""
    found = _SEX_LOOKUP.get(str(value).strip().lower()) if isinstance(value, str) else None
    if found is None:
        raise BadSex(f"sex {value!r}: must be 男 or 女 (m / f, male / female)", field="sex", value=value)
    return found


def _blank(v) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def make_cast_input(spec=None, *, lines=None, month=None, day=None, year=None, birth=None, date=None,
                    topic=None, about=None, sex=None, school=None, use_god=None, day_boundary: str = "00:00",
                    id: str | None = None) -> CastInput:
    """Validate one cast and return it; raise a CastInputError naming the field and value otherwise.

    ``spec``: values (787986), 單拆重交 notation, a name (節, 水澤節, 节) or a pair (節之中孚);
    ``lines``: optional values that must agree with ``spec``.
    ``date`` (ISO 8601 with offset, or a date alone: the day's pillars) or ``month`` / ``day`` give the time;
    without them the cast is time-independent (the worked cases of the classics that give no date): no state that needs the month or
    the day is derived. When a date and a month or day are both given
    they must agree (month as a branch is compared with the date's month branch, as a stem-branch
    with its stem-branch; likewise ``year``). A month stem-branch together with a year must follow
    五虎遁 (甲己之年丙作首).
    """
    if day_boundary not in DAY_BOUNDARIES:
        raise BadDate(f"day_boundary {day_boundary!r}: must be \"00:00\" (midnight) or \"23:00\" (子 hour)",
                      field="day_boundary", value=day_boundary)
    ls = parse_lines(spec, lines=lines)

    month_branch = month_gz = day_gz = year_gz = None
    if not _blank(month):
        month_branch, month_gz = parse_month(month)
    if not _blank(day):
        day_gz = parse_day(day)
    if not _blank(year):
        year_gz = parse_year(year)
    birth_branch = None if _blank(birth) else parse_birth(birth)
    topic_zh = None if _blank(topic) else normalise_topic(topic)
    about_zh = None if _blank(about) else normalise_about(about, topic_zh)
    if about_zh is not None and topic_zh is None:  # whom it concerns, no question: a matter concerning a person
        topic_zh = "人事"
    sex_zh = None if _blank(sex) else normalise_sex(sex)
    school_id, reading_school = (None, None) if _blank(school) else normalise_school(school, topic_zh)
    use_god_v = None if _blank(use_god) else normalise_use_god(use_god)

    cast_at = hour_gz = None
    if not _blank(date):
        try:
            cal = pillars_for(date, day_boundary=day_boundary)
        except AmbiguousDay as e:  # a date alone on the day a 節 turns the month: a month given chooses the side
            cal = next((side for side in e.sides if side.month_branch == month_branch
                        and month_gz in (None, side.month_gz)), None)
            if cal is None:
                raise
        cast_at, hour_gz = cal.cast_at, cal.hour_gz or None
        if month_branch is not None:
            if month_branch != cal.month_branch or (month_gz is not None and month_gz != cal.month_gz):
                raise InconsistentCast(
                    f"month {month!r} disagrees with date {date!s}, which falls in the {cal.month_gz} month",
                    field="month", value=month)
        if day_gz is not None and day_gz != cal.day_gz:
            raise InconsistentCast(
                f"day {day!r} disagrees with date {date!s}, which is a {cal.day_gz} day "
                f"(day boundary {day_boundary})", field="day", value=day)
        if year_gz is not None and year_gz != cal.year_gz:
            raise InconsistentCast(
                f"year {year!r} disagrees with date {date!s}, which falls in the {cal.year_gz} year (by 立春)",
                field="year", value=year)
        month_branch, month_gz, day_gz, year_gz = cal.month_branch, cal.month_gz, cal.day_gz, cal.year_gz
    else:
        if month_gz is not None and year_gz is not None:  # a month without a date: check it against the year
            expected = month_stem_for_year(year_gz[0], month_branch) + month_branch
            if expected != month_gz:
                raise InconsistentCast(
                    f"month {month_gz} cannot fall in a {year_gz} year: that year's {month_branch} month "
                    f"is {expected} (五虎遁, year by 立春)", field="month", value=month)

    label = None if id is None else str(id).strip() or None
    return CastInput(values=ls.values, primary=ls.primary, changed=ls.changed, month_branch=month_branch,
                     day_gz=day_gz, month_gz=month_gz, year_gz=year_gz, birth_branch=birth_branch,
                     sex=sex_zh, topic=topic_zh, about=about_zh, school=school_id, reading_school=reading_school,
                     use_god=use_god_v,
                     cast_at=cast_at, hour_gz=hour_gz, day_boundary=day_boundary,
                     label=label)
