(function () {
  "use strict";
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
    document.querySelectorAll("[data-filter]").forEach(function (el) {
      var ok = matches(el, want);
      el.hidden = !ok;
      if (ok && el.classList.contains("pair")) { shown += 1; }
    });
    document.getElementById("f-count").textContent = shown + " spec \u00d7 backend sections shown";
  }

  ids.forEach(function (k) { sel[k].addEventListener("change", apply); });
  document.getElementById("f-reset").addEventListener("click", function () {
    ids.forEach(function (k) { sel[k].value = ""; });
    apply();
  });
  apply();
})();
