"""Shortcodes for images and videos kept in the Media Asset Service.

Authors write ``<% media_image 123 %>`` or ``<% media_video 456 %>``; at build time the
package resolves them against the service, downloads images into the site, renders video
embeds and reports on which page each file is used.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mediashortcodes")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

__all__ = ["__version__"]
