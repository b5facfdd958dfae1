"""Which download links the client may follow (docs/api.md, *Downloads and the download
host policy*)."""

from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

from publicsuffixlist import PublicSuffixList

from ..errors import InvalidResponseError


class DownloadRejectedError(InvalidResponseError):
    """The service named a download link the download policy does not allow."""


def host_of(url: str) -> str:
    """The host of ``url``, lower case, without a final dot ("" when there is none)."""
    try:
        return (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return ""


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    address = _address(host)
    return (
        host == "localhost" or host.endswith(".localhost") or bool(address and address.is_loopback)
    )


@functools.cache
def _suffixes() -> PublicSuffixList:
    # The list bundled with the package (refreshed by its releases); nothing is fetched.
    return PublicSuffixList()


def parent_domain(host: str) -> str:
    """One label under the public suffix (``api.x.co.uk`` -> ``x.co.uk``); "" for an
    address or a public suffix itself (``co.uk``, ``github.io``)."""
    if not host or _address(host) is not None:
        return ""
    return _suffixes().privatesuffix(host) or ""


@dataclass(frozen=True)
class DownloadPolicy:
    base_url: str
    download_url: str = ""
    allowed_hosts: tuple[str, ...] = ()
    allow_http: bool = False

    def host_allowed(self, host: str) -> bool:
        api_host = host_of(self.base_url)
        if host and host in (api_host, host_of(self.download_url)):
            return True
        if host in {h.lower().rstrip(".") for h in self.allowed_hosts}:
            return True
        parent = parent_domain(api_host)
        return bool(parent) and (host == parent or host.endswith("." + parent))

    def check(self, url: str) -> None:
        """Raise :class:`DownloadRejectedError` naming the setting that would allow ``url``."""
        try:
            parts = urlsplit(url)
        except ValueError:
            raise DownloadRejectedError(
                "the service sent a download link that is not a valid URL"
            ) from None
        scheme, host = parts.scheme.lower(), host_of(url)
        if scheme not in ("https", "http") or not host:
            raise DownloadRejectedError(
                f"the service sent a download link with scheme {scheme or 'none'!r} and no "
                "usable host; only https links (http with allow_http_downloads) are fetched"
            )
        loopback_api = urlsplit(self.base_url).scheme == "http" and is_loopback(
            host_of(self.base_url)
        )
        if scheme == "http" and not (self.allow_http or loopback_api):
            raise DownloadRejectedError(
                f"the service sent a plain-http download link on host {host}; set "
                "[service] allow_http_downloads = true in mediashortcodes.toml to accept it"
            )
        if not self.host_allowed(host):
            raise DownloadRejectedError(
                f"the service sent a download link on host {host}, which is neither the API "
                "host, the download host nor under the API host's registrable domain; add it to "
                "[service] allowed_download_hosts in mediashortcodes.toml to accept it"
            )
