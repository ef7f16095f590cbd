(function () {
  "use strict";
  // Filters (dialect, operator, verdict) over the matrix rows and failure groups, and the matrix's
  // order: worst first as rendered, or by name. Every row carries both of its ranks, so reordering
  // needs nothing but the page itself.
  var ids = ["dialect", "operator", "verdict"];
  var sel = {};
  ids.forEach(function (k) { sel[k] = document.getElementById("f-" + k); });

  function matches(el, want) {
    if (want.dialect && el.getAttribute("data-dialect") !== want.dialect) { return false; }
    if (want.operator && el.getAttribute("data-operator") !== want.operator) { return false; }
    if (want.verdict) {
      var present = " " + (el.getAttribute("data-verdicts") || "") + " ";
      if (present.indexOf(" " + want.verdict + " ") < 0) { return false; }
    }
    return true;
  }

  function apply() {
    var want = {};
    ids.forEach(function (k) { want[k] = sel[k].value; });
    var shown = 0;
    var total = 0;
    document.querySelectorAll("[data-filter]").forEach(function (el) {
      var ok = matches(el, want);
      el.hidden = !ok;
      if (el.hasAttribute("data-worst-rank")) {
        total += 1;
        if (ok) { shown += 1; }
      }
    });
    document.getElementById("f-count").textContent = shown + " of " + total + " spec versions shown";
  }

  ids.forEach(function (k) { sel[k].addEventListener("change", apply); });
  document.getElementById("f-reset").addEventListener("click", function () {
    ids.forEach(function (k) { sel[k].value = ""; });
    apply();
  });

  var table = document.querySelector("table.matrix");
  var toggle = document.getElementById("sort-toggle");
  var note = document.getElementById("sort-note");
  var worstNote = note.textContent;

  function order(by) {
    var body = table.tBodies[0];
    var attr = by === "name" ? "data-name-rank" : "data-worst-rank";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) { return Number(a.getAttribute(attr)) - Number(b.getAttribute(attr)); });
    var frag = document.createDocumentFragment();
    rows.forEach(function (r) { frag.appendChild(r); });
    body.appendChild(frag);
    table.setAttribute("data-order", by);
    toggle.textContent = by === "name" ? "sort worst first" : "sort by name";
    toggle.setAttribute("aria-pressed", by === "name" ? "true" : "false");
    note.textContent = by === "name" ? "By name: dialect, operator, version." : worstNote;
  }

  toggle.addEventListener("click", function () {
    order(table.getAttribute("data-order") === "name" ? "worst" : "name");
  });
  apply();
})();
