"""The corpus layer: works, their editions, passages anchored in each edition, variant readings and
parallel passages across works (docs/corpus.md). Modules: works (IRIs, known editions), variants
(the character fold), align (passage → edition), parallels (passage → other works), add (one
edition into its named graph)."""
