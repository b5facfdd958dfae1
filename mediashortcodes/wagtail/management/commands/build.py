"""``python manage.py build``: django-bakery's build, which keeps the previous export whole
when this one fails.

django-bakery empties ``BUILD_DIR`` before it builds, so a failed export (a missing file, a
malformed shortcode) used to leave only the static and media files. This command, which
takes django-bakery's place when ``mediashortcodes.wagtail`` is listed before ``bakery`` in
``INSTALLED_APPS``, runs the same steps (static files, media, every view in
``BAKERY_VIEWS``) with ``BUILD_DIR`` pointing at a staging folder beside it,
``.<name>.staging-<pid>``, and swaps that in for ``BUILD_DIR`` only when all of them
succeeded, as ``mediashortcodes build`` does (``site.swap_into_place``); a failure removes
it. Leftovers of a killed export are removed first (``outputdir.remove_leftovers``).

A ``BAKERY_FILESYSTEM`` that is not the local disk (``s3://``, ``mem://``) has no rename to
swap with: there django-bakery builds in place, as it always did.
"""

from __future__ import annotations

import os
import posixpath
import shutil
from pathlib import Path
from typing import Any

from bakery.filesystem import RootedFilesystem, join_path
from bakery.management.commands.build import Command as BakeryBuildCommand
from django.conf import settings as django_settings
from django.core.management.base import CommandError
from fsspec.implementations.local import LocalFileSystem

from ....errors import MediaShortcodesError, exit_code_for
from ....site.outputdir import remove_leftovers, swap_into_place
from ...export import STAGED


class Command(BakeryBuildCommand):  # type: ignore[misc]
    help = (
        BakeryBuildCommand.help + "; a failed build leaves the previous one in the build "
        "directory as it was"
    )

    def handle(self, *args: Any, **options: Any) -> None:
        self.set_options(*args, options=options)  # to learn BUILD_DIR and the file system
        final = str(self.build_dir)
        output = _local_path(self.fs, final)
        if output is None:  # not on the local disk: django-bakery's own way, in place
            super().handle(*args, **options)
            return
        remove_leftovers(output)  # of exports killed while they wrote
        # The name remove_leftovers() and the site builder use: .<name>.staging-<pid>.
        name = f".{output.name}.staging-{os.getpid()}"
        staging = output.parent / name
        had_export = output.is_dir() and any(output.iterdir())
        saved = django_settings.BUILD_DIR
        token = STAGED.set(True)
        try:
            if staging.exists():
                shutil.rmtree(staging)
            if options.get("keep_build_dir") and output.is_dir():
                shutil.copytree(output, staging, symlinks=True)  # built on top of, as asked
            # django-bakery's steps, with BUILD_DIR (settings and --build-dir) the staging.
            super().handle(
                *args, **{**options, "build_dir": join_path(posixpath.dirname(final), name)}
            )
            swap_into_place(staging, output)
        except CommandError as exc:
            left = (
                f"{output} still holds the previous export, untouched"
                if had_export
                else f"nothing was written to {output}"
            )
            raise CommandError(f"{exc}\n{left}", returncode=exc.returncode) from None
        except MediaShortcodesError as exc:  # the swap: BUILD_DIR is not a directory
            raise CommandError(str(exc), returncode=exit_code_for(exc)) from None
        finally:
            STAGED.reset(token)
            django_settings.BUILD_DIR = saved
            self.build_dir = final
            shutil.rmtree(staging, ignore_errors=True)


def _local_path(fs: object, build_dir: str) -> Path | None:
    """The folder ``build_dir`` is on the local disk, or None for another file system."""
    if not isinstance(fs, RootedFilesystem) or not isinstance(fs.filesystem, LocalFileSystem):
        return None
    if fs.root:
        return Path(fs.root, build_dir.lstrip("/")).absolute()
    return Path(build_dir).absolute()
