/* sort.js - click a column head of a table.sortable (or focus it and press
   Enter or Space) to sort its rows; a second time reverses. Numbers (with a leading sign, decimals, or a
   trailing unit) sort as numbers, the rest as text; "–" (unknown) sorts
   last. The tables are complete without it: JavaScript only reorders. */
(function () {
  "use strict";
  function key(cell) {
    var t = (cell.getAttribute("data-v") || cell.textContent || "").trim();
    var m = /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(t.replace(/,/g, ""));
    if (m && m[0].length > 0) return { n: parseFloat(m[0]), s: t };
    return { n: null, s: t };
  }
  function compare(a, b) {
    if (a.s === "\u2013" || a.s === "") return b.s === "\u2013" || b.s === "" ? 0 : 1;
    if (b.s === "\u2013" || b.s === "") return -1;
    if (a.n !== null && b.n !== null) return a.n - b.n;
    return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    if (!body) return;
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) heads[i].removeAttribute("aria-sort");
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (r, i) {
      var c = r.cells[col];
      return { r: r, k: c ? key(c) : { n: null, s: "" }, i: i };
    });
    keyed.sort(function (x, y) {
      var d = compare(x.k, y.k);
      if (d === 0) return x.i - y.i;
      return asc ? d : -d;
    });
    keyed.forEach(function (x) { body.appendChild(x.r); });
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    if (!table.tHead || !table.tHead.rows.length) return;
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.setAttribute("title", "sort by this column");
      /* reachable and usable from the keyboard: Tab to the head, Enter or Space sorts */
      th.setAttribute("tabindex", "0");
      th.addEventListener("click", function () { sortBy(table, col, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          sortBy(table, col, th);
        }
      });
    });
  });
})();
