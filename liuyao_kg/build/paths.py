"""Where the generators read and write: the package's source folders (an editable checkout's)."""
from __future__ import annotations

from pathlib import Path

from liuyao_kg import ontology, queries, reasoner

#: the ontology's folder (its Turtle, YAML and generated files)
ONTOLOGY = Path(ontology.__file__).resolve().parent
#: the named queries' folder
QUERIES = Path(queries.__file__).resolve().parent
#: the reasoner's folder (its shipped rule base, the compiled rules under native/)
REASONER = Path(reasoner.__file__).resolve().parent
#: the checkout's root (docs/, ../shared beside it)
ROOT = ONTOLOGY.parent
