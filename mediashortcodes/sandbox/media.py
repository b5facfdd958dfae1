"""The media host: temporary download links, previews, the video player and its files.

It stands for the spec's download, player and static hosts at once. Links expire after
the link lifetime (410 Gone); a link whose signature does not match gets 403.
"""

from __future__ import annotations

from .formats import CUSTOM, ORIGINAL, CropRequest, format_by_id, plan_crop, plan_format
from .http import HTTPError, Request, Response, routes
from .imaging import CONTENT_TYPES, apply, preview, size_of
from .library import LibraryFile
from .links import InvalidLink
from .player import NOT_FOUND_PAGE, STATIC_FILES, player_page
from .state import SandboxState

PREVIEW_SIZES = {"small": 400, "thumb": 150}


def download(state: SandboxState, request: Request, token: str, name: str) -> Response:
    crop = None
    extra = ""
    if name == "custom":
        try:
            crop = CropRequest.from_query(request.query)
        except ValueError as exc:
            raise HTTPError(403, f"the download link was altered: {exc}", "invalid_link") from None
        extra = crop.canonical()
    try:
        claim = state.links.verify(token, extra)
    except InvalidLink as exc:
        raise HTTPError(403, str(exc), "invalid_link") from None
    if state.clock() > claim.expires:
        raise HTTPError(
            410,
            "the download link has expired; request new download information",
            "link_expired",
        )
    file = state.library.visible_file(claim.file_id)
    if file is None or file.is_video:
        raise HTTPError(404, f"file {claim.file_id} is no longer available")
    data = variant(state, file, claim.format_id, crop)
    content_type = CONTENT_TYPES.get(file.extension, "application/octet-stream")
    return Response(200, data, content_type, (("Cache-Control", "private, no-transform"),))


def variant(
    state: SandboxState, file: LibraryFile, format_id: int, crop: CropRequest | None
) -> bytes:
    original = state.library.original(file.id)
    size = size_of(original)  # the bytes, not the record: a test may have swapped them
    if format_id == ORIGINAL:
        return original
    if format_id == CUSTOM and crop is not None:
        try:
            operation = plan_crop(crop, size)
        except ValueError as exc:  # the file changed size since the link was made
            raise HTTPError(409, f"{exc}; request new download information") from None
        return apply(original, file.extension, operation)
    fmt = format_by_id(format_id)
    if fmt is None:
        raise HTTPError(404, f"format {format_id} no longer exists")
    operation = plan_format(fmt, size)
    return original if operation is None else apply(original, file.extension, operation)


def preview_image(state: SandboxState, request: Request, file_id: str, size: str) -> Response:
    file = state.library.visible_file(int(file_id))
    if file is None:
        raise HTTPError(404, f"no preview for file {file_id}")
    data = preview(state.library.poster(file.id), PREVIEW_SIZES[size])
    return Response(200, data, "image/jpeg", (("Cache-Control", "public, max-age=3600"),))


def player(state: SandboxState, request: Request, media_id: str) -> Response:
    file = state.library.by_media_id(media_id)
    if file is None or not state.library.is_visible(file.folder_id):
        return Response(404, NOT_FOUND_PAGE.encode(), "text/html; charset=utf-8")
    poster = f"{state.media_url}/pv/{file.id}/small.jpg"
    page = player_page(media_id, file.name, poster, request.query.get("lang", "en"))
    return Response(200, page.encode(), "text/html; charset=utf-8")


def static(state: SandboxState, request: Request) -> Response:
    found = STATIC_FILES.get(request.path)
    if found is None:
        raise HTTPError(404, f"no static file {request.path}")
    text, content_type = found
    return Response(200, text.encode(), content_type, (("Cache-Control", "public, max-age=600"),))


ROUTES = routes(
    ("GET", r"/dn/(?P<token>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_-]+)", "download", download),
    ("GET", r"/pv/(?P<file_id>\d+)/(?P<size>small|thumb)\.jpg", "preview", preview_image),
    ("GET", r"/ovp/11/(?P<media_id>[A-Za-z0-9_-]+)", "player", player),
    ("GET", r"/(?:js|css)/[A-Za-z0-9_.-]+", "static", static),
)
