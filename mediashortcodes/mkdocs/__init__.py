"""The MkDocs plugin (``pip install "mediashortcodes[mkdocs]"``; ``plugins: [mediashortcodes]``):
:mod:`.plugin`. :mod:`.project` reads a MkDocs or Zensical project without MkDocs."""
