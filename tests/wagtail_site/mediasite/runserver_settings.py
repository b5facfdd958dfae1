"""The test project under ``manage.py runserver`` (the editors' browser test): the paths
and the service come from the environment the test gives the server."""

import json
import os

from .settings import *  # noqa: F403

DATABASES = {
    "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["MEDIASITE_DB"]}
}
MEDIA_ROOT = os.environ["MEDIASITE_MEDIA"]
STATIC_ROOT = os.environ["MEDIASITE_STATIC"]
ALLOWED_HOSTS = ["127.0.0.1"]
WAGTAILADMIN_BASE_URL = os.environ["MEDIASITE_URL"]
MEDIASHORTCODES = json.loads(os.environ["MEDIASITE_MEDIASHORTCODES"])
