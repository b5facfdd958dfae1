"""The exception tree of mediashortcodes.

    MediaShortcodesError            base of everything this package raises
    ├── ConfigError                 bad config or environment (CLI exit 2)
    ├── ContentError                problems in content, listed as path:line:col (exit 1)
    ├── CacheMissError              --offline and the cache lacks something
    └── ServiceError                the Media Asset Service did not give what we need (exit 3)
        ├── ServiceUnreachableError connection refused, reset, timed out (after retries)
        ├── AuthenticationError     credentials or token refused (401/403)
        ├── NotFoundError           no such file/folder, or not visible to this integration
        ├── RateLimitedError        429 after all retries
        ├── ServerError             5xx after all retries
        └── InvalidResponseError    an answer we cannot read (bad JSON, wrong type, short body)

Messages say what to do and never contain a secret: URLs pass through
``mediashortcodes.client.redact`` before they reach a message.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace

# DEL, C1, line and paragraph separators, the bidirectional controls, and the bytes of a name
# that is not UTF-8 (as Python decodes them: U+DC80-U+DCFF); C0 (the newline too) besides.
STEERING = r"\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\udc80-\udcff"
_STEERING = re.compile(rf"[\x00-\x1f{STEERING}]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match[0])
    code -= 0xDC00 if code >= 0xDC80 else 0  # an undecodable byte, shown as that byte
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shown(text: str) -> str:
    """``text`` on one line, what would steer a terminal or a CI log (a newline, ESC, BEL,
    a right-to-left override) escaped as ``\\x1b``, ``\\u202e``."""
    return _STEERING.sub(_escaped, text)


class MediaShortcodesError(Exception):
    """Base class of every error raised by mediashortcodes."""

    #: Content problems found before this error stopped the work, and the run's warnings.
    content_problems: tuple[Problem, ...] = ()
    warnings: tuple[Problem, ...] = ()


class ConfigError(MediaShortcodesError):
    """The configuration or the environment is wrong; the message names the key or variable."""


@dataclass(frozen=True, order=True)
class Problem:
    """``path:line:col: message`` (or the message alone); ``code`` names its kind for tools
    (docs/ci.md) and is left out of comparisons, so a problem found twice is listed once."""

    path: str
    line: int
    col: int
    message: str
    code: str = field(default="", compare=False)

    def __str__(self) -> str:
        message = shown(self.message)
        return f"{place(self.path, self.line, self.col)}: {message}" if self.path else message

    def as_warning(self) -> str:
        """``path:line:col: warning: message``: a problem that does not stop the build."""
        return str(replace(self, message=f"warning: {self.message}"))


def counted(n: int, noun: str, plural: str = "") -> str:
    """``1 page``, ``2 pages``; ``plural`` where adding an s is wrong."""
    return f"{n} {noun}" if n == 1 else f"{n} {plural or noun + 's'}"


def display_path(path: str | os.PathLike[str]) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return str(path) if relative.startswith("..") else relative


def place(path: str, line: int, col: int) -> str:
    """``path:line:col`` as editors link it, an unknown (0) line or column left out."""
    path = shown(path)
    if not line:
        return path
    return f"{path}:{line}:{col}" if col else f"{path}:{line}"


class ContentError(MediaShortcodesError):
    """The content has problems; every one of them is listed."""

    def __init__(self, problems: list[Problem], summary: str = "") -> None:
        self.problems = sorted(set(problems))
        head = summary or f"{counted(len(self.problems), 'problem')} found; nothing was written"
        super().__init__("\n".join([head, *(str(p) for p in self.problems)]))


class CacheMissError(MediaShortcodesError):
    """Offline mode was asked for and the cache does not hold what is needed."""


class ServiceError(MediaShortcodesError):
    """The service could not give what was asked for."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ServiceUnreachableError(ServiceError):
    """The service could not be reached (connection refused, reset or timed out)."""


class AuthenticationError(ServiceError):
    """The service refused the credentials or the access token."""


class NotFoundError(ServiceError):
    """The file or folder does not exist or is not visible to this integration."""


class RateLimitedError(ServiceError):
    """The service kept answering 429 Too Many Requests."""


class ServerError(ServiceError):
    """The service kept failing with a 5xx status."""


class InvalidResponseError(ServiceError):
    """The service answered with something that cannot be read."""


# The service as a whole cannot be used: a build stops (exit 3), a live renderer waits.
OUTAGES = (ServiceUnreachableError, AuthenticationError, ServerError, RateLimitedError)


# The contract's exit codes (the CLI's and the Django commands').
EXIT_PROBLEMS = 1  # the content or a report has problems (each listed)
EXIT_CONFIG = 2  # usage or configuration error
EXIT_SERVICE = 3  # the service could not be reached or refused the credentials
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 143  # 128 + SIGTERM


def exit_code_for(exc: MediaShortcodesError) -> int:
    if isinstance(exc, ConfigError):
        return EXIT_CONFIG
    return EXIT_SERVICE if isinstance(exc, ServiceError) else EXIT_PROBLEMS


def message_for(exc: MediaShortcodesError) -> str:
    """The error's message, the content problems found before it, then the warnings."""
    message = str(exc)
    if exc.content_problems:
        listed = "\n".join(str(p) for p in exc.content_problems)
        count = counted(len(exc.content_problems), "problem")
        message += f"\n{count} found in the content before the build stopped:\n{listed}"
    for warning in exc.warnings:
        message += f"\n{warning.as_warning()}"
    return message
