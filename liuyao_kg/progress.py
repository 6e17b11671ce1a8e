"""A progress line on stderr, stdlib only.

On a terminal the line is redrawn in place (``\\r`` … ``ESC[K``) at most ``tty_interval`` seconds
apart; on anything else (a log file, a CI job, a pipe) a plain line is written at most every
``interval`` seconds, so logs are not flooded. ``quiet`` writes nothing. ``close()`` writes the final
state once. ``rate=False`` shows the time taken instead of a rate (steps of unequal cost: a new store).
The words are the caller's: the label, and ``names`` for the counts (``loaded`` → 已載入) and the units
(``per_second``, ``seconds``), so the line is in the command's language.
"""
from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, label: str, *, stream=None, quiet: bool = False, interval: float = 10.0,
                 tty_interval: float = 0.1, width: int = 24, rate: bool = True, names: dict[str, str] | None = None):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        try:
            self.tty = bool(self.stream.isatty())
        except (AttributeError, ValueError):
            self.tty = False
        self.interval = tty_interval if self.tty else interval
        self.width = width
        self.rate = rate  # False: the time taken instead of a rate (steps of unequal cost)
        self.names = names or {}  # a count's or unit's word in the command's language
        self.start = time.monotonic()
        self._last = float("-inf")
        self._state: tuple[int, int | None, dict] = (0, None, {})
        self._drawn = False

    def update(self, done: int, total: int | None = None, **counts) -> None:
        self._state = (done, total, counts)
        now = time.monotonic()
        if not self.quiet and now - self._last >= self.interval:
            self._last = now
            self._draw()

    def line(self) -> str:
        done, total, counts = self._state
        elapsed = max(time.monotonic() - self.start, 1e-9)
        parts = [self.label]
        if total:
            frac = min(done / total, 1.0)
            filled = int(frac * self.width)
            if self.tty:
                parts.append("[" + "#" * filled + "." * (self.width - filled) + "]")
            parts.append(f"{frac:.0%} {done:,}/{total:,}")
        else:
            parts.append(f"{done:,}")
        per_second, seconds = self.names.get("per_second", "/s"), self.names.get("seconds", " s")
        parts.append(f"{done / elapsed:,.1f}{per_second}" if self.rate else f"{elapsed:,.1f}{seconds}")
        if counts:
            parts.append(" · ".join(f"{self.names.get(k, k)} {v:,}" for k, v in counts.items()))
        return "  ".join(parts)

    def _draw(self) -> None:
        if self.tty:
            self.stream.write("\r" + self.line() + "\x1b[K")
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self.quiet:
            return
        self._draw()
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
