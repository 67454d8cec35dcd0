// The PDF of the whole book (issue 33). `make pdf` writes book/_build/pdf/book.pdf, outside this HTML book, and
// beside it book-pdf.js (window.COMPENDIUM_PDF: its pages and bytes) once the PDF passed its checks
// (src/compendium/book/pdf.py). The footer's mention [data-compendium-pdf] names both files' addresses relative to
// the page (src/compendium/book/sphinx_chrome.py). This script loads book-pdf.js with a <script> element, which
// works from file:// too (fetch does not): if it loads, the mention and the download menu's ".pdf" entry become
// links to the PDF; if it does not (not built, or the book is served on its own), both say that the PDF is not
// built. So the book never shows a link to a PDF that is not there.
(function () {
  var state = { pdf: null, url: null };
  var NOT_BUILT = "make pdf writes it to book/_build/pdf/book.pdf";

  window.compendiumPdf = function () {
    if (state.pdf && state.url) { window.location.href = state.url; }
  };

  function size(info) {
    var pages = Number(info.pages), mb = Number(info.bytes) / 1e6;
    var parts = [];
    if (isFinite(pages) && pages > 0) { parts.push(pages + " pages"); }
    if (isFinite(mb) && mb > 0) { parts.push(mb.toFixed(1) + " MB"); }
    return parts.length ? " (" + parts.join(", ") + ")" : "";
  }

  function code(text) {
    var c = document.createElement("code");
    c.textContent = text;
    return c;
  }

  function show(holder, info) {
    holder.textContent = "";
    if (info) {
      var a = document.createElement("a");
      a.href = state.url;
      a.textContent = "The whole book as one PDF";
      holder.appendChild(a);
      holder.appendChild(document.createTextNode(size(info)));
    } else {
      holder.appendChild(document.createTextNode("The PDF of the whole book is not built: "));
      holder.appendChild(code("make pdf"));
      holder.appendChild(document.createTextNode(" writes it to "));
      holder.appendChild(code("book/_build/pdf/book.pdf"));
      holder.appendChild(document.createTextNode("."));
    }
    holder.setAttribute("data-compendium-pdf-state", info ? "built" : "not-built");
  }

  function menu(info) {
    document.querySelectorAll("button.btn-download-pdf-button").forEach(function (b) {
      var text = b.querySelector(".btn__text-container");
      if (info) {
        var a = document.createElement("a");
        a.href = state.url;
        a.className = b.className;
        a.title = "The whole book as one PDF" + size(info);
        a.innerHTML = b.innerHTML;  // the theme's own icon and label (no text from any file)
        b.replaceWith(a);
      } else {
        b.disabled = true;
        b.title = "The PDF of the whole book is not built: " + NOT_BUILT;
        b.setAttribute("data-bs-original-title", b.title);
        if (text) { text.textContent = ".pdf (not built)"; }
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var holders = document.querySelectorAll("[data-compendium-pdf]");
    if (!holders.length) { return; }
    state.url = holders[0].getAttribute("data-compendium-pdf");
    var done = function (info) {
      state.pdf = info;
      holders.forEach(function (h) { show(h, info); });
      menu(info);
    };
    var s = document.createElement("script");
    s.src = holders[0].getAttribute("data-compendium-pdf-info");
    s.onload = function () { done(window.COMPENDIUM_PDF || null); };
    s.onerror = function () { done(null); };
    document.head.appendChild(s);
  });
})();
