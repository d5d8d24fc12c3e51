// A map link's fragment (#/map/...) never reaches the server: carry it through the sign-in by hand.
(function () {
  "use strict";

  document.getElementById("sign-in-form").addEventListener("submit", function () {
    var next = document.getElementById("sign-in-next");
    if (window.location.hash && next.value && next.value.indexOf("#") === -1) {
      next.value += window.location.hash;
    }
  });
})();
