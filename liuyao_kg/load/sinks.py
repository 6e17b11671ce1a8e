"""What a load writes its partitions into: a store (`StoreSink`: any CastStore), Parquet files (`Parquet`), or both.

A sink says, when the load opens it, where each partition writes its files (`open`: derive_partition's options),
takes each derived partition in file order (`take`), and ends the load (`close`: kept whole, or a failed load's
part undone as far as the sink can).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from liuyao_kg.loaders.errors import BatchError

_PARQUET = ("states", "judgments", "casts")


class StoreSink:
    """A store takes each partition's asserted and inferred graphs as one N-Quads file, written in the temporary
    directory (TMPDIR, never the store's own) and removed once written: an embedded store bulk-loads it behind its
    journal, an endpoint takes one update a cast (`write_derived`: a cast is in completely or not at all). A load
    that fails leaves the partitions written before it, and running it again loads the rest."""

    def __init__(self, store):
        self.store, self._dir = store, None

    def has(self, cast_iri: str) -> bool:
        return self.store.has_cast(cast_iri)

    def open(self) -> dict:
        self._dir = tempfile.mkdtemp(prefix="liuyao-load-")
        return {"nquads": self._dir}

    def take(self, result: dict) -> None:
        if result["nquads"] is None:
            return
        try:
            self.store.write_derived(Path(result["nquads"]), casts=result["casts"])
        finally:
            os.unlink(result["nquads"])

    def close(self, whole: bool) -> None:
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


class Parquet:
    """A directory of Parquet files (liuyao_kg.load.partition lists them). Every partition writes into a hidden
    directory of it, whose files move in when the whole load is done, so the directory never shows a half-written
    file or part of a load that failed. A directory holding an earlier load's files is refused, not overwritten."""

    def __init__(self, directory):
        self.directory, self._staging = Path(directory), None

    def check(self) -> None:
        out = self.directory
        if out.exists() and any(any(out.glob(f"{n}*.parquet")) for n in _PARQUET):
            raise BatchError(f"{out} already holds states/judgments/casts Parquet files of an earlier load: choose an "
                             f"empty directory", [])

    def has(self, cast_iri: str) -> bool:
        return False

    def open(self) -> dict:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._staging = Path(tempfile.mkdtemp(prefix=".partial-", dir=self.directory))
        return {"parquet": str(self._staging.resolve())}

    def take(self, result: dict) -> None:
        pass  # the partition wrote its files where it was derived

    def close(self, whole: bool) -> None:
        staging, self._staging = self._staging, None
        if staging is None:
            return
        if not whole:  # after the workers have stopped writing into it
            shutil.rmtree(staging, ignore_errors=True)
            return
        files = sorted(staging.iterdir())
        taken = [f.name for f in files if (self.directory / f.name).exists()]
        if taken:  # another load into DIR finished meanwhile: its files are not replaced, this load's stay put
            raise BatchError(f"{self.directory} received another load's files while this one ran "
                             f"({', '.join(taken[:3])}{' …' if len(taken) > 3 else ''}): this load's files are in "
                             f"{staging}", [])
        for f in files:
            f.rename(self.directory / f.name)
        staging.rmdir()
