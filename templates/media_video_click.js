/* mediashortcodes load="click": see docs/shortcodes.md. No inline script needed (a CSP
   without 'unsafe-inline' holds): a script embed's player is built here, from data-player*. */
(function (d, w) {
  if (w.mediashortcodesClick) return;
  w.mediashortcodesClick = 1;
  var KEY = "mediashortcodes-video-consent";
  function all(s) { return d.querySelectorAll(s); }
  function store(yes) {
    try { if (yes) w.localStorage.setItem(KEY, "1"); else w.localStorage.removeItem(KEY); }
    catch (e) {}
  }
  function remembered() {
    try { return w.localStorage.getItem(KEY) === "1"; } catch (e) { return false; }
  }
  function offer() {
    var forget = all("[data-mediashortcodes-forget]");
    for (var i = 0; i < forget.length; i++) {
      forget[i].hidden = false;
      forget[i].onclick = function () { store(false); w.location.reload(); };
    }
  }
  function find(tag, attr, url) {
    var nodes = d.getElementsByTagName(tag);
    for (var i = 0; i < nodes.length; i++) if (nodes[i].getAttribute(attr) === url) return nodes[i];
  }
  function add(tag, attrs) {
    var node = d.createElement(tag);
    for (var name in attrs) node.setAttribute(name, attrs[name]);
    return d.head.appendChild(node);
  }
  function construct(p) { // the script embed's stylesheet and script once a page
    var lang = p.language;
    function start() {
      new w[p.player](p.playerElement, p.mediaId, {defaultLanguage: lang, displayLanguage: lang});
    }
    var css = p.playerStylesheet, js = p.playerScript;
    if (!find("link", "href", css)) add("link", {rel: "stylesheet", type: "text/css", href: css});
    if (typeof w[p.player] === "function") return start();
    var s = find("script", "src", js) || add("script", {src: js, crossorigin: "anonymous"});
    s.addEventListener("load", start);
  }
  function load(box, focus) {
    var content = box.querySelector("template").content.cloneNode(true), p = box.dataset;
    var old = content.querySelectorAll("script");
    for (var i = 0; i < old.length; i++) {
      if (p.player) { old[i].remove(); continue; } // its player is constructed below
      var s = d.createElement("script"), a = old[i].attributes;
      for (var j = 0; j < a.length; j++) s.setAttribute(a[j].name, a[j].value);
      s.text = old[i].text; // a template's own scripts never run: new ones do
      old[i].parentNode.replaceChild(s, old[i]);
    }
    var frame = content.querySelector("iframe");
    box.parentNode.replaceChild(content, box);
    if (p.player) construct(p);
    if (focus && frame) frame.focus();
  }
  function start() {
    var boxes = all("[data-mediashortcodes-click]"), known = remembered();
    for (var i = 0; i < boxes.length; i++) (function (box) {
      var remember = box.hasAttribute("data-remember");
      if (remember && known) return load(box, false);
      var button = box.querySelector("button");
      button.hidden = false;
      button.onclick = function () {
        if (remember) { store(true); offer(); }
        load(box, true);
      };
    })(boxes[i]);
    if (known) offer();
  }
  if (d.readyState === "loading") d.addEventListener("DOMContentLoaded", start); else start();
})(document, window);
