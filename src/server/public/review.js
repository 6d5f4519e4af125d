// The review form: shows the reason only for a rejection and the edit fields only for an edit. Without this
// script every field stays visible and the form works the same (the server ignores what the decision does not use).
(function () {
  'use strict';
  var form = document.getElementById('review-form');
  if (!form) return;
  var reason = document.getElementById('reason-field');
  var edit = document.getElementById('edit-fields');
  function update() {
    var chosen = form.querySelector('input[name="decision"]:checked');
    var decision = chosen ? chosen.value : '';
    if (reason) reason.hidden = decision !== 'reject';
    if (edit) edit.hidden = decision !== 'edit';
  }
  form.addEventListener('change', function (event) {
    if (event.target && event.target.name === 'decision') update();
  });
  update();
})();
