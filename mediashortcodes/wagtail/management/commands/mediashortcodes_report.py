"""``python manage.py mediashortcodes_report [--dry-run] [--all]``: tell the service which
exported page uses which files, and which it stopped using. ``--pending`` instead sends what
publishing could not (``report_on_publish``, see ``publishing.py``).

Reads ``BUILD_DIR/media-usage.json`` (written by ``manage.py build``) and reports it exactly
as ``mediashortcodes report`` does: the diff against the durable state, page by page.
"""

from __future__ import annotations

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.conf import settings as django_settings
from django.core.management.base import BaseCommand, CommandError

from ....errors import (
    EXIT_CONFIG,
    EXIT_PROBLEMS,
    EXIT_SERVICE,
    ConfigError,
    MediaShortcodesError,
    exit_code_for,
)
from ....usage.manifest import MANIFEST_NAME, Manifest
from ....usage.reporting import USAGES_PATH, ReportResult, report_site, usage_warnings
from ...settings import read_settings


class Command(BaseCommand):
    help = (
        "Report which Media Asset Service files each exported page uses (from "
        f"BUILD_DIR/{MANIFEST_NAME}), and which files pages stopped using."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Print the requests it would send; send nothing, keep the state.",
        )
        parser.add_argument(
            "--all", dest="send_all", action="store_true", help="Send every page's files again."
        )
        parser.add_argument(
            "--pending",
            action="store_true",
            help="Send the usage that publishing could not send (report_on_publish).",
        )
        parser.add_argument(
            "--build-dir", default="", help="The export to report (default: settings.BUILD_DIR)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["pending"]:
            return self._pending()
        try:
            config = read_settings().config
            manifest = Manifest.load(_manifest_path(options["build_dir"]))
            for warning in usage_warnings(config):
                self.stderr.write(f"warning: {warning}")
            result = report_site(
                config,
                manifest=manifest,
                dry_run=options["dry_run"],
                send_all=options["send_all"],
            )
        except MediaShortcodesError as exc:
            raise CommandError(str(exc), returncode=exit_code_for(exc)) from None
        self._print(result)

    def _pending(self) -> None:
        from ...publishing import send_pending

        result = send_pending()
        for line in result.sent:
            self.stdout.write(f"sent {line}")
        self.stdout.write(f"{len(result.sent)} usage reports sent")
        if result.unreachable is not None:
            raise CommandError(
                f"{result.unreachable}; the rest stays pending: run this again later",
                returncode=EXIT_SERVICE,
            )
        if result.failed:
            raise CommandError(
                "failed (kept pending):\n" + "\n".join(f"  {f}" for f in result.failed),
                returncode=EXIT_PROBLEMS,
            )

    def _print(self, result: ReportResult) -> None:
        for warning in result.warnings:
            self.stderr.write(f"warning: {warning}")
        if result.dry_run:
            for request in result.requests:
                body = json.dumps(request.body, ensure_ascii=False)
                self.stdout.write(f"POST {USAGES_PATH} {body}")
        self.stdout.write(result.summary())
        if result.failed:
            lines = [f"  {failure.url}: {failure.error}" for failure in result.failed]
            raise CommandError(
                "failed pages (run the report again to send them):\n" + "\n".join(lines),
                returncode=EXIT_PROBLEMS,
            )


def _manifest_path(build_dir: str) -> Path:
    folder = build_dir or getattr(django_settings, "BUILD_DIR", "")
    if not folder:
        raise CommandError(
            "no export to report: set BUILD_DIR in the Django settings or pass --build-dir",
            returncode=EXIT_CONFIG,
        )
    path = Path(str(folder)) / MANIFEST_NAME
    if not path.is_file():
        raise ConfigError(
            f"{path}: no usage manifest here; run `python manage.py build` first "
            "(with BAKERY_VIEWS = ['mediashortcodes.wagtail.BakeryPagesView'])"
        )
    return path
