"""The Wagtail admin chooser: a modal-workflow view over the shared browsing core.

``mediashortcodes_chooser:choose`` lists (query ``folder``, ``q``, ``kind``, ``p``, and
``accept``: the one kind the opener takes, set by an image or video field) and answers the
``choose`` step; ``mediashortcodes_chooser:chosen`` (the file id in the path) answers the
``chosen`` step with what the widget and the rich-text entity show; ``preview`` passes the
preview image through. Every service call runs on the server (``chooser_service.py``); the
browser gets names, ids and these URLs, never a service address or a token.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.urls import path, reverse
from django.views.decorators.http import require_GET
from wagtail.admin.auth import require_admin_access

from ..errors import OUTAGES, MediaShortcodesError, NotFoundError
from ..picker.browse import BrowseError, checked_kind, file_kind, paged
from .chooser_service import chooser_browser

app_name = "mediashortcodes_chooser"
PER_PAGE = 24
TEMPLATE = "mediashortcodes/chooser/choose.html"


def _int(value: str, name: str) -> int | None:
    if value in ("", None):
        return None
    if not value.isdigit():
        raise BrowseError(f"{name} must be a number, got {value!r}")
    return int(value)


def choose_url(**params: Any) -> str:
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return reverse("mediashortcodes_chooser:choose") + (f"?{query}" if query else "")


def _outage_message(exc: Exception) -> str:
    return (
        "The media service cannot be reached just now, so its files cannot be listed "
        f"({exc}). Try again in a moment; pages already saved keep their files."
    )


def _listing(browser: Any, state: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    kind = state["kind"]
    if state["q"]:
        return f"Search results for “{state['q']}”", browser.search(state["q"], kind)
    if state["folder"] is not None:
        names = {f["id"]: f["name"] for f in _flat(state["folders"])}
        title = names.get(state["folder"], f"Folder {state['folder']}")
        return title, browser.files(state["folder"], kind)
    return "", []


def _flat(folders: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x for f in folders for x in [f, *_flat(f["children"])]]


def _query_state(request: HttpRequest) -> dict[str, Any]:
    accept = checked_kind(request.GET.get("accept"))
    return {
        "q": request.GET.get("q", "").strip(),
        "folder": _int(request.GET.get("folder", ""), "folder"),
        "kind": accept or checked_kind(request.GET.get("kind")),
        "accept": accept,
        "page": _int(request.GET.get("p", ""), "p") or 1,
        "folders": [],
    }


@require_admin_access
@require_GET
def choose(request: HttpRequest) -> HttpResponse:
    browser = chooser_browser()
    context: dict[str, Any] = {"error": "", "items": [], "title": ""}
    try:
        state = _query_state(request)
    except BrowseError as exc:
        state = {"q": "", "folder": None, "kind": None, "accept": None, "page": 1, "folders": []}
        context["error"] = str(exc)
    try:
        state["folders"] = browser.folders()
        if not context["error"]:
            context["title"], found = _listing(browser, state)
            page = paged(found, state["page"], PER_PAGE)
            context.update(_page_context(page, state))
    except OUTAGES as exc:
        context["error"] = _outage_message(exc)
    except MediaShortcodesError as exc:
        context["error"] = f"The media service refused the request: {exc}"
    context.update(state)
    context["choose_url"] = reverse("mediashortcodes_chooser:choose")
    context["folder_links"] = _folder_links(state["folders"], state)
    return _modal(request, context)


def _page_context(page: Any, state: dict[str, Any]) -> dict[str, Any]:
    keep = {k: state[k] for k in ("q", "folder", "kind", "accept")}
    suffix = f"?{urlencode({'accept': state['accept']})}" if state["accept"] else ""
    for item in page.items:
        item["chosen_url"] = reverse("mediashortcodes_chooser:chosen", args=[item["id"]]) + suffix
        item["preview_url"] = _preview_url(item["id"]) if item["has_preview"] else ""
    return {
        "items": page.items,
        "listing": page,
        "previous_url": choose_url(**keep, p=page.number - 1) if page.has_previous else "",
        "next_url": choose_url(**keep, p=page.number + 1) if page.has_next else "",
        "kind_links": [
            (label, choose_url(q=state["q"], folder=state["folder"], kind=value), value)
            for label, value in (("All", None), ("Images", "image"), ("Videos", "video"))
        ]
        if not state["accept"]
        else [],
    }


def _folder_links(folders: list[dict[str, Any]], state: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "id": f["id"],
            "name": f["name"],
            "url": choose_url(folder=f["id"], kind=state["kind"], accept=state["accept"]),
            "current": f["id"] == state["folder"] and not state["q"],
            "children": _folder_links(f["children"], state),
        }
        for f in folders
        if not f["archived"]
    ]


def _preview_url(file_id: int) -> str:
    return reverse("mediashortcodes_chooser:preview", args=[file_id, "thumb"])


def _modal(request: HttpRequest, context: dict[str, Any], step: str = "choose") -> JsonResponse:
    html = render_to_string(TEMPLATE, context, request=request)
    return JsonResponse({"html": html, "step": step})


@require_admin_access
@require_GET
def chosen(request: HttpRequest, file_id: int) -> HttpResponse:
    browser = chooser_browser()
    error = ""
    try:
        accept = checked_kind(request.GET.get("accept"))
        file = browser.known_file(file_id)
        kind = file_kind(file)
        if accept is not None and kind != accept:
            error = (
                f"File {file_id} ({file.name or file.filename}) is a {kind}; this field takes "
                f"an {accept}"
                + (". Choose an image." if accept == "image" else ". Choose a video.")
            )
    except (BrowseError, NotFoundError) as exc:
        error = str(exc)
    except OUTAGES as exc:
        error = _outage_message(exc)
    if error:
        return _modal(
            request,
            {"error": error, "choose_url": reverse("mediashortcodes_chooser:choose")},
        )
    return JsonResponse({"step": "chosen", "result": chosen_data(file)})


def chosen_data(file: Any) -> dict[str, Any]:
    """What the widget and the rich-text entity show of a chosen file."""
    has_preview = bool(file.thumb_preview or file.small_preview)
    return {
        "id": file.id,
        "title": file.name or file.filename,
        "kind": file_kind(file),
        "alt": file.alttext,
        "preview": _preview_url(file.id) if has_preview else "",
        "edit_url": "",
    }


@require_admin_access
@require_GET
def preview(request: HttpRequest, file_id: int, size: str) -> HttpResponse:
    try:
        data, mime = chooser_browser().preview(file_id, size)
    except NotFoundError as exc:
        return HttpResponse(str(exc), status=404, content_type="text/plain; charset=utf-8")
    except OUTAGES as exc:
        return HttpResponse(
            _outage_message(exc), status=503, content_type="text/plain; charset=utf-8"
        )
    response = HttpResponse(data, content_type=mime)
    response["Cache-Control"] = "private, max-age=600"
    response["X-Content-Type-Options"] = "nosniff"
    return response


urlpatterns = [
    path("", choose, name="choose"),
    path("<int:file_id>/", chosen, name="chosen"),
    path("<int:file_id>/preview/<str:size>/", preview, name="preview"),
]
