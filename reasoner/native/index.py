"""The triples one derivation sees: the kept reference, shared, and one cast's own, added as they are derived.

Three hash indexes answer every triple pattern a compiled rule asks with a constant or bound predicate: `sp`
((subject, predicate) → objects), `po` ((predicate, object) → subjects) and `pp` (predicate → (subject, object)
pairs), with `spo` for a fully bound pattern. The reference's are built once, their lists as tuples; a cast's
index starts as a shallow copy of them (cheap) and a key it adds to turns into a list of its own, so no cast
sees another's triples and the reference is never copied triple by triple.
"""
from __future__ import annotations


class Index:
    """A triple index: the reference's (`frozen`) or a cast's, forked from it."""

    __slots__ = ("sp", "po", "pp", "spo", "added", "_po_keep", "_pp_keep")

    def __init__(self, sp=None, po=None, pp=None, spo=None, keep: dict | None = None):
        self.sp: dict = sp if sp is not None else {}
        self.po: dict = po if po is not None else {}
        self.pp: dict = pp if pp is not None else {}
        self.spo: set = spo if spo is not None else set()
        #: the triples added since the fork (the cast's own), in order
        self.added: list = []
        # the predicates whose triples `po` and `pp` are kept for (None: every one): only what the rules look up
        self._po_keep = (keep or {}).get("po")
        self._pp_keep = (keep or {}).get("pp")

    @classmethod
    def of(cls, triples) -> "Index":
        """A frozen index of triples (native terms): the reference every cast forks."""
        sp: dict = {}
        po: dict = {}
        pp: dict = {}
        spo: set = set()
        for t in triples:
            if t in spo:
                continue
            spo.add(t)
            s, p, o = t
            sp.setdefault((s, p), []).append(o)
            po.setdefault((p, o), []).append(s)
            pp.setdefault(p, []).append((s, o))
        freeze = lambda d: {k: tuple(v) for k, v in d.items()}  # noqa: E731
        return cls(freeze(sp), freeze(po), freeze(pp), spo)

    def fork(self, keep: dict | None = None) -> "Index":
        """A cast's index: this one's keys, its lists shared until the cast adds to them. `keep`: {"po": predicates,
        "pp": predicates} the cast's triples go to those indexes for (None: all), as no rule reads the others so."""
        return Index(self.sp.copy(), self.po.copy(), self.pp.copy(), self.spo.copy(), keep)

    def add(self, s, p, o) -> bool:
        """Add a triple; False when the index holds it already."""
        return bool(self.extend(((s, p, o),)))

    def extend(self, triples) -> list:
        """Add triples (s, p, o); return those the index did not hold, in order."""
        spo, sp, po, pp, added = self.spo, self.sp, self.po, self.pp, self.added
        po_keep, pp_keep = self._po_keep, self._pp_keep
        new = []
        for t in triples:
            if t in spo:
                continue
            spo.add(t)
            new.append(t)
            s, p, o = t
            # inlined: this runs for every triple a cast has (~700 of them); a list that is a tuple is the
            # reference's, copied once on the cast's first triple with that key, then the cast's own
            k = (s, p)
            have = sp.get(k)
            if have is None:
                sp[k] = [o]
            elif type(have) is tuple:
                sp[k] = [*have, o]
            else:
                have.append(o)
            if po_keep is None or p in po_keep:
                k = (p, o)
                have = po.get(k)
                if have is None:
                    po[k] = [s]
                elif type(have) is tuple:
                    po[k] = [*have, s]
                else:
                    have.append(s)
            if pp_keep is None or p in pp_keep:
                have = pp.get(p)
                if have is None:
                    pp[p] = [(s, o)]
                elif type(have) is tuple:
                    pp[p] = [*have, (s, o)]
                else:
                    have.append((s, o))
        added += new
        return new
