"""CLI: build, check, cache, and finish (Zensical's media step); the builder is imported
when a command runs, not for ``--help``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .. import config as config_mod
from ..client.service import embed_urls
from ..config import Config
from ..errors import ConfigError, MediaShortcodesError, counted
from .base import base_url_option, cli, jobs_option, keep_going_option
from .output import Outcome, format_option, progress_bar, quiet, reported, say, warn

if TYPE_CHECKING:
    from ..media.cache import MediaCache
    from ..site.builder import BuildResult, SiteBuilder

SITE = click.argument("site", required=False, default=".", type=click.Path(file_okay=False))


def load_site(site: str) -> config_mod.Config:
    """The site's config; a folder with neither a config file nor content is no site at all."""
    config = config_mod.load(site)
    if not Path(config.source).exists() and not config.path(config.site.content).is_dir():
        shown = "the current directory" if site == "." else site
        raise ConfigError(
            f"{shown} is not a site: it has no {config_mod.CONFIG_NAME} and no "
            f"{config.site.content}/ folder; pass the site's folder as SITE, or create them "
            "(see the README's 'A site of your own')"
        )
    return config


def echo_outcome(result: BuildResult) -> None:
    for problem in result.problems:  # only with --keep-going: listed, not fatal
        click.echo(f"{problem} (placeholder rendered)", err=True)
    for warning in result.warnings:  # after the errors, as when the build stops
        warn(warning.as_warning())


def _run(builder: SiteBuilder, outcome: Outcome, label: str = "resolving media") -> BuildResult:
    """Build (or check); the outcome gets the summary, also of a build a problem stopped."""
    try:
        with progress_bar(label) as progress:
            result = builder.build(progress)
    except MediaShortcodesError:
        if builder.result is not None:
            outcome.counted(builder.result)
        raise
    outcome.built(result)
    return result


@cli.command()
@SITE
@click.option(
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the site here instead of [site] output.",
)
@click.option("--report", is_flag=True, help="Report usage to the service after the build.")
@click.option("--offline", is_flag=True, help="Build from the cache alone; fail on a miss.")
@click.option("--refresh", is_flag=True, help="Re-read metadata from the service now.")
@keep_going_option
@jobs_option
@click.option(
    "--cache-read-only",
    is_flag=True,
    help="Read the cache, never write it (untrusted builds; also [cache] read_only, "
    f"{config_mod.ENV_CACHE_READ_ONLY}=1).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 256),
    metavar="N",
    help="Processes that render and write pages (default: one per CPU, for 50 pages or more).",
)
@click.option(
    "--no-memo",
    is_flag=True,
    help="Render every page; use no page of an earlier build (also [build] memo = false).",
)
@base_url_option
@click.option(
    "--cache-write",
    is_flag=True,
    help="Write what this build fetched to the shared cache ([cache] remote; trusted builds "
    f"only; also [cache] remote_write, {config_mod.ENV_CACHE_REMOTE_WRITE}=1).",
)
@format_option
def build(
    site: str,
    output: Path | None,
    report: bool,
    offline: bool,
    refresh: bool,
    keep_going: bool,
    jobs: int | None,
    cache_read_only: bool,
    workers: int | None,
    no_memo: bool,
    base_url: str | None,
    cache_write: bool,
    output_format: str,
) -> None:
    """Build the site in SITE (default: the current directory)."""
    with reported("build", output_format) as outcome:
        config = load_site(site)
        if base_url is not None:
            config = config_mod.with_site_base_url(config, base_url)
        if report and config.usage.enabled:
            config_mod.require_site_base_url(config)  # before the build, not after it
        cache = None
        if config.cache.remote and not (offline or refresh):
            # Before the builder's imports: the shared tier's images come meanwhile.
            from ..media.cache import cache_for

            cache = cache_for(
                config,
                read_only=cache_read_only,
                shared=True,
                shared_write=cache_write,
                jobs=jobs or config.build.jobs,
            )
            cache.start_head_start(str(config.root))
        from ..site.builder import BuildOptions, SiteBuilder

        options = BuildOptions(
            output=output,
            offline=offline,
            refresh=refresh,
            jobs=jobs,
            cache_read_only=cache_read_only,
            cache_write=cache_write,
            workers=workers,
            memo=not no_memo,
            keep_going=keep_going or config.build.on_missing == "placeholder",
        )
        result = _run(SiteBuilder(config, options, cache=cache), outcome)
        echo_outcome(result)
        say(f"built {result.summary()}")
        if config.service.sandbox and result.videos:  # the build's own sandbox has stopped
            say(
                f"The videos play while `mediashortcodes sandbox` runs (their player: "
                f"{embed_urls(config)[0]}), or view the site with `mediashortcodes serve {site}`."
            )
        if report:
            from .report import run_report

            run_report(config, manifest=result.manifest, outcome=outcome)


@cli.command(short_help="Verify every shortcode against the service; write nothing.")
@SITE
@click.option("--offline", is_flag=True, help="Check the shortcode syntax only, no service.")
@jobs_option
@format_option
def check(site: str, offline: bool, jobs: int | None, output_format: str) -> None:
    """Verify every shortcode of SITE against the service, without writing anything."""
    from ..site.builder import BuildOptions, SiteBuilder

    with reported("check", output_format) as outcome:
        config = load_site(site)
        options = BuildOptions(check_only=True, syntax_only=offline, jobs=jobs)
        result = _run(SiteBuilder(config, options), outcome, "checking media")
        echo_outcome(result)
        if result.srcset and not quiet() and not outcome.json:
            click.echo(
                "srcset candidates a build fetches (widths at or above an image's own width "
                "are dropped; the image itself is always one):"
            )
            for line in result.srcset:
                click.echo(f"  {line}")
        what = "syntax" if offline else "shortcodes"
        verdict = (
            f"no errors, {counted(len(result.warnings), 'warning')} (listed above)"
            if result.warnings
            else "no problems"
        )
        if not quiet() and not outcome.json:
            click.echo(f"ok: {what} of {counted(result.pages, 'page')} checked, {verdict}")


@cli.group()
def cache() -> None:
    """Inspect, verify or clear the disk cache."""


def _site_cache(site: str) -> tuple[Config, MediaCache]:
    """The site's config and cache (the cache is the service's: no URL, no cache)."""
    from ..media.cache import cache_for

    config = config_mod.load(site)
    config_mod.require_service_urls(config)
    return config, cache_for(config)


@cache.command("info")
@SITE
def cache_info(site: str) -> None:
    """Show where the cache is and what it holds."""
    config, media_cache = _site_cache(site)
    info = media_cache.info()
    click.echo(f"service: {config.service.identity}")  # the folder is named by a hash of it
    for key, value in info.items():
        click.echo(f"{key.replace('_', ' ')}: {value}")


@cache.command("verify")
@SITE
def cache_verify(site: str) -> None:
    """Check every record and image of the cache; remove what fails (and say so).

    A read-only cache ([cache] read_only, or the environment) is checked, not changed.
    """
    media_cache = _site_cache(site)[1]
    remove = not media_cache.read_only
    report = media_cache.verify(remove=remove)
    for name, why in report.removed:
        click.echo(f"{'removed' if remove else 'would remove'} {name}: {why}")
    click.echo(
        f"{media_cache.dir}: {counted(report.records, 'record')}, "
        f"{counted(report.blobs, 'image')} and {counted(report.snapshots, 'snapshot')} sound; "
        f"{len(report.removed)} {'removed' if remove else 'failed (read-only: left as they are)'}"
    )


@cache.command("clear")
@SITE
def cache_clear(site: str) -> None:
    """Remove everything this site's service has in the cache, and the page memo."""
    config, media_cache = _site_cache(site)
    if media_cache.read_only:
        raise ConfigError(
            f"the cache {media_cache.dir} is read-only here ([cache] read_only or "
            f"{config_mod.ENV_CACHE_READ_ONLY}); nothing was removed"
        )
    media_cache.clear()
    from ..site.memo import drop_memo, memo_folder

    drop_memo(config)
    click.echo(f"cleared {media_cache.dir} and {memo_folder(config)}")
