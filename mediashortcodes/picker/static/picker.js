// The picker page. It talks only to the local server (same origin); the server holds the
// credentials and calls the service. Every visible string comes from the locale's messages.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const state = {
    t: {},            // the locale's messages
    defaultEmbed: "iframe",
    formats: [],
    folder: null,     // id of the folder shown
    files: [],
    file: null,       // the chosen file's summary
    crop: null,       // {x1, y1, x2, y2} on the preview as displayed
    altEdited: false, // an alt text the user has not touched is the service's: none is sent
    retry: null,      // repeats the listing that failed
    seq: 0,           // ignores answers to superseded shortcode requests
    listing: 0,       // ignores listings that a newer folder click or search replaced
  };

  // -- helpers ---------------------------------------------------------------------------

  function text(key, values = {}) {
    const template = state.t[key] || key;
    return template.replace(/\{(\w+)\}/g, (_, name) => (name in values ? values[name] : ""));
  }

  function el(tag, attrs = {}, children = []) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (name === "text") node.textContent = value;
      else if (name === "class") node.className = value;
      else if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value);
    }
    for (const child of children) node.append(child);
    return node;
  }

  async function api(path, options = {}) {
    const response = await fetch(path, { credentials: "same-origin", ...options });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
    return data;
  }

  function showError(error) {
    const status = $("status");
    status.textContent = text("error", { message: error.message || String(error) });
    status.hidden = false;
  }

  function clearError() {
    $("status").hidden = true;
  }

  // What a one-line field can show of a text: line breaks and tabs as single spaces (an
  // <input> would silently drop the line breaks, gluing the words together).
  function oneLine(value) {
    return (value || "").split(/\s+/).filter(Boolean).join(" ");
  }

  function applyMessages() {
    document.title = text("title");
    for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = text(node.dataset.i18n);
    for (const node of document.querySelectorAll("[data-i18n-placeholder]")) {
      node.placeholder = text(node.dataset.i18nPlaceholder);
    }
    for (const node of document.querySelectorAll("[data-i18n-label]")) {
      node.setAttribute("aria-label", text(node.dataset.i18nLabel));
    }
    $("embed-preview").title = text("preview");
  }

  // -- folder tree -----------------------------------------------------------------------

  function renderTree(nodes) {
    const tree = $("tree");
    tree.replaceChildren();
    if (!nodes.length) {
      tree.append(el("li", { class: "hint", text: text("no_folders") }));
      return;
    }
    for (const node of nodes) tree.append(treeItem(node));
  }

  function treeItem(node) {
    const hasChildren = node.children.length > 0;
    const item = el("li", {
      role: "treeitem",
      class: node.separator ? "separator" : "",
      "aria-expanded": hasChildren ? "false" : null,
    });
    const label = node.archived ? `${node.name} (${text("archived")})` : node.name;
    const folder = el("button", {
      type: "button",
      class: node.archived ? "folder archived" : "folder",
      "data-folder": String(node.id),
      title: label,
      text: label,
    });
    folder.addEventListener("click", () => openFolder(node.id, node.name));
    const row = el("div", { class: "node" });
    if (hasChildren) {
      const toggle = el("button", {
        type: "button",
        class: "toggle",
        "aria-label": text("subfolders", { name: node.name }),
        "aria-expanded": "false",
        text: "▸",
      });
      const group = el("ul", { role: "group", hidden: "" });
      for (const child of node.children) group.append(treeItem(child));
      toggle.addEventListener("click", () => {
        const open = item.getAttribute("aria-expanded") !== "true";
        item.setAttribute("aria-expanded", String(open));
        toggle.setAttribute("aria-expanded", String(open));
        toggle.textContent = open ? "▾" : "▸";
        group.hidden = !open;
      });
      row.append(toggle, folder);
      item.append(row, group);
    } else {
      row.append(el("span", { class: "spacer" }), folder);
      item.append(row);
    }
    return item;
  }

  // -- file grid -------------------------------------------------------------------------

  async function openFolder(id, name) {
    state.folder = id;
    for (const button of document.querySelectorAll(".tree .folder")) {
      button.setAttribute("aria-current", String(button.dataset.folder === String(id)));
    }
    await list(name, `/api/files?folder=${encodeURIComponent(id)}`, () => openFolder(id, name));
  }

  async function search(query) {
    const heading = text("search_results", { query });
    await list(heading, `/api/search?q=${encodeURIComponent(query)}`, () => search(query));
  }

  async function list(heading, path, again) {
    clearError();
    const listing = showLoading(heading);
    try {
      const files = await api(path);
      if (listing === state.listing) showFiles(heading, files);
    } catch (error) {
      if (listing !== state.listing) return;
      showError(error);
      // The pane must not keep saying "Loading…": say it failed and offer to try again.
      state.retry = again;
      $("files-empty").textContent = text("files_failed");
      $("files-retry").hidden = false;
    }
  }

  function showLoading(heading) {
    $("files-title").textContent = heading;
    $("grid").replaceChildren();
    $("files-empty").textContent = text("loading");
    $("files-empty").hidden = false;
    $("files-retry").hidden = true;
    return ++state.listing;
  }

  function showFiles(heading, files) {
    state.files = files;
    $("files-title").textContent = heading;
    $("files-empty").textContent = text("no_files");
    $("files-empty").hidden = files.length > 0;
    $("grid").replaceChildren(...files.map(fileCard));
  }

  function fileCard(file) {
    const thumb = file.has_preview
      ? el("img", { class: "thumb", src: `/api/preview/${file.id}/thumb`, alt: "", loading: "lazy" })
      : el("div", { class: "thumb", text: file.extension || file.kind });
    const card = el("button", {
      type: "button",
      class: "card",
      "data-file": String(file.id),
      "aria-pressed": "false",
      title: file.filename || file.name,
    }, [thumb, el("span", { class: "name", text: file.name })]);
    if (file.kind === "video") card.append(el("span", { class: "badge", text: text("video") }));
    card.addEventListener("click", () => chooseFile(file));
    return card;
  }

  // -- detail pane -----------------------------------------------------------------------

  function chooseFile(file) {
    state.file = file;
    state.crop = null;
    for (const card of document.querySelectorAll(".card")) {
      card.setAttribute("aria-pressed", String(card.dataset.file === String(file.id)));
    }
    $("detail-empty").hidden = true;
    $("detail-body").hidden = false;
    $("detail-name").textContent = file.name;
    $("detail-meta").textContent = [file.filename, file.description].filter(Boolean).join(" · ");
    $("copy-status").textContent = "";
    const isVideo = file.kind === "video";
    $("image-options").hidden = isVideo;
    $("video-options").hidden = !isVideo;
    if (isVideo) {
      $("preview").removeAttribute("src");
      for (const radio of document.querySelectorAll('input[name="embed"]')) {
        radio.checked = radio.value === state.defaultEmbed;
      }
      showEmbed();
    } else {
      $("embed-preview").removeAttribute("src");
      $("format").value = "original";
      $("alt").value = oneLine(file.alttext);
      state.altEdited = false;
      $("preview").src = file.has_preview ? `/api/preview/${file.id}/small` : "";
      onFormatChange();
    }
    updateShortcode();
  }

  function chosenEmbed() {
    const checked = document.querySelector('input[name="embed"]:checked');
    return checked ? checked.value : state.defaultEmbed;
  }

  function showEmbed() {
    const file = state.file;
    $("embed-preview").src = `/api/embed?file=${file.id}&embed=${encodeURIComponent(chosenEmbed())}`;
  }

  function fillFormats() {
    const format = $("format");
    format.replaceChildren(el("option", { value: "original", text: text("format_original") }));
    const aspect = $("aspect");
    aspect.replaceChildren(el("option", { value: "", text: text("aspect_free") }));
    for (const f of state.formats) {
      const size = f.width && f.height ? ` (${f.width}×${f.height})` : "";
      format.append(el("option", { value: String(f.id), text: f.name + size }));
      if (f.width && f.height) aspect.append(el("option", { value: String(f.id), text: f.name + size }));
    }
    format.append(el("option", { value: "custom", text: text("format_custom") }));
  }

  function isCustom() {
    return $("format").value === "custom";
  }

  function onFormatChange() {
    const custom = isCustom();
    $("crop-options").hidden = !custom;
    $("crop-hint").hidden = !custom;
    $("output-size").hidden = !custom;
    $("widths-options").hidden = !(custom || $("format").value === "original");
    $("stage").classList.toggle("cropping", custom);
    if (!custom) state.crop = null;
    onAspectChange();
  }

  function aspectFormat() {
    const id = $("aspect").value;
    return state.formats.find((f) => String(f.id) === id) || null;
  }

  function onAspectChange() {
    const f = aspectFormat();
    if (f) {
      $("out-w").value = f.width;
      $("out-h").value = f.height;
      if (state.crop) state.crop = fitAspect(state.crop, f.width / f.height);
    } else if (!$("out-w").value) {
      $("out-w").value = 1200;
    }
    syncOutputHeight("w");
    drawCrop();
    updateShortcode();
  }

  // -- crop drawing ----------------------------------------------------------------------

  function surface() {
    const img = $("preview");
    return { w: Math.round(img.clientWidth), h: Math.round(img.clientHeight) };
  }

  function ratio() {
    const f = aspectFormat();
    return f ? f.width / f.height : null;
  }

  function clamp(value, low, high) {
    return Math.min(Math.max(value, low), high);
  }

  // A rectangle from an anchor towards a point, with the aspect ratio held if one is set.
  function spanRect(ax, ay, px, py, aspect) {
    const s = surface();
    let w = Math.abs(px - ax);
    let h = Math.abs(py - ay);
    const maxW = px >= ax ? s.w - ax : ax;
    const maxH = py >= ay ? s.h - ay : ay;
    if (aspect) {
      if (w / aspect > h) h = w / aspect; else w = h * aspect;
      if (w > maxW) { w = maxW; h = w / aspect; }
      if (h > maxH) { h = maxH; w = h * aspect; }
    } else {
      w = Math.min(w, maxW);
      h = Math.min(h, maxH);
    }
    const x1 = px >= ax ? ax : ax - w;
    const y1 = py >= ay ? ay : ay - h;
    return { x1, y1, x2: x1 + w, y2: y1 + h };
  }

  // The largest rectangle of the new aspect centred on the old one.
  function fitAspect(rect, aspect) {
    const s = surface();
    const cx = (rect.x1 + rect.x2) / 2;
    const cy = (rect.y1 + rect.y2) / 2;
    let w = rect.x2 - rect.x1;
    let h = w / aspect;
    if (h > s.h) { h = s.h; w = h * aspect; }
    if (w > s.w) { w = s.w; h = w / aspect; }
    const x1 = clamp(cx - w / 2, 0, s.w - w);
    const y1 = clamp(cy - h / 2, 0, s.h - h);
    return { x1, y1, x2: x1 + w, y2: y1 + h };
  }

  function pointIn(event) {
    const box = $("preview").getBoundingClientRect();
    const s = surface();
    return { x: clamp(event.clientX - box.left, 0, s.w), y: clamp(event.clientY - box.top, 0, s.h) };
  }

  function drawCrop() {
    const rect = $("crop-rect");
    const crop = state.crop;
    rect.hidden = !(isCustom() && crop);
    if (rect.hidden) return;
    rect.style.left = `${crop.x1}px`;
    rect.style.top = `${crop.y1}px`;
    rect.style.width = `${crop.x2 - crop.x1}px`;
    rect.style.height = `${crop.y2 - crop.y1}px`;
  }

  function setupCropping() {
    const stage = $("stage");
    let drag = null;
    stage.addEventListener("pointerdown", (event) => {
      if (!isCustom() || !state.file || event.button !== 0) return;
      event.preventDefault();
      const p = pointIn(event);
      const c = state.crop;
      const inside = c && p.x > c.x1 && p.x < c.x2 && p.y > c.y1 && p.y < c.y2;
      drag = inside ? { mode: "move", from: p, start: { ...c } } : { mode: "draw", from: p };
      stage.setPointerCapture(event.pointerId);
    });
    stage.addEventListener("pointermove", (event) => {
      if (!drag) return;
      const p = pointIn(event);
      if (drag.mode === "move") {
        const s = surface();
        const w = drag.start.x2 - drag.start.x1;
        const h = drag.start.y2 - drag.start.y1;
        const x1 = clamp(drag.start.x1 + p.x - drag.from.x, 0, s.w - w);
        const y1 = clamp(drag.start.y1 + p.y - drag.from.y, 0, s.h - h);
        state.crop = { x1, y1, x2: x1 + w, y2: y1 + h };
      } else {
        state.crop = spanRect(drag.from.x, drag.from.y, p.x, p.y, ratio());
      }
      drawCrop();
    });
    const finish = (event) => {
      if (!drag) return;
      drag = null;
      stage.releasePointerCapture(event.pointerId);
      const c = state.crop;
      if (c && (c.x2 - c.x1 < 2 || c.y2 - c.y1 < 2)) state.crop = null;  // a click, not a drag
      drawCrop();
      syncOutputHeight("w");
      updateShortcode();
    };
    stage.addEventListener("pointerup", finish);
    stage.addEventListener("pointercancel", finish);
  }

  // Keeps the output size in the crop's proportions (a format's, when one fixes them).
  function syncOutputHeight(changed) {
    const c = state.crop;
    const f = aspectFormat();
    if (!c && !f) return;
    const r = f ? f.width / f.height : (c.x2 - c.x1) / (c.y2 - c.y1);
    const w = Number($("out-w").value);
    const h = Number($("out-h").value);
    if (changed === "w" && w > 0) $("out-h").value = Math.max(1, Math.round(w / r));
    if (changed === "h" && h > 0) $("out-w").value = Math.max(1, Math.round(h * r));
  }

  function cropRequest() {
    const c = state.crop;
    if (!c) return null;
    const s = surface();
    const x1 = Math.round(c.x1), x2 = Math.round(c.x2);
    const y1 = Math.round(c.y1), y2 = Math.round(c.y2);
    if (x2 <= x1 || y2 <= y1) return null;
    return {
      w: Math.round(Number($("out-w").value)),
      h: Math.round(Number($("out-h").value)),
      sw: s.w, sh: s.h,
      x1: clamp(x1, 0, s.w), x2: clamp(x2, 0, s.w),
      y1: clamp(y1, 0, s.h), y2: clamp(y2, 0, s.h),
      // The drawn rectangle has the format's proportions up to a pixel: ask for exactly w x h.
      stretch: aspectFormat() !== null,
    };
  }

  // -- shortcode -------------------------------------------------------------------------

  function setShortcode(value, message = "") {
    $("shortcode").value = value;
    $("copy").disabled = !value;
    $("copy-status").textContent = message;
  }

  async function updateShortcode() {
    const file = state.file;
    if (!file) return;
    const choice = { file: file.id };
    if (file.kind === "video") {
      choice.embed = chosenEmbed();
      if ($("load-click").checked) choice.load = "click";
    } else {
      choice.format = $("format").value;
      // Responsive widths scale the original or a custom crop, never a predefined format.
      if (!$("widths-options").hidden) choice.widths = $("widths").value.trim();
      if ($("formats").value) choice.formats = $("formats").value;
      if ($("priority").checked) choice.priority = true;
      // Untouched, the alt text stays out of the shortcode so the service's own applies.
      if (state.altEdited) choice.alt = $("alt").value;
      if (isCustom()) {
        choice.crop = cropRequest();
        if (!choice.crop) {
          setShortcode("", text("crop_missing"));
          return;
        }
      }
    }
    const seq = ++state.seq;
    try {
      const data = await api("/api/shortcode", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(choice),
      });
      if (seq === state.seq) setShortcode(data.shortcode);
    } catch (error) {
      if (seq === state.seq) setShortcode("", text("error", { message: error.message }));
    }
  }

  async function copyShortcode() {
    const field = $("shortcode");
    const value = field.value;
    if (!value) return;
    let copied = false;
    try {
      await navigator.clipboard.writeText(value);
      copied = true;
    } catch (_) {
      field.focus();
      field.select();
      try { copied = document.execCommand("copy"); } catch (_) { copied = false; }
    }
    $("copy-status").textContent = copied ? text("copied") : text("copy_failed");
    if (!copied) field.select();
  }

  // -- start -----------------------------------------------------------------------------

  function wire() {
    $("search").addEventListener("submit", (event) => {
      event.preventDefault();
      const query = $("search-input").value.trim();
      if (query) search(query);
    });
    $("format").addEventListener("change", onFormatChange);
    $("aspect").addEventListener("change", onAspectChange);
    $("out-w").addEventListener("input", () => { syncOutputHeight("w"); updateShortcode(); });
    $("out-h").addEventListener("input", () => { syncOutputHeight("h"); updateShortcode(); });
    $("alt").addEventListener("input", () => { state.altEdited = true; updateShortcode(); });
    $("widths").addEventListener("input", updateShortcode);
    $("formats").addEventListener("change", updateShortcode);
    $("priority").addEventListener("change", updateShortcode);
    $("load-click").addEventListener("change", updateShortcode);
    $("files-retry").addEventListener("click", () => { if (state.retry) state.retry(); });
    $("tree-retry").addEventListener("click", loadLibrary);
    for (const radio of document.querySelectorAll('input[name="embed"]')) {
      radio.addEventListener("change", () => { showEmbed(); updateShortcode(); });
    }
    $("copy").addEventListener("click", copyShortcode);
    $("shortcode").addEventListener("focus", () => $("shortcode").select());
    // The preview's displayed size is the crop surface: a new size invalidates the rectangle.
    new ResizeObserver(() => {
      if (state.crop) { state.crop = null; drawCrop(); updateShortcode(); }
    }).observe($("preview"));
    setupCropping();
  }

  // The folders and the formats; on failure the tree says so and offers to try again.
  async function loadLibrary() {
    clearError();
    $("tree-failed").hidden = true;
    $("tree").replaceChildren(el("li", { class: "hint", text: text("loading") }));
    try {
      const [folders, formats] = await Promise.all([api("/api/folders"), api("/api/formats")]);
      state.formats = formats;
      fillFormats();
      renderTree(folders);
      document.body.dataset.ready = "true";
    } catch (error) {
      $("tree").replaceChildren();
      $("tree-failed").hidden = false;
      showError(error);
    }
  }

  async function start() {
    wire();
    try {
      const session = await api("/api/session");
      state.t = session.messages;
      state.defaultEmbed = session.default_embed;
      applyMessages();
    } catch (error) {
      showError(error);
      return;
    }
    await loadLibrary();
  }

  start();
})();
