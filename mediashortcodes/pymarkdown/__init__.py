"""Python-Markdown extension (MkDocs, Zensical, Pelican, any ``markdown.Markdown``).

::

    import markdown
    from mediashortcodes.pymarkdown import MediaShortcodesExtension

    md = markdown.Markdown(extensions=[MediaShortcodesExtension()])
    md.convert(text); md.mediashortcodes.shortcodes, md.mediashortcodes.problems

In ``mkdocs.yml`` (Zensical): ``markdown_extensions: [mediashortcodes.pymarkdown]``.
"""

from .extension import MediaShortcodesExtension, ShortcodesDocument, makeExtension

__all__ = ["MediaShortcodesExtension", "ShortcodesDocument", "makeExtension"]
