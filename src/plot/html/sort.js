// Sorting the answer table by a column: a button in each header, added only when scripts
// run (without them the table keeps the terminal's order). A cell's data-sort, when it has
// one, is what it sorts by; else its text, by its leading number when it has one. Cells
// without a number ("-") go last either way.
(function () {
  "use strict";
  function key(row, col) {
    var cell = row.cells[col];
    var text = cell.getAttribute("data-sort");
    if (text === null) text = cell.textContent.trim();
    var n = parseFloat(text);
    return isNaN(n) ? { n: null, s: text } : { n: n, s: text };
  }
  function compare(a, b) {
    if (a.n !== null && b.n !== null) return a.n - b.n;
    if (a.n !== null) return -1;
    if (b.n !== null) return 1;
    return a.s.localeCompare(b.s, undefined, { numeric: true });
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    var body = table.tBodies[0];
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      var button = document.createElement("button");
      button.type = "button";
      button.title = "Sort by this column";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (x, y) {
          var a = key(x, col), b = key(y, col);
          // Cells without a number stay last in both directions.
          if ((a.n === null) !== (b.n === null)) return compare(a, b);
          return ascending ? compare(a, b) : compare(b, a);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
})();
