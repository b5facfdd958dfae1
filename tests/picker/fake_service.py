"""An in-process stand-in for the service (httpx.MockTransport) for the picker's unit tests."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any

import httpx
from PIL import Image

from mediashortcodes.client.sync_client import Client
from mediashortcodes.config import Credentials

BASE = "https://api.example.com"
DOWNLOAD = "https://dl.example.com"
CREDENTIALS = Credentials("picker-client", "s3cret-client-value", "refresh-token-value")
ACCESS_TOKEN = "access-token-value-42"


def jpeg(width: int = 40, height: int = 30) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 120, 40)).save(buffer, "JPEG")
    return buffer.getvalue()


def file_json(file_id: int, name: str, *, video: bool = False, alttext: str = "") -> dict:
    return {
        "id": file_id,
        "name": name,
        "filename": f"{name.lower()}.{'mp4' if video else 'jpg'}",
        "type": {
            "id": 2 if video else 1,
            "type": "video" if video else "image",
            "description": "Video" if video else "JPEG image",
            "extension": "mp4" if video else "jpg",
        },
        "mediaId": f"media{file_id}" if video else None,
        "alttext": alttext,
        "smallPreview": f"{DOWNLOAD}/preview/{file_id}/small.jpg?sig=abc",
        "thumbPreview": f"{DOWNLOAD}/preview/{file_id}/thumb.jpg?sig=abc",
        "gdprStatus": "OK",
    }


@dataclass
class FakeService:
    folders: list[dict] = field(
        default_factory=lambda: [
            {"id": 1, "name": "Images", "depth": 0, "parent": None},
            {"id": 2, "name": "Staff", "depth": 1, "parent": 1},
            {"id": 3, "name": "Videos", "depth": 0, "parent": None},
        ]
    )
    files: dict[int, list[dict]] = field(
        default_factory=lambda: {
            1: [file_json(10, "Tree", alttext="A tall tree"), file_json(11, "Lake")],
            2: [],
            3: [file_json(20, "Intro", video=True)],
        }
    )
    formats: list[dict] = field(
        default_factory=lambda: [
            {"id": 5, "name": "thumb", "width": 200, "height": 200},
            {"id": 6, "name": "Wide banner", "width": 1600, "height": 400},
        ]
    )
    preview: bytes = field(default_factory=jpeg)
    requests: list[httpx.Request] = field(default_factory=list)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        if request.url.host == "dl.example.com":
            # A stream, as from a socket: the client checks the bytes against Content-Length.
            return httpx.Response(
                200,
                stream=httpx.ByteStream(self.preview),
                headers={"Content-Length": str(len(self.preview))},
            )
        if path == "/1/oauth2/token":
            body: Any = {"access_token": ACCESS_TOKEN, "token_type": "Bearer", "expires_in": 7200}
        elif request.headers.get("Authorization") != f"Bearer {ACCESS_TOKEN}":
            return httpx.Response(401, json={"error": "unauthorized"})
        elif path == "/1/foldertree":
            body = self.folders
        elif path.startswith("/1/folder/") and path.endswith("/files"):
            folder = int(path.split("/")[3])
            if folder not in self.files:
                return httpx.Response(404, json={"error": "no such folder"})
            body = self.files[folder]
        elif path == "/1/search/file":
            query = request.url.params["query"].lower()
            every = [f for files in self.files.values() for f in files]
            body = [f for f in every if query in f["name"].lower()]
        elif path == "/1/format":
            body = self.formats
        else:
            return httpx.Response(404, json={"error": "no such endpoint"})
        return httpx.Response(
            200, content=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )

    def client(self, credentials: Credentials = CREDENTIALS) -> Client:
        return Client(
            BASE,
            credentials,
            transport=httpx.MockTransport(self.handle),
            download_url=DOWNLOAD,
            max_retries=0,
        )
