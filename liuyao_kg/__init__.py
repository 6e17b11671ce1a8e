"""liuyao-kg: knowledge graph and rule engine for six-line divination."""
