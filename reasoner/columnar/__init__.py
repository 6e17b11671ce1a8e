"""The columnar back end: the rule base run as SQL on DuckDB (docs/columnar.md).

`translate` turns each rule's SPARQL CONSTRUCT (read from the graph, never a second copy) into SQL over
vertically partitioned tables, one per predicate and one per rdf:type class; a rule it cannot translate
exactly runs on pyoxigraph instead (`ColumnarEngine.paths` counts both). `engine.ColumnarEngine` derives
a batch of casts to a fixpoint, stratum by stratum, and returns the same quads as `reasoner.engine.Engine`.
"""
