"""``cache verify``: every entry of a cache folder checked, and what fails removed."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from . import cache_records as schema
from . import imageinfo
from .cache_records import Stored
from .store import BLOBS, RECORDS, SNAPSHOTS, LocalStore, blob_name, record_name

# What the cache held before it was data only (diskcache's files, pickled snapshots, blobs
# named with their extension): never read; ``cache verify`` names them.
_OLDER_FORMAT = re.compile(
    rf"{RECORDS}/cache\.db(?:-wal|-shm|-journal)?|{RECORDS}/[0-9a-f]{{2}}/[0-9a-f]{{2}}/\w+\.val"
    rf"|{SNAPSHOTS}/[^/]+\.pickle|{BLOBS}/[0-9a-f]{{2}}/[0-9a-f]{{64}}\.(?:jpg|png|gif|webp)"
)


@dataclass
class VerifyReport:
    """What ``cache verify`` found: entries kept, and each removed one with why."""

    records: int = 0
    blobs: int = 0
    snapshots: int = 0
    removed: list[tuple[str, str]] = field(default_factory=list)


def verify(store: LocalStore, *, remove: bool = True) -> VerifyReport:
    """Check every entry: a blob's bytes against its name (in full) and as a download is
    checked (``imageinfo``); a record against this version's fields and its name, and a variant's
    against its blob; a snapshot against its format. Anything else (a link, an odd file,
    an older cache's files) fails too. With ``remove``, what fails is deleted."""
    report = VerifyReport()
    variants: list[tuple[str, Stored]] = []
    for name in list(store.names()):
        why = _verdict(store, name, report, variants)
        if why:
            report.removed.append((name, why))
    failed = {name for name, _why in report.removed}
    for name, found in variants:  # a variant whose image failed or is gone is no answer
        if blob_name(found.sha256) in failed or not store.check_blob(found):
            report.removed.append((name, f"its image {found.sha256[:12]} is gone or damaged"))
            report.records -= 1
    if remove:
        for name, _why in report.removed:
            store.delete(name)
        store.remove_empty_dirs()
    return report


def _verdict(
    store: LocalStore, name: str, report: VerifyReport, variants: list[tuple[str, Stored]]
) -> str:
    """Why ``name`` fails, or "" when it is sound (and counted in ``report``)."""
    kind = store.kind(name)
    if kind != "file":
        return f"a {kind or 'vanished entry'}, not a plain file"
    folder, _, base = name.rpartition("/")
    if folder == f"{BLOBS}/{base[:2]}" and schema.is_sha256(base):
        data = store.get(name)
        if data is None or hashlib.sha256(data).hexdigest() != base:
            return "its bytes do not match its name (SHA-256)"
        try:
            imageinfo.probe(data)  # as a download is checked
        except imageinfo.ImageError as exc:
            return f"not a whole image: {exc}"
        report.blobs += 1
        return ""
    if folder.startswith(f"{RECORDS}/") and name.endswith(".json"):
        record = schema.loads(store.get(name))
        key = record.get("key") if type(record) is dict else None
        if type(key) is not str or record_name(key) != name:
            return "not a record of this version, or under another record's name"
        found = schema.decoded(record, key)
        if found is None:
            return "its fields do not fit this version's record"
        if isinstance(found[1], Stored):
            variants.append((name, found[1]))
        report.records += 1
        return ""
    if folder == SNAPSHOTS and name.endswith(".json"):
        snapshot = schema.loads(store.get(name))
        if type(snapshot) is not dict or snapshot.get("v") != schema.SNAPSHOT_VERSION:
            return "not a snapshot of this version"
        report.snapshots += 1
        return ""
    if _OLDER_FORMAT.fullmatch(name):
        return "a file of the older cache format (diskcache and pickles), never read"
    return "not part of the cache's layout (a temporary file, or an older cache's)"
