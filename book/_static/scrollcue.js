// A table box that scrolls sideways shows where it is cut (issue 33): while content lies beyond its right (left)
// edge it has the class compendium-cut-right (compendium-cut-left), and book/_static/custom.css fades that edge.
// Updated as the box scrolls and as the page is laid out again (load, resize, a box changing size). The browser
// check (src/compendium/book/browsercheck.py) counts a box cut at its edge without such a cue as a problem.
(function () {
  var BOXES = ".bd-article .pst-scrollable-table-container, .bd-article .table-wrapper, .bd-article .cl-wrap";
  function mark(el) {
    var over = el.scrollWidth - el.clientWidth;
    el.classList.toggle("compendium-cut-right", over > 1 && el.scrollLeft < over - 1);
    el.classList.toggle("compendium-cut-left", over > 1 && el.scrollLeft > 1);
  }
  function markAll() {
    document.querySelectorAll(BOXES).forEach(mark);
  }
  document.addEventListener("DOMContentLoaded", function () {
    var boxes = document.querySelectorAll(BOXES);
    boxes.forEach(function (el) {
      el.addEventListener("scroll", function () { mark(el); }, { passive: true });
    });
    if (window.ResizeObserver) {
      var ro = new ResizeObserver(function (entries) {
        entries.forEach(function (e) { mark(e.target); });
      });
      boxes.forEach(function (el) { ro.observe(el); });
    }
    markAll();
  });
  window.addEventListener("load", markAll);
  window.addEventListener("resize", markAll);
})();
