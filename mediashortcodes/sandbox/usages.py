"""Reading and checking usage report bodies (pure).

The spec does not show which usage fields are required; the sandbox insists on the two
without which a report means nothing, ``id`` (a list of file ids) and ``web.page``, and
checks the type of every other field that is present.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl

_TEXT_FIELDS = ("contact", "date", "amount", "description", "project")


def parse_usage(body: bytes, content_type: str) -> dict[str, Any]:
    """The usage object of a request body (JSON, or form-encoded); ValueError names the fault."""
    if "application/x-www-form-urlencoded" in content_type.lower():
        usage = _from_form(body)
    else:
        try:
            usage = json.loads(body.decode("utf-8") or "null")
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"the usage body is not JSON: {exc}") from None
    check_usage(usage)
    return usage


def check_usage(usage: Any) -> None:
    if not isinstance(usage, dict):
        raise ValueError("the usage body must be a JSON object with 'id' and 'web'")
    ids = usage.get("id")
    if not isinstance(ids, list) or not ids:
        raise ValueError("usage 'id' must be a non-empty list of file ids")
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise ValueError(f"usage 'id' must hold integers only, got {ids!r}")
    web = usage.get("web")
    if not isinstance(web, dict) or not isinstance(web.get("page"), str) or not web["page"]:
        raise ValueError("usage 'web' must be an object with a non-empty 'page' (the page URL)")
    if "pageName" in web and not isinstance(web["pageName"], str):
        raise ValueError("usage 'web.pageName' must be a string")
    for key in _TEXT_FIELDS:
        if key in usage and not isinstance(usage[key], str):
            raise ValueError(f"usage {key!r} must be a string, got {usage[key]!r}")
    types = usage.get("types", ["web"])
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        raise ValueError("usage 'types' must be a list of strings such as ['web']")
    removed = usage.get("removed", "false")
    if not (isinstance(removed, bool) or str(removed).lower() in ("true", "false")):
        raise ValueError(f"usage 'removed' must be true or false, got {removed!r}")


def is_removal(usage: Mapping[str, Any]) -> bool:
    removed = usage.get("removed", False)
    return removed is True or (isinstance(removed, str) and removed.strip().lower() == "true")


def current_pages(usages: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Which page uses which files now: every accepted report replayed in order."""
    pages: dict[str, set[int]] = {}
    for usage in usages:
        ids = pages.setdefault(usage["web"]["page"], set())
        if is_removal(usage):
            ids.difference_update(usage["id"])
        else:
            ids.update(usage["id"])
    return {page: sorted(ids) for page, ids in sorted(pages.items()) if ids}


def _from_form(body: bytes) -> dict[str, Any]:
    """``id=1&id=2`` (or ``id=1,2``), ``web[page]=...``, ``types[]=web``, text fields."""
    usage: dict[str, Any] = {}
    ids: list[Any] = []
    web: dict[str, str] = {}
    types: list[str] = []
    for key, value in parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True):
        if key in ("id", "id[]"):
            ids += [_form_int(part) for part in value.split(",") if part.strip()]
        elif key in ("web[page]", "web.page"):
            web["page"] = value
        elif key in ("web[pageName]", "web.pageName"):
            web["pageName"] = value
        elif key in ("types", "types[]"):
            types.append(value)
        else:
            usage[key] = value
    usage["id"] = ids
    usage["web"] = web
    if types:
        usage["types"] = types
    return usage


def _form_int(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        return text  # reported by check_usage with the whole list
