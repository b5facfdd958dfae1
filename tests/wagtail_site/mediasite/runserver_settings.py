"""The test project under ``manage.py runserver`` (the editors' browser test): the paths
and the service come from the environment the test gives the server."""

import json
import os

from .settings import *  # noqa: F403

# runserver answers in threads and the admin autosaves while the editor publishes: writers
# take SQLite's lock when their transaction starts and wait for it, instead of failing.
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ["MEDIASITE_DB"],
        "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
    }
}
# Wagtail 8 autosaves a draft every half second; a save in flight when the test publishes
# shows "You saved a new version in another window" and left the test to chance. Publishing
# (what reports usage) is the same with it off.
WAGTAIL_AUTOSAVE_INTERVAL = 0
MEDIA_ROOT = os.environ["MEDIASITE_MEDIA"]
STATIC_ROOT = os.environ["MEDIASITE_STATIC"]
ALLOWED_HOSTS = ["127.0.0.1"]
WAGTAILADMIN_BASE_URL = os.environ["MEDIASITE_URL"]
MEDIASHORTCODES = json.loads(os.environ["MEDIASITE_MEDIASHORTCODES"])
# Errors and the integration's warnings (a usage report kept for later) in the server's log.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "django.request": {"handlers": ["console"], "level": "ERROR"},
        "mediashortcodes": {"handlers": ["console"], "level": "WARNING"},
    },
}
