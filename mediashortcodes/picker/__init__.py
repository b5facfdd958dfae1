"""The author's picker: a local web page to browse the service's files and copy shortcodes.

Every service call goes through the local server, so no credential or access token ever
reaches the browser.
"""
