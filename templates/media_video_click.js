/* mediashortcodes load="click": see docs/shortcodes.md */
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
  function load(box, focus) {
    var content = box.querySelector("template").content.cloneNode(true);
    var old = content.querySelectorAll("script");
    for (var i = 0; i < old.length; i++) {
      var s = d.createElement("script"), a = old[i].attributes;
      for (var j = 0; j < a.length; j++) s.setAttribute(a[j].name, a[j].value);
      s.text = old[i].text; // a template's own scripts never run: new ones do
      old[i].parentNode.replaceChild(s, old[i]);
    }
    var frame = content.querySelector("iframe");
    box.parentNode.replaceChild(content, box);
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
