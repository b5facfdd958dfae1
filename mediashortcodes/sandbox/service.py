"""The API host: the seven endpoints of service-spec.md under ``/1/``.

Choices where the spec says "not shown" (documented in docs/sandbox.md): error bodies are
``{"error", "message", "status"}``; a folder the integration may not see answers 404 like
one that does not exist; ``id`` is always part of a file record; unknown field names are
ignored; usage reports need ``id`` and ``web.page`` and answer ``{"status": "ok"}``.
"""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import parse_qsl, urlencode

from .auth import credentials_match
from .formats import CUSTOM, FORMATS, ORIGINAL, CropRequest, format_by_id, plan_crop
from .http import HTTPError, Request, Response, json_response, routes
from .library import FILE_TYPES, Library, LibraryFile, LibraryFolder
from .links import LinkClaim
from .state import SandboxState
from .usages import parse_usage

# Lower-case names of the ``fields`` parameter -> the camelCase keys of the answer.
FIELD_KEYS = {
    "id": "id",
    "name": "name",
    "filename": "filename",
    "filesize": "filesize",
    "type": "type",
    "smallpreview": "smallPreview",
    "thumbpreview": "thumbPreview",
    "mark": "mark",
    "uploaded": "uploaded",
    "uploadedby": "uploadedBy",
    "gdprstatus": "gdprStatus",
    "gdprtype": "gdprType",
    "mediaid": "mediaId",
    "alttext": "alttext",
}


def token(state: SandboxState, request: Request) -> Response:
    params = dict(request.query)
    if request.method == "POST":
        params.update(parse_qsl(request.body.decode("utf-8", "replace")))
    needed = ("grant_type", "client_id", "client_secret", "refresh_token")
    missing = [key for key in needed if not params.get(key)]
    if missing:
        raise HTTPError(400, f"the token request lacks {', '.join(missing)}", "invalid_request")
    if params["grant_type"] != "refresh_token":
        raise HTTPError(400, "grant_type must be refresh_token", "unsupported_grant_type")
    if not credentials_match(params["client_id"], params["client_secret"], params["refresh_token"]):
        raise HTTPError(
            401,
            "client id, client secret or refresh token not accepted; check the credentials",
            "invalid_client",
        )
    access_token = state.tokens.issue(state.token_lifetime)
    expires_in = int(state.token_lifetime)
    return json_response(
        {"access_token": access_token, "token_type": "Bearer", "expires_in": expires_in}
    )


def authorize(state: SandboxState, request: Request) -> None:
    problem = state.tokens.problem(request.headers.get("authorization"))
    if problem:
        challenge = ("WWW-Authenticate", 'Bearer error="invalid_token"')
        raise HTTPError(401, problem, "invalid_token", headers=[challenge])


def foldertree(state: SandboxState, request: Request) -> Response:
    authorize(state, request)
    library = state.library
    return json_response([folder_record(library, f) for f in library.visible_folders()])


def folder_files(state: SandboxState, request: Request, folder_id: str) -> Response:
    authorize(state, request)
    number = _integer(folder_id, "folder id")
    if state.library.folder(number) is None or not state.library.is_visible(number):
        raise HTTPError(404, f"no folder {number} visible to this integration")
    kind = request.query.get("type", "any").lower()
    if kind not in ("any", "image", "video"):
        raise HTTPError(400, f"type={kind!r}: use any, image or video")
    if request.query.get("processed", "true").lower() not in ("true", "false", "1", "0"):
        raise HTTPError(400, "processed must be true or false")
    keys = selected_keys(request.query.get("fields"))
    files = [
        f
        for f in state.library.files_in(number)
        if kind == "any" or (kind == "video") == f.is_video
    ]
    return json_response([file_record(state, f, keys) for f in files])


def search(state: SandboxState, request: Request) -> Response:
    authorize(state, request)
    keys = selected_keys(request.query.get("fields"))
    found = state.library.search(request.query.get("query", ""))
    return json_response([file_record(state, f, keys) for f in found])


def formats(state: SandboxState, request: Request) -> Response:
    authorize(state, request)
    return json_response([f.to_api() for f in FORMATS])


def download_info(state: SandboxState, request: Request, file_id: str, format_id: str) -> Response:
    authorize(state, request)
    number = _integer(file_id, "file id")
    file = state.library.visible_file(number)
    if file is None:
        raise HTTPError(404, f"no file {number} visible to this integration")
    if file.is_video:
        raise HTTPError(
            400,
            f"file {number} is a video: it has no download; embed it by its mediaId",
            "video_not_downloadable",
        )
    fmt = _integer(format_id, "format")
    crop = None
    if fmt == ORIGINAL:
        name = "original"
    elif fmt == CUSTOM:
        name = "custom"
        try:
            crop = CropRequest.from_query(request.query)
            plan_crop(crop, (file.width, file.height))
        except ValueError as exc:
            raise HTTPError(400, str(exc), "invalid_crop") from None
    else:
        predefined = format_by_id(fmt)
        if predefined is None:
            known = ", ".join(str(f.id) for f in FORMATS)
            raise HTTPError(
                400,
                f"unknown format {fmt}: use 0 (original), -1 (custom) or one of {known}",
                "unknown_format",
            )
        name = predefined.name
    info = {
        "id": fmt,
        "format": name,
        "watermark": False,
        "isPreview": False,
        "filetype": file.extension,
        "expiresIn": state.link_lifetime,
        "downloadURL": download_link(state, file, fmt, name, crop),
        "downloadWarning": False,
    }
    return json_response([info])


def download_link(
    state: SandboxState, file: LibraryFile, fmt: int, name: str, crop: CropRequest | None
) -> str:
    expires = int(state.clock()) + state.link_lifetime
    extra = crop.canonical() if crop else ""
    token = state.links.sign(LinkClaim(file.id, fmt, expires), extra)
    url = f"{state.media_url}/dn/{token}/{name}"
    if crop is None:
        return url
    query = {
        **crop.to_query(),
        "t": str(expires),
        "u": str(file.uploaded_by),
        "cc": hashlib.sha256(extra.encode()).hexdigest()[:8],
        "ch": hashlib.sha256(file.uploaded.encode()).hexdigest()[:8],
        "sid": state.session,
    }
    return f"{url}?{urlencode(query)}"


def usages(state: SandboxState, request: Request) -> Response:
    authorize(state, request)
    try:
        usage = parse_usage(request.body, request.headers.get("content-type", ""))
    except ValueError as exc:
        raise HTTPError(400, str(exc), "invalid_usage") from None
    state.add_usage(usage)
    return json_response({"status": "ok", "count": len(usage["id"])})


def selected_keys(fields: str | None) -> tuple[str, ...]:
    """The camelCase keys for a ``fields`` parameter; none or ``all`` means every field."""
    if not fields or fields.strip().lower() == "all":
        return tuple(FIELD_KEYS.values())
    names = [name.strip().lower() for name in fields.split(",")]
    keys = ["id", *(FIELD_KEYS[n] for n in names if n in FIELD_KEYS and n != "id")]
    return tuple(dict.fromkeys(keys))


def file_record(state: SandboxState, file: LibraryFile, keys: tuple[str, ...]) -> dict[str, Any]:
    type_id, kind, description = FILE_TYPES.get(
        file.extension, (0, "video" if file.is_video else "image", "File")
    )
    preview = f"{state.media_url}/pv/{file.id}"
    values: dict[str, Any] = {
        "id": file.id,
        "name": file.name,
        "filename": file.filename,
        "type": {
            "id": type_id,
            "type": kind,
            "description": description,
            "extension": file.extension,
        },
        "filesize": None,  # computed only when asked for: it may mean drawing the image
        "mark": file.mark,
        "uploadedBy": file.uploaded_by,
        "uploaded": file.uploaded,
        "mediaId": file.media_id,
        "alttext": file.alttext,
        "smallPreview": f"{preview}/small.jpg",
        "thumbPreview": f"{preview}/thumb.jpg",
        "gdprStatus": file.gdpr_status,
        "gdprType": file.gdpr_type,
    }
    if "filesize" in keys:
        values["filesize"] = state.library.filesize(file)
    return {key: values[key] for key in keys}


def folder_record(library: Library, folder: LibraryFolder) -> dict[str, Any]:
    return {
        "id": folder.id,
        "name": folder.name,
        "type": folder.type,
        "depth": library.depth(folder.id),
        "archived": folder.archived,
        "parent": folder.parent,
        "hasChildren": library.has_visible_children(folder.id),
        "separator": False,
    }


def _integer(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise HTTPError(400, f"{what} must be an integer, got {text!r}") from None


ROUTES = routes(
    ("GET", r"/1/oauth2/token", "token", token),
    ("POST", r"/1/oauth2/token", "token", token),
    ("GET", r"/1/foldertree", "foldertree", foldertree),
    ("GET", r"/1/folder/(?P<folder_id>[^/]+)/files", "files", folder_files),
    ("GET", r"/1/search/file", "search", search),
    (
        "GET",
        r"/1/file/(?P<file_id>[^/]+)/download/(?P<format_id>[^/]+)",
        "download_info",
        download_info,
    ),
    ("GET", r"/1/format", "formats", formats),
    ("POST", r"/1/files/multiple/usages", "usages", usages),
)
