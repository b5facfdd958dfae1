"""``mediashortcodes serve``: the site built, served on 127.0.0.1, rebuilt on every save and
reloaded in the open tabs (docs/serve.md).

- :mod:`.session`: the loop: a server, a watcher, rebuilds, until Ctrl-C.
- :mod:`.rebuild`: one rebuild through the builder: the edited pages, or the whole site.
- :mod:`.server`, :mod:`.files`, :mod:`.channel`, ``live.js``: what the browser gets.
- :mod:`.watcher`: the site's sources, watched with watchfiles.
- :mod:`.player`: a sandbox site's film player, on the address its pages embed.
"""

LOOPBACK = "127.0.0.1"  # where serve listens unless --bind says otherwise
