// Accessibility fixes of the theme's own controls (WCAG 2.5.3 "Label in Name", found by axe-core in the
// browser check, src/compendium/book/browsercheck.py). The search field shows "Search Ctrl+K" but was named
// "Search" by aria-label; the colour-mode button showed an icon whose title differed from its aria-label.
// Both are named by their content instead, and the colour-mode button gets that name as hidden text.
// The bibliography (docutils) marks each entry with the deprecated ARIA role doc-biblioentry inside a
// role="list": the entries become list items (WCAG 4.1.2; axe: aria-deprecated-role, aria-required-children).
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll('[role="doc-biblioentry"]').forEach(function (e) {
    e.setAttribute("role", "listitem");
  });
  document.querySelectorAll("button.search-button-field[aria-label]").forEach(function (b) {
    b.removeAttribute("aria-label");
  });
  document.querySelectorAll("button.theme-switch-button[aria-label]").forEach(function (b) {
    var name = b.getAttribute("aria-label");
    b.removeAttribute("aria-label");
    b.querySelectorAll("i.theme-switch").forEach(function (i) {
      i.setAttribute("aria-hidden", "true");
      i.removeAttribute("title");
    });
    var span = document.createElement("span");
    span.className = "visually-hidden";
    span.textContent = name;
    b.appendChild(span);
  });
});

// A region that scrolls sideways (a wide table) must be reachable by keyboard (WCAG 2.1.1; axe:
// scrollable-region-focusable): it becomes focusable. A box with content-visibility:auto (the claims
// tables) is not laid out until it is near the viewport, so its overflow cannot be measured: it counts
// as scrollable when its style lets it scroll.
window.addEventListener("load", function () {
  document.querySelectorAll("main div, main pre").forEach(function (el) {
    var st = window.getComputedStyle(el);
    var x = /(auto|scroll)/.test(st.overflowX), y = /(auto|scroll)/.test(st.overflowY);
    if (!x && !y) { return; }
    var scrolls = (x && el.scrollWidth > el.clientWidth + 1) || (y && el.scrollHeight > el.clientHeight + 1) ||
                  st.contentVisibility === "auto";
    if (scrolls && !el.hasAttribute("tabindex")) { el.setAttribute("tabindex", "0"); }
  });
});
