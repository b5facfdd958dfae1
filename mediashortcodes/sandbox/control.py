"""``/_sandbox/...``: inspect and steer a sandbox running in another process.

These paths are not part of the service; they skip latency, faults and statistics.
"""

from __future__ import annotations

import json
from typing import Any

from .faults import FailureRule
from .http import HTTPError, Request, Response, json_response, match, routes
from .state import KNOB_MINIMUMS, SandboxState, check_knob

KNOBS = tuple(KNOB_MINIMUMS)
ACTIONS = ("fail", "clear_failures", "revoke_tokens", "reset_stats", "clear_usages")


def get_usages(state: SandboxState, request: Request) -> Response:
    return json_response(state.usages())


def get_pages(state: SandboxState, request: Request) -> Response:
    return json_response(state.pages())


def get_stats(state: SandboxState, request: Request) -> Response:
    return json_response(state.stats())


def get_control(state: SandboxState, request: Request) -> Response:
    return json_response(state.settings())


def post_control(state: SandboxState, request: Request) -> Response:
    try:
        changes = json.loads(request.body.decode("utf-8") or "{}")
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HTTPError(400, f"the control body is not JSON: {exc}") from None
    try:
        apply(state, changes)
    except (TypeError, ValueError) as exc:
        raise HTTPError(400, str(exc), "invalid_control") from None
    return json_response(state.settings())


def apply(state: SandboxState, changes: Any) -> None:
    """Apply knobs and actions; the whole body is checked before anything changes."""
    if not isinstance(changes, dict):
        raise ValueError("the control body must be a JSON object")
    unknown = sorted(set(changes) - set(KNOBS) - set(ACTIONS))
    if unknown:
        raise ValueError(
            f"unknown control keys {', '.join(unknown)}; known: {', '.join(KNOBS + ACTIONS)}"
        )
    rules = changes.get("fail", [])
    rules = [rules] if isinstance(rules, dict) else rules
    if not isinstance(rules, list) or not all(isinstance(r, dict) for r in rules):
        raise ValueError("'fail' must be an object (or a list of them) like {\"status\": 503}")
    parsed = [FailureRule(**rule) for rule in rules]
    for knob in KNOBS:
        if knob in changes:
            check_knob(knob, changes[knob])
    for knob in KNOBS:
        if knob in changes:
            setattr(state, knob, changes[knob])
    if changes.get("clear_failures"):
        state.faults.clear()
    for rule in parsed:
        state.faults.add(rule)
    if changes.get("revoke_tokens"):
        state.tokens.revoke_all()
    if changes.get("reset_stats"):
        state.reset_stats()
    if changes.get("clear_usages"):
        state.clear_usages()


ROUTES = routes(
    ("GET", r"/_sandbox/usages", "control", get_usages),
    ("GET", r"/_sandbox/pages", "control", get_pages),
    ("GET", r"/_sandbox/stats", "control", get_stats),
    ("GET", r"/_sandbox/control", "control", get_control),
    ("POST", r"/_sandbox/control", "control", post_control),
)


def handle(state: SandboxState, request: Request) -> Response:
    try:
        found, params = match(ROUTES, request)
        return found.handler(state, request, **params)
    except HTTPError as exc:
        return exc.response()
