"""The project's own emulator of the Media Asset Service (see docs/sandbox.md).

``with Sandbox() as sb:`` serves the demo library on 127.0.0.1: the API on ``sb.base_url``
and downloads, player and static files on ``sb.media_url``, with the demo credentials
``sb.credentials``. Pillow (the ``[sandbox]`` extra) is needed once it starts.
"""

from .auth import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, DEMO_CREDENTIALS, DEMO_REFRESH_TOKEN
from .demo import HIDDEN_FOLDER_ID
from .emulator import Sandbox
from .formats import FORMATS, PredefinedFormat
from .library import Library, LibraryFile, LibraryFolder

__all__ = [
    "DEMO_CLIENT_ID",
    "DEMO_CLIENT_SECRET",
    "DEMO_CREDENTIALS",
    "DEMO_REFRESH_TOKEN",
    "FORMATS",
    "HIDDEN_FOLDER_ID",
    "Library",
    "LibraryFile",
    "LibraryFolder",
    "PredefinedFormat",
    "Sandbox",
]
