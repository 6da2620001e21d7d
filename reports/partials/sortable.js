// Every table with class "sortable": click a header to sort by that column (numbers as numbers,
// again to reverse), type in the box above it to show only the rows containing the text.
(function () {
  function key(cell) {
    var text = (cell ? cell.textContent : "").trim();
    var number = parseFloat(text.replace("\u2212", "-").replace("\u00b1", ""));
    return /^[\u2212+\u00b1-]?[0-9]/.test(text) && !isNaN(number) ? [0, number] : [1, text.toLowerCase()];
  }
  function compare(a, b) {
    if (a[0] !== b[0]) { return a[0] - b[0]; }
    return a[1] < b[1] ? -1 : (a[1] > b[1] ? 1 : 0);
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var body = table.tBodies[0];
    var filter = document.createElement("input");
    filter.type = "search";
    filter.placeholder = "filter rows";
    filter.className = "filter";
    filter.setAttribute("aria-label", "filter the rows of the table below");
    table.parentNode.insertBefore(filter, table);
    filter.addEventListener("input", function () {
      var wanted = filter.value.toLowerCase();
      Array.prototype.forEach.call(body.rows, function (row) {
        row.style.display = row.textContent.toLowerCase().indexOf(wanted) >= 0 ? "" : "none";
      });
    });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      header.classList.add("sort");
      header.addEventListener("click", function () {
        var ascending = header.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
        header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var order = compare(key(a.cells[column]), key(b.cells[column]));
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();
