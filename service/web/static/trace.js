// Selecting a number of the explainer marks the source sentence (or table row) that
// supports it and brings it into view. Without this script the number is a plain
// link to the sentence, which the stylesheet marks with :target.
(function () {
  "use strict";
  var marked = [];
  var reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

  function numberOf(el) {
    return el && el.closest ? el.closest("a.num[data-target]") : null;
  }

  function clear() {
    marked.forEach(function (el) { el.classList.remove("marked", "active"); });
    marked = [];
  }

  // Scroll only the source pane when it scrolls on its own (wide screens); otherwise
  // a focus change would carry the page away from the number being read.
  function revealInPane(el) {
    var pane = document.getElementById("source");
    if (!pane || pane.scrollHeight <= pane.clientHeight) return false;
    var top = el.getBoundingClientRect().top - pane.getBoundingClientRect().top;
    pane.scrollTo({
      top: pane.scrollTop + top - pane.clientHeight / 3,
      behavior: reduce ? "auto" : "smooth"
    });
    return true;
  }

  function mark(num, scrollPage) {
    var target = document.getElementById(num.getAttribute("data-target"));
    if (!target) return;
    clear();
    target.classList.add("marked");
    num.classList.add("active");
    marked.push(target, num);
    if (!revealInPane(target) && scrollPage) {
      target.scrollIntoView({ block: "center", behavior: reduce ? "auto" : "smooth" });
    }
  }

  document.addEventListener("click", function (ev) {
    var num = numberOf(ev.target);
    if (!num) return;
    ev.preventDefault();
    mark(num, true);
    if (window.history && history.replaceState) history.replaceState(null, "", "#" + num.id);
  });

  document.addEventListener("focusin", function (ev) {
    var num = numberOf(ev.target);
    if (num) mark(num, false);
  });
})();
