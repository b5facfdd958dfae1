"""Reporting: which requests a report sends, and what the state records after each page.

The client here is an in-process double of ``AsyncClient.report_usage`` so a test can
make one page's request fail; the real client against the sandbox is in test_report_sandbox.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from mediashortcodes.config import Config, UsageConfig
from mediashortcodes.errors import (
    AuthenticationError,
    ConfigError,
    ServerError,
    ServiceUnreachableError,
)
from mediashortcodes.records import Usage
from mediashortcodes.usage.manifest import Manifest, PageUsage
from mediashortcodes.usage.reporting import (
    PreviousMissing,
    ReportResult,
    UsageRequest,
    load_previous,
    report_usage,
    usage_warnings,
)
from mediashortcodes.usage.state import UsageState

SITE = "https://s.org"
TODAY = dt.date(2024, 5, 17)


@dataclass
class RecordingClient:
    """Accepts every usage except those whose page URL is in ``failing``."""

    failing: dict[str, Exception] = field(default_factory=dict)
    received: list[dict] = field(default_factory=list)

    async def report_usage(self, usage: Usage, *, removed_as_bool: bool = False) -> None:
        error = self.failing.get(usage.web.page)
        if error is not None:
            raise error
        self.received.append(usage.to_api(removed_as_bool=removed_as_bool))


def site_manifest(**pages: tuple[str, list[int]]) -> Manifest:
    return Manifest.from_pages(SITE, [(f"{SITE}/{k}/", t, f) for k, (t, f) in pages.items()])


@pytest.fixture
def config(tmp_path: Path) -> Config:
    usage = UsageConfig(contact="Ann Editor", project="Web", description="site", amount="2")
    return Config(root=tmp_path, usage=usage)


async def report(config: Config, manifest: Manifest, client=None, **options) -> ReportResult:
    return await report_usage(
        config, manifest, client=client or RecordingClient(), today=TODAY, **options
    )


def state_of(config: Config) -> Manifest:
    """The state as the next report reads it (after a crash: its journal replayed)."""
    return UsageState(config.usage_state_path).load(SITE)


async def test_a_usage_body_has_every_field_of_the_spec(config: Config) -> None:
    client = RecordingClient()
    await report(config, site_manifest(a=("Page A", [7, 3])), client)
    assert client.received == [
        {
            "id": [3, 7],
            "contact": "Ann Editor",
            "date": "2024-05-17",
            "amount": "2",
            "description": "site",
            "project": "Web",
            "types": ["web"],
            "removed": "false",
            "web": {"page": f"{SITE}/a/", "pageName": "Page A"},
        }
    ]


async def test_removed_is_a_json_boolean_when_configured(tmp_path: Path) -> None:
    config = Config(root=tmp_path, usage=UsageConfig(removed_as_bool=True))
    await report(config, site_manifest(a=("A", [1, 2])))
    client = RecordingClient()
    await report(config, site_manifest(a=("A", [1])), client)
    assert client.received[0]["removed"] is True


async def test_a_page_without_title_is_named_by_its_url(config: Config) -> None:
    client = RecordingClient()
    await report(config, site_manifest(a=("", [1])), client)
    assert client.received[0]["web"]["pageName"] == f"{SITE}/a/"


async def test_a_first_report_sends_every_page_and_records_the_state(config: Config) -> None:
    manifest = site_manifest(a=("A", [1, 2]), b=("B", [3]), empty=("Empty", []))
    result = await report(config, manifest)
    assert [(r.url, r.ids, r.removed) for r in result.requests] == [
        (f"{SITE}/a/", (1, 2), False),
        (f"{SITE}/b/", (3,), False),
    ]
    assert result.summary() == "2 pages reported (2 additions, 0 removals), 1 unchanged"
    assert state_of(config).pages == {
        f"{SITE}/a/": PageUsage("A", (1, 2)),
        f"{SITE}/b/": PageUsage("B", (3,)),
    }


async def test_a_second_report_of_the_same_site_sends_nothing(config: Config) -> None:
    manifest = site_manifest(a=("A", [1, 2]), b=("B", [3]))
    await report(config, manifest)
    client = RecordingClient()
    result = await report(config, manifest, client)
    assert client.received == []
    assert result.summary() == "0 pages reported (0 additions, 0 removals), 2 unchanged"


async def test_a_changed_site_sends_additions_and_removals(config: Config) -> None:
    await report(config, site_manifest(a=("A", [1, 2]), b=("B", [3]), gone=("Gone", [4])))
    client = RecordingClient()
    result = await report(config, site_manifest(a=("A", [1]), b=("B", [3, 5])), client)
    sent = sorted((b["web"]["page"], b["id"], b["removed"]) for b in client.received)
    assert sent == [
        (f"{SITE}/a/", [2], "true"),
        (f"{SITE}/b/", [5], "false"),
        (f"{SITE}/gone/", [4], "true"),
    ]
    assert result.summary() == "3 pages reported (1 addition, 2 removals), 0 unchanged"
    assert state_of(config).pages == {
        f"{SITE}/a/": PageUsage("A", (1,)),
        f"{SITE}/b/": PageUsage("B", (3, 5)),
    }


async def test_send_all_sends_unchanged_pages_again(config: Config) -> None:
    manifest = site_manifest(a=("A", [1]), b=("B", [2]))
    await report(config, manifest)
    client = RecordingClient()
    await report(config, manifest, client, send_all=True)
    assert [b["id"] for b in client.received] == [[1], [2]]


async def test_a_failed_page_is_listed_kept_out_of_the_state_and_sent_next_time(
    config: Config,
) -> None:
    manifest = site_manifest(a=("A", [1]), b=("B", [2]))
    failing = RecordingClient(failing={f"{SITE}/b/": ServerError("the service answered 503")})
    result = await report(config, manifest, failing)
    assert result.failed
    assert [(f.url, f.error) for f in result.failed] == [(f"{SITE}/b/", "the service answered 503")]
    assert (
        result.summary() == "1 page reported (1 addition, 0 removals), 0 unchanged, 1 page failed"
    )
    state = state_of(config).pages
    assert state[f"{SITE}/a/"] == PageUsage("A", (1,))
    assert state[f"{SITE}/b/"] == PageUsage("B", (), pending=(2,))

    client = RecordingClient()
    assert not (await report(config, manifest, client)).failed
    assert [b["web"]["page"] for b in client.received] == [f"{SITE}/b/"]


async def test_a_page_whose_addition_and_removal_fail_alike_names_the_error_once(
    config: Config,
) -> None:
    await report(config, site_manifest(a=("A", [1])))
    failing = RecordingClient(failing={f"{SITE}/a/": ServerError("the service answered 503")})
    result = await report(config, site_manifest(a=("A", [2])), failing)
    assert [f.error for f in result.failed] == ["the service answered 503"]


async def test_a_failed_removal_of_a_deleted_page_is_sent_next_time(config: Config) -> None:
    await report(config, site_manifest(a=("A", [1]), gone=("Gone", [2])))
    failing = RecordingClient(failing={f"{SITE}/gone/": ServerError("503")})
    await report(config, site_manifest(a=("A", [1])), failing)
    assert state_of(config).pages[f"{SITE}/gone/"] == PageUsage("Gone", (2,))

    client = RecordingClient()
    await report(config, site_manifest(a=("A", [1])), client)
    assert [(b["id"], b["removed"]) for b in client.received] == [([2], "true")]
    assert set(state_of(config).pages) == {f"{SITE}/a/"}


async def test_a_rename_whose_additions_failed_is_sent_again(config: Config) -> None:
    await report(config, site_manifest(a=("Old", [1, 2])))

    class FailAdditions(RecordingClient):
        async def report_usage(self, usage: Usage, *, removed_as_bool: bool = False) -> None:
            if not usage.removed:
                raise ServerError("503")
            await super().report_usage(usage, removed_as_bool=removed_as_bool)

    await report(config, site_manifest(a=("New", [1])), FailAdditions())
    client = RecordingClient()
    await report(config, site_manifest(a=("New", [1])), client)
    assert [(b["id"], b["web"]["pageName"]) for b in client.received] == [([1], "New")]


async def test_refused_credentials_stop_the_report_with_the_service_error(config: Config) -> None:
    client = RecordingClient(failing={f"{SITE}/a/": AuthenticationError("credentials refused")})
    with pytest.raises(AuthenticationError):
        await report(config, site_manifest(a=("A", [1])), client, jobs=1)
    assert state_of(config).pages[f"{SITE}/a/"] == PageUsage("A", (), pending=(1,))


async def test_an_unreachable_service_before_any_success_stops_the_report(config: Config) -> None:
    unreachable = ServiceUnreachableError("connection refused")
    client = RecordingClient(failing={f"{SITE}/a/": unreachable, f"{SITE}/b/": unreachable})
    with pytest.raises(ServiceUnreachableError):
        await report(config, site_manifest(a=("A", [1]), b=("B", [2])), client, jobs=1)


async def test_dry_run_returns_the_bodies_and_touches_no_state(config: Config) -> None:
    result = await report_usage(
        config, site_manifest(a=("A", [1])), client=None, dry_run=True, today=TODAY
    )
    assert result.requests == (
        UsageRequest(
            f"{SITE}/a/",
            False,
            (1,),
            {
                "id": [1],
                "contact": "Ann Editor",
                "date": "2024-05-17",
                "amount": "2",
                "description": "site",
                "project": "Web",
                "types": ["web"],
                "removed": "false",
                "web": {"page": f"{SITE}/a/", "pageName": "A"},
            },
        ),
    )
    assert result.summary().startswith("dry run: 1 page would be reported")
    assert not config.usage_state_path.parent.exists()


async def test_disabled_reporting_sends_nothing_and_says_so(tmp_path: Path) -> None:
    config = Config(root=tmp_path, usage=UsageConfig(enabled=False))
    client = RecordingClient()
    result = await report(config, site_manifest(a=("A", [1])), client)
    assert client.received == []
    assert result.summary() == (
        "usage reporting is disabled ([usage] enabled = false); nothing was sent"
    )


async def test_the_state_path_option_moves_the_state(config: Config, tmp_path: Path) -> None:
    await report(config, site_manifest(a=("A", [1])), state_path=tmp_path / "ci" / "state.json")
    assert Manifest.load(tmp_path / "ci" / "state.json").pages == {
        f"{SITE}/a/": PageUsage("A", (1,))
    }
    assert not config.usage_state_path.exists()


async def test_previous_replaces_the_state_and_the_state_ends_complete(
    config: Config, tmp_path: Path
) -> None:
    live = site_manifest(a=("A", [1]), b=("B", [2]))
    live.write_atomic(tmp_path / "live.json")
    client = RecordingClient()
    await report(
        config,
        site_manifest(a=("A", [1]), b=("B", [2, 3])),
        client,
        previous=tmp_path / "live.json",
    )
    assert [(b["web"]["page"], b["id"]) for b in client.received] == [(f"{SITE}/b/", [3])]
    assert state_of(config).pages == {
        f"{SITE}/a/": PageUsage("A", (1,)),
        f"{SITE}/b/": PageUsage("B", (2, 3)),
    }


async def test_many_pages_are_reported_concurrently_and_all_recorded(config: Config) -> None:
    pages = {f"p{n}": (f"P{n}", [n, n + 1000]) for n in range(200)}
    result = await report(config, site_manifest(**pages), jobs=16)
    assert result.pages_reported == 200
    assert len(state_of(config).pages) == 200


def test_warnings_name_the_empty_usage_settings(tmp_path: Path) -> None:
    warnings = usage_warnings(Config(root=tmp_path, usage=UsageConfig(contact="Ann")))
    assert len(warnings) == 1
    assert warnings[0].startswith("[usage] project is empty")


async def test_previous_is_fetched_from_an_http_url(config: Config) -> None:
    live = site_manifest(a=("A", [1]))

    def handler(request: httpx.Request) -> httpx.Response:
        assert "authorization" not in request.headers
        return httpx.Response(200, content=live.to_json())

    fetched = await load_previous(
        "https://s.org/media-usage.json", transport=httpx.MockTransport(handler)
    )
    assert fetched == live


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (httpx.Response(404), "the server answered 404"),
        (httpx.Response(200, content=b"<html>"), "not valid JSON"),
    ],
)
async def test_a_previous_url_that_gives_no_manifest_is_a_clear_error(response, message) -> None:
    transport = httpx.MockTransport(lambda request: response)
    with pytest.raises(ConfigError, match=f"--previous https://s.org/media-usage.json: {message}"):
        await load_previous("https://s.org/media-usage.json", transport=transport)


async def test_a_missing_live_manifest_says_how_to_report_the_first_deploy() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(404))
    with pytest.raises(PreviousMissing, match=r"on the first deploy, .* --previous-missing ok"):
        await load_previous("https://s.org/media-usage.json", transport=transport)


async def test_a_previous_url_that_cannot_be_reached_is_a_clear_error_without_secrets() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    with pytest.raises(ServiceUnreachableError, match="cannot fetch it") as info:
        await load_previous(
            "https://s.org/media-usage.json?token=hunter2", transport=httpx.MockTransport(handler)
        )
    assert "hunter2" not in str(info.value)


@pytest.mark.parametrize("url", ["https://[::1/media-usage.json", "https://s.org\x00/m.json"])
async def test_a_malformed_previous_url_is_a_clear_error(url: str) -> None:
    with pytest.raises(ConfigError, match=r"--previous .*cannot fetch it .*check the URL"):
        await load_previous(url)


async def test_a_missing_previous_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PreviousMissing, match=r"--previous .*missing\.json: no such file"):
        await load_previous(tmp_path / "missing.json")


async def test_a_crash_mid_report_keeps_the_accepted_pages_and_the_next_run_sends_the_rest(
    config: Config,
) -> None:
    manifest = site_manifest(a=("A", [1]), b=("B", [2]), c=("C", [3]))
    crashing = RecordingClient(failing={f"{SITE}/c/": RuntimeError("killed")})
    with pytest.raises(RuntimeError):
        await report(config, manifest, crashing, jobs=1)
    assert [(p.files, p.pending) for p in state_of(config).pages.values()] == [
        ((1,), ()),
        ((2,), ()),
        ((), (3,)),
    ]

    client = RecordingClient()
    await report(config, manifest, client)
    assert [b["web"]["page"] for b in client.received] == [f"{SITE}/c/"]


class LosesAnswers(RecordingClient):
    """The service records each usage, but the answer never comes back."""

    async def report_usage(self, usage: Usage, *, removed_as_bool: bool = False) -> None:
        await super().report_usage(usage, removed_as_bool=removed_as_bool)
        raise ServerError("the connection was cut before the answer")


async def test_an_addition_whose_answer_was_lost_is_removed_once_its_page_goes(
    config: Config,
) -> None:
    await report(config, site_manifest(a=("A", [1])))
    lost = LosesAnswers()
    result = await report(config, site_manifest(a=("A", [1]), teaser=("Teaser", [7])), lost)
    assert result.failed
    assert [b["web"]["page"] for b in lost.received] == [f"{SITE}/teaser/"]  # the service has it

    client = RecordingClient()
    assert not (await report(config, site_manifest(a=("A", [1])), client)).failed
    assert [(b["web"]["page"], b["id"], b["removed"]) for b in client.received] == [
        (f"{SITE}/teaser/", [7], "true")
    ]
    assert set(state_of(config).pages) == {f"{SITE}/a/"}


async def test_an_addition_whose_answer_was_lost_is_sent_again_while_used(config: Config) -> None:
    manifest = site_manifest(a=("A", [1, 2]))
    await report(config, manifest, LosesAnswers())
    client = RecordingClient()
    assert not (await report(config, manifest, client)).failed
    assert [b["id"] for b in client.received] == [[1, 2]]
    assert state_of(config).pages[f"{SITE}/a/"] == PageUsage("A", (1, 2))


async def test_a_failed_send_all_is_sent_again_by_a_plain_report(config: Config) -> None:
    manifest = site_manifest(a=("A", [1]), b=("B", [2]))
    await report(config, manifest)
    failing = RecordingClient(failing={f"{SITE}/b/": ServerError("503")})
    assert (await report(config, manifest, failing, send_all=True)).failed

    client = RecordingClient()
    assert not (await report(config, manifest, client)).failed
    assert [(b["web"]["page"], b["id"]) for b in client.received] == [(f"{SITE}/b/", [2])]


def for_service(config: Config, base_url: str) -> Config:
    return config.with_service(base_url=base_url)


async def test_a_state_of_another_service_is_not_taken_for_this_ones(config: Config) -> None:
    staging = for_service(config, "https://staging.example/api")
    await report(staging, site_manifest(a=("A", [1]), old=("Old", [5])))
    assert state_of(config).service == "https://staging.example/api"

    production = for_service(config, "https://media.example/api/")
    client = RecordingClient()
    result = await report(production, site_manifest(a=("A", [1])), client)
    assert [(b["web"]["page"], b["removed"]) for b in client.received] == [(f"{SITE}/a/", "false")]
    assert len(result.warnings) == 1
    assert "follows the usage reported to https://staging.example/api" in result.warnings[0]
    assert "this report goes to https://media.example/api" in result.warnings[0]
    state = state_of(config)
    assert (state.service, set(state.pages)) == ("https://media.example/api", {f"{SITE}/a/"})

    again = RecordingClient()
    result = await report(production, site_manifest(a=("A", [1])), again)
    assert (again.received, result.warnings) == ([], ())


async def test_the_built_in_sandbox_is_one_service_whatever_its_port(config: Config) -> None:
    sandbox = config.with_service(base_url="http://127.0.0.1:40001", sandbox=True)
    await report(sandbox, site_manifest(a=("A", [1])))
    client = RecordingClient()
    moved = config.with_service(base_url="http://127.0.0.1:40002", sandbox=True)
    result = await report(moved, site_manifest(a=("A", [1])), client)
    assert (client.received, state_of(config).service) == ([], "sandbox")
    assert result.warnings == (
        "[service] sandbox = true: this report goes to the built-in sandbox, which lives only "
        "as long as this command; no real service hears of it",
    )


async def test_a_live_site_that_fails_is_the_service_error_of_exit_3() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(503))
    with pytest.raises(ServiceUnreachableError, match="the server answered 503"):
        await load_previous("https://s.org/media-usage.json", transport=transport)


async def test_a_previous_manifest_of_another_site_sends_nothing(config: Config) -> None:
    other = Manifest.from_pages("https://other.org", [("https://other.org/a/", "A", [1])])
    client = RecordingClient()
    with pytest.raises(
        ConfigError, match=r"manifest of https://other.org, but this site is https://s.org"
    ):
        await report(config, site_manifest(a=("A", [1])), client, previous=other)
    assert client.received == []
    assert not config.usage_state_path.exists()
