"""Which download links the client may follow (pure; no I/O).

A ``downloadURL`` comes from the service's answer, so it is input to check, not an order to
obey: the client fetches it only when its scheme and host are expected. Accepted hosts are
the configured download host, the API host, a host under the API host's registrable domain
(by the public-suffix list, its private section included: an API at ``api.x.co.uk`` vouches
for ``*.x.co.uk``, not for every ``*.co.uk``; one at ``a.github.io`` for ``*.a.github.io``,
not for other users' pages), and the hosts listed in ``[service] allowed_download_hosts``.
Plain http is accepted only when allowed explicitly, or when the API itself is plain http
on a loopback address (the local sandbox).
"""

from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

from publicsuffixlist import PublicSuffixList

from ..errors import InvalidResponseError

LOOPBACK_NAMES = frozenset({"localhost"})


class DownloadRejectedError(InvalidResponseError):
    """The service named a download link the download policy does not allow."""


def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return ""


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@functools.cache
def _suffixes() -> PublicSuffixList:
    # The list bundled with the package (refreshed by its releases); nothing is fetched.
    return PublicSuffixList()


def parent_domain(host: str) -> str:
    """The registrable domain of a host name: one label under its public suffix
    (``cdn.example.com`` -> ``example.com``, ``api.x.co.uk`` -> ``x.co.uk``); "" for an
    address, a public suffix itself (``co.uk``, ``github.io``) or a name without one."""
    if not host or _is_ip(host):
        return ""
    return _suffixes().privatesuffix(host) or ""


@dataclass(frozen=True)
class DownloadPolicy:
    base_url: str
    download_url: str = ""
    allowed_hosts: tuple[str, ...] = ()
    allow_http: bool = False

    @property
    def http_allowed(self) -> bool:
        if self.allow_http:
            return True
        parts = urlsplit(self.base_url)
        return parts.scheme == "http" and is_loopback(_host(self.base_url))

    def host_allowed(self, host: str) -> bool:
        api_host = _host(self.base_url)
        if host and host in (api_host, _host(self.download_url)):
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
        scheme, host = parts.scheme.lower(), _host(url)
        if scheme not in ("https", "http") or not host:
            raise DownloadRejectedError(
                f"the service sent a download link with scheme {scheme or 'none'!r} and no "
                "usable host; only https links (http with allow_http_downloads) are fetched"
            )
        if scheme == "http" and not self.http_allowed:
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
