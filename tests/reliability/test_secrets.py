"""Case 5: secrets. Every test of this suite that builds a site ends with
``Site.assert_no_secrets`` (see conftest.py): the client secret, the refresh token and every
access token the sandbox issued are looked for in stdout, stderr, the log, exception texts
and every file under the test's directory. These cases aim at secrets directly.
"""

from __future__ import annotations

import logging

import pytest

from mediashortcodes.client.sync_client import Client
from mediashortcodes.config import Config, Credentials
from mediashortcodes.errors import MediaShortcodesError

from .harness import exception_texts, secret_variants
from .test_build_faults import LASTING

# Characters that URL encoding, JSON and shell quoting all treat differently.
ODD_SECRET = "s3cr3t/+&=?#% \"ü'"
ODD_REFRESH = "r3fr3sh;token with spaces"


@pytest.mark.parametrize(
    "command",
    [("build",), ("check",), ("folders",), ("download", "101", "-o", "lake.jpg")],
)
def test_refused_credentials_are_named_but_never_shown(site, command):
    site.credentials = Credentials("someone-else", ODD_SECRET, ODD_REFRESH)
    run = site.run(*command)
    assert run.exit_code == 3, str(run)
    assert "refused the credentials" in run.stderr
    assert "MEDIASHORTCODES_CLIENT_SECRET" in run.stderr
    # the teardown looks for ODD_SECRET and ODD_REFRESH, in all their encodings, everywhere


@pytest.mark.parametrize("case", LASTING)
def test_the_library_raises_no_secret_in_any_exception_or_repr(sandbox, case, caplog):
    caplog.set_level(logging.DEBUG)
    with Client(
        sandbox.base_url,
        sandbox.credentials,
        timeout=0.3,
        max_retries=1,
        retry_total_seconds=0.5,
        download_url=sandbox.download_url,
    ) as client:
        link = client.download_info(101, 1)[0].download_url
        LASTING[case][0](sandbox)
        texts = [repr(client), repr(Config(service=sandbox.service_config()))]
        for call in (
            client.folders,
            lambda: client.download_info(102, 0),
            lambda: client.download(link, max_bytes=10**6),
        ):
            try:
                call()
            except MediaShortcodesError as exc:
                texts += exception_texts(exc)
    assert len(texts) > 2  # the fault was felt
    texts += [r.getMessage() for r in caplog.records if not r.name.startswith("mediashortcodes.sa")]
    creds = sandbox.credentials
    secrets = secret_variants([creds.client_secret, creds.refresh_token, *sandbox.issued_tokens()])
    assert [s for s in secrets for text in texts if s in text] == []


def test_the_secret_check_finds_a_token_in_a_file_or_a_log_line(site, caplog):
    assert site.run("build").exit_code == 0
    token = site.sandbox.issued_tokens()[-1]
    leak = site.output / "leak.txt"
    leak.write_text(f"Authorization: Bearer {token}")
    with pytest.raises(AssertionError, match=r"leak\.txt"):
        site.assert_no_secrets()
    leak.unlink()
    logging.getLogger("mediashortcodes.api").info("token %s", token)
    with pytest.raises(AssertionError, match=r"log mediashortcodes\.api"):
        site.assert_no_secrets()
    caplog.clear()
    site.assert_no_secrets()
