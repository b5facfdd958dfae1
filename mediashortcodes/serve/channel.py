"""What the open browser tabs are told: the site's version and the last build's problems.

Every successful build makes a new version (a tab showing an older one reloads); a failed
build keeps the version (the last good pages stay served) and sets the problems that the
tabs show as an overlay until a build succeeds. Shared by the build loop and the server's
connection threads.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LiveChannel", "LiveState"]


@dataclass(frozen=True)
class LiveState:
    version: int = 0  # 0: no build has succeeded yet
    message: str = ""  # the failed build's headline; empty when the last build succeeded
    problems: tuple[dict[str, Any], ...] = field(default=())  # path, line, col, message

    def as_json(self) -> dict[str, Any]:
        return {"version": self.version, "message": self.message, "problems": self.problems}


class LiveChannel:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._state = LiveState()
        self._closed = False

    @property
    def state(self) -> LiveState:
        with self._changed:
            return self._state

    def built(self) -> None:
        """A build succeeded: a new version, no problems."""
        with self._changed:
            self._state = LiveState(self._state.version + 1)
            self._changed.notify_all()

    def failed(self, message: str, problems: tuple[dict[str, Any], ...] = ()) -> None:
        """A build failed: the same version (its pages stay), these problems."""
        with self._changed:
            self._state = LiveState(self._state.version, message, problems)
            self._changed.notify_all()

    def wait(self, seen: LiveState | None, timeout: float) -> LiveState | None:
        """The state once it is not ``seen`` (at once if it already is not); ``None`` when
        the channel closed. After ``timeout`` seconds without a change, ``seen`` again."""
        with self._changed:
            self._changed.wait_for(lambda: self._closed or self._state is not seen, timeout)
            return None if self._closed else self._state

    def close(self) -> None:
        """Wake every waiting connection so that it ends (serve is stopping)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
