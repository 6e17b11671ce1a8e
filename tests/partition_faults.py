"""A partition that fails, importable by a load's worker processes (tests/load/test_parquet_load.py patches it in)."""
from __future__ import annotations

from liuyao_kg.load.partition import derive_partition


def full_disk_at_the_third(records, part, **options):
    """The third partition finds the disk full; the others are derived as ever."""
    if part == 2:
        raise OSError(28, "No space left on device")
    return derive_partition(records, part, **options)
