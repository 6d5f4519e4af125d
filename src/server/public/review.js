// The review form: shows the reason only for a rejection and the edit fields only for an edit, and asks the browser
// to require the ratings and the difficulty only to accept or edit (a rejection may leave them out). Without this
// script every field stays visible and the form works the same: the server checks all of it and shows what is missing.
(function () {
  'use strict';
  var form = document.getElementById('review-form');
  if (!form) return;
  var reason = document.getElementById('reason-field');
  var edit = document.getElementById('edit-fields');
  var assessed = ['clinical_quality', 'explanation_clarity', 'factual_correctness', 'image_alignment', 'difficulty'];
  function update() {
    var chosen = form.querySelector('input[name="decision"]:checked');
    var decision = chosen ? chosen.value : '';
    if (reason) reason.hidden = decision !== 'reject';
    if (edit) edit.hidden = decision !== 'edit';
    assessed.forEach(function (name) {
      form.querySelectorAll('input[name="' + name + '"]').forEach(function (input) {
        input.required = decision === 'accept' || decision === 'edit';
      });
    });
  }
  form.addEventListener('change', function (event) {
    if (event.target && event.target.name === 'decision') update();
  });
  update();
})();
