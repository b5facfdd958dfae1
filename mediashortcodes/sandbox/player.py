"""The media host's static files: a tiny working video player and its page (pure text).

``mediaflowplayer.min.js`` defines ``MFPlayer(elementId, mediaId, options)``, the
constructor the script embed of the spec calls; it renders the player page of
``/ovp/11/<mediaId>`` in a 16:9 frame. There is no real video: the page shows the poster,
the title and a play button, enough to see that an embed works.
"""

from __future__ import annotations

from html import escape

PLAYER_SCRIPT = """\
(function () {
  var script = document.currentScript;
  var origin = script && script.src ? new URL(script.src).origin : "";
  function MFPlayer(element, mediaId, options) {
    if (!(this instanceof MFPlayer)) { return new MFPlayer(element, mediaId, options); }
    var target = typeof element === "string" ? document.getElementById(element) : element;
    if (!target) { throw new Error("MFPlayer: no element with id " + element); }
    options = options || {};
    var lang = options.displayLanguage || options.defaultLanguage || "en";
    var box = document.createElement("div");
    box.className = "mfp-box";
    box.style.cssText = "position:relative;width:100%;padding-top:56.25%;overflow:hidden";
    var frame = document.createElement("iframe");
    frame.className = "mfp-frame";
    frame.title = "Video " + mediaId;
    frame.src = origin + "/ovp/11/" + encodeURIComponent(mediaId) +
      "?lang=" + encodeURIComponent(lang);
    frame.setAttribute("frameborder", "0");
    frame.setAttribute("allowfullscreen", "true");
    frame.setAttribute("allow", "autoplay;encrypted-media;picture-in-picture");
    frame.style.cssText = "position:absolute;top:0;left:0;width:100%;height:100%;border:0";
    box.appendChild(frame);
    target.innerHTML = "";
    target.appendChild(box);
    target.setAttribute("data-mfp-media-id", mediaId);
    this.element = target;
    this.mediaId = mediaId;
    this.options = options;
  }
  window.MFPlayer = MFPlayer;
})();
"""

PLAYER_STYLESHEET = """\
.mfp-box{position:relative;width:100%;padding-top:56.25%;overflow:hidden;background:#000}
.mfp-frame{position:absolute;top:0;left:0;width:100%;height:100%;border:0}
"""

STATIC_FILES: dict[str, tuple[str, str]] = {
    "/js/mediaflowplayer.min.js": (PLAYER_SCRIPT, "application/javascript; charset=utf-8"),
    "/css/mediaflowplayer.min.css": (PLAYER_STYLESHEET, "text/css; charset=utf-8"),
}

_PLAY = {"sv": "Spela upp", "en": "Play", "fi": "Toista", "no": "Spill av", "nb": "Spill av"}

_PAGE = """\
<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
html,body{{margin:0;height:100%;background:#111;color:#eee;font:16px system-ui,sans-serif}}
.player{{position:relative;width:100%;height:100%;background:#222 url("{poster}") center/cover}}
.bar{{position:absolute;left:0;right:0;bottom:0;padding:.6em 1em;background:rgba(0,0,0,.6)}}
button{{position:absolute;top:50%;left:50%;transform:translate(-50%,-50%);font-size:1.2em;
padding:.6em 1.4em;border:0;border-radius:2em;background:#e33;color:#fff;cursor:pointer}}
.playing button{{display:none}}
.playing .bar::after{{content:"";display:block;height:4px;margin-top:.4em;background:#e33;
animation:progress 10s linear forwards}}
@keyframes progress{{from{{width:0}}to{{width:100%}}}}
</style>
</head>
<body>
<div class="player" id="player" data-media-id="{media_id}">
<button type="button" onclick="this.parentNode.className+=' playing'">▶ {play}</button>
<div class="bar">{title}</div>
</div>
</body>
</html>
"""


def player_page(media_id: str, title: str, poster_url: str, lang: str) -> str:
    """The page ``/ovp/11/<mediaId>`` shows inside the embed's iframe."""
    language = lang if lang in _PLAY else "en"
    return _PAGE.format(
        lang=language,
        title=escape(title),
        poster=escape(poster_url),
        media_id=escape(media_id),
        play=_PLAY[language],
    )


NOT_FOUND_PAGE = """\
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Video not found</title></head>
<body style="background:#111;color:#eee;font:16px system-ui,sans-serif">
<p>This video does not exist or is not published.</p></body></html>
"""
