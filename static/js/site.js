// Small behaviours of every page, kept out of the HTML so the Content-Security-Policy can forbid inline
// scripts and handlers: a form with data-confirm asks first; a read-only field with data-select-all
// selects its text when clicked (for copying an address or a token).
(function () {
  "use strict";
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
    }
  });
  document.addEventListener("click", (event) => {
    const field = event.target;
    if (field instanceof HTMLInputElement && "selectAll" in field.dataset) field.select();
  });
})();
