"""Any static-site generator (Hugo, Eleventy, Jekyll, ...): ``mediashortcodes finish`` reads
the shortcodes in the HTML it wrote (:mod:`.finish`), and finds where it writes (:mod:`.detect`);
Zensical's pages carry ``<mediashortcodes-ref>`` elements instead (:mod:`.zensical`).
"""
