"""Settings of the test Wagtail project; conftest.py fills in the per-run paths."""

from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent
SECRET_KEY = "test-only-not-a-secret"
DEBUG = False
ALLOWED_HOSTS = ["localhost", "testserver"]
USE_TZ = True
ROOT_URLCONF = "wagtail_site.mediasite.urls"
WAGTAIL_SITE_NAME = "Media test site"
WAGTAILADMIN_BASE_URL = "http://localhost"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "wagtail_site.mediasite",
    "mediashortcodes.wagtail",
    "bakery",
    "wagtail",
    "wagtail.search",
    "wagtail.admin",
    "wagtail.users",
    "wagtail.images",
    "wagtail.documents",
    "modelcluster",
    "taggit",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
]
# The admin (the editors' chooser, issue 31): sessions, CSRF, log-in.
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "APP_DIRS": True,
        "OPTIONS": {
            "extensions": [
                "wagtail.jinja2tags.core",
                "mediashortcodes.jinja.MediaShortcodesExtension",
            ],
        },
    },
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    },
]

STATIC_URL = "/static/"
MEDIA_URL = "/media/"
BAKERY_VIEWS = ["mediashortcodes.wagtail.BakeryPagesView"]
