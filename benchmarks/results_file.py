"""A benchmark's results as JSON: stamped with when they were measured, printed, and written where `--out` says."""
from __future__ import annotations

import json
import time
from pathlib import Path


def emit(results: dict, out: Path | None) -> None:
    text = json.dumps({"measured": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **results}, ensure_ascii=False, indent=1)
    if out:
        out.write_text(text + "\n", encoding="utf-8")
    print(text)
