// Every table with class "sortable": click a header to sort by that column (numbers as numbers,
// again to reverse), type in the box above it to show only the rows containing the text. A table whose
// data-toggles names "failing" or "changed" also gets a checkbox for each: "only failing" and "only what
// changed" show only the rows whose data-failing or data-changed is 1.
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
    var toggles = (table.getAttribute("data-toggles") || "").split(" ").filter(Boolean);
    var only = {};
    function apply() {
      var wanted = filter.value.toLowerCase();
      Array.prototype.forEach.call(body.rows, function (row) {
        var shown = row.textContent.toLowerCase().indexOf(wanted) >= 0;
        toggles.forEach(function (name) {
          if (only[name] && row.getAttribute("data-" + name) !== "1") { shown = false; }
        });
        row.style.display = shown ? "" : "none";
      });
    }
    toggles.forEach(function (name) {
      var label = document.createElement("label");
      var box = document.createElement("input");
      box.type = "checkbox";
      box.className = "only-" + name;
      box.addEventListener("change", function () { only[name] = box.checked; apply(); });
      label.appendChild(box);
      label.appendChild(document.createTextNode(name === "failing" ? " only failing " : " only what changed "));
      table.parentNode.insertBefore(label, table);
    });
    filter.addEventListener("input", apply);
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
