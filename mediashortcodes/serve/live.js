// Injected by `mediashortcodes serve` into the pages it serves (never into a build's output).
// It listens to the server's reload channel: a newer build reloads the page, a failed build
// shows its problems over the page until a build succeeds again.
(function () {
  "use strict";
  var script = document.currentScript;
  var session = script ? script.getAttribute("data-session") : "";
  var version = script ? Number(script.getAttribute("data-version")) : 0;
  var OVERLAY = "mediashortcodes-overlay";

  function hide() {
    var old = document.getElementById(OVERLAY);
    if (old) old.remove();
  }

  function line(text, style) {
    var element = document.createElement("div");
    element.textContent = text; // never markup: messages quote what authors wrote
    element.setAttribute("style", style);
    return element;
  }

  function show(state) {
    hide();
    var box = document.createElement("div");
    box.id = OVERLAY;
    box.setAttribute("role", "alert");
    box.setAttribute(
      "style",
      "position:fixed;inset:0;z-index:2147483647;overflow:auto;padding:2rem;" +
        "background:rgba(20,20,24,.92);color:#fff;font:15px/1.5 ui-monospace,monospace"
    );
    box.appendChild(line("mediashortcodes serve: the last build failed; the page shows the " +
      "last good build.", "font-weight:bold;color:#ff8a80;margin-bottom:1rem"));
    box.appendChild(line(state.message, "white-space:pre-wrap;margin-bottom:1rem"));
    state.problems.forEach(function (problem) {
      var item = line("", "margin:.5rem 0;white-space:pre-wrap");
      item.className = "mediashortcodes-problem";
      var where = problem.path + (problem.line ? ":" + problem.line : "") +
        (problem.line && problem.col ? ":" + problem.col : "");
      var place = line(where, "color:#80d8ff;display:inline");
      place.className = "mediashortcodes-place";
      item.appendChild(place);
      item.appendChild(document.createTextNode(" " + problem.message));
      box.appendChild(item);
    });
    box.appendChild(line("Fix it and save: this goes away by itself.", "color:#bbb;margin-top:1rem"));
    (document.body || document.documentElement).appendChild(box);
  }

  var events = new EventSource("/__mediashortcodes/events");
  events.addEventListener("state", function (event) {
    var state = JSON.parse(event.data);
    if (state.session !== session || state.version > version) {
      if (state.version > 0) {
        events.close();
        location.reload();
        return;
      }
    }
    if (state.message) show(state);
    else hide();
  });
})();
