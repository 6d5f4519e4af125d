// The reader's case page: autosave, time on the case, and keyboard answering. The page works without it
// (plain form posts); with it, nothing is lost when a tab closes mid-case.
(function () {
  'use strict';
  var form = document.getElementById('answer-form');
  if (!form) return;
  var locked = form.getAttribute('data-locked') === 'true';
  var saveUrl = form.getAttribute('data-save');
  var csrf = form.getAttribute('data-csrf');
  var position = Number(form.getAttribute('data-position'));
  var status = document.getElementById('save-status');
  var visitId = (window.crypto && crypto.randomUUID) ? crypto.randomUUID() : String(Date.now()) + '-' + String(Math.random()).slice(2, 10);
  form.elements.namedItem('visit').value = visitId;

  // Time on the case counts only while the page is visible.
  var shownMs = 0;
  var since = document.visibilityState === 'visible' ? performance.now() : null;
  function elapsed() { return Math.round(shownMs + (since === null ? 0 : performance.now() - since)); }
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'visible') since = performance.now();
    else { if (since !== null) shownMs += performance.now() - since; since = null; save(true, false); }
  });

  function chosen(name) {
    var input = form.querySelector('input[name="' + name + '"]:checked');
    return input ? input.value : null;
  }
  var lastSent = -1;
  var pending = null;
  // The answer as last saved, so a change is said aloud ("Answer changed from A to D"), never made silently.
  var savedAnswer = chosen('answer');
  // A choice sends the answer; the timer and leaving the page send only the time (answer null). Otherwise a tab
  // left open would re-send its old choice every few seconds and undo a newer one made in another tab or device.
  function save(beacon, withAnswer) {
    if (locked) return;
    var answer = withAnswer ? chosen('answer') : null;
    var confidence = withAnswer ? chosen('confidence') : null;
    var body = JSON.stringify({ position: position, answer: answer, confidence: confidence === null ? null : Number(confidence), visitId: visitId, elapsedMs: elapsed(), clientAt: new Date().toISOString() });
    lastSent = elapsed();
    var request = fetch(saveUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: body, keepalive: !!beacon, credentials: 'same-origin' });
    pending = request.then(function (response) {
      return response.json().then(function (reply) {
        if (!response.ok) {
          // Refused by the server (locked, link withdrawn or expired): say why; moving on will not save it either.
          var refused = new Error(reply.message || ('HTTP ' + response.status));
          refused.refused = true;
          throw refused;
        }
        if (answer !== null) {
          var what = savedAnswer !== null && savedAnswer !== answer ? 'Answer changed from ' + savedAnswer + ' to ' + answer : 'Answer ' + answer;
          savedAnswer = answer;
          status.textContent = what + (confidence === null ? '' : ', confidence ' + confidence) + ' · saved at ' + new Date(reply.at).toLocaleTimeString();
          countAnswered();
        }
      });
    }).catch(function (error) {
      status.textContent = error.refused ? 'Not saved: ' + error.message
        : 'Not saved (' + error.message + '). Your choice is still on the page and is sent again when you press Next.';
    });
    return pending;
  }

  // The progress bar counts this case once it has an answer.
  var progress = document.querySelector('.progress progress');
  var counted = !!chosen('answer');
  function countAnswered() {
    if (counted || !progress) return;
    counted = true;
    progress.value = Number(progress.value) + 1;
    var label = progress.parentElement;
    if (label && label.firstChild && label.firstChild.nodeType === 3) label.firstChild.textContent = 'Answered ' + progress.value + ' of ' + progress.max + ' ';
  }

  // A confidence without an answer is not saved on its own (a save needs an answer): it goes with the answer.
  var FIRST_ANSWER = 'Choose an answer (A–D) first: the confidence (1–5) is for an answer.';
  form.addEventListener('change', function (event) {
    if (event.target && event.target.name === 'confidence' && chosen('answer') === null) { status.textContent = FIRST_ANSWER; return; }
    save(false, true);
  });
  // The time on the case is kept every few seconds while it is open.
  setInterval(function () { if (document.visibilityState === 'visible' && elapsed() - lastSent >= 5000) save(false, false); }, 1000);
  form.addEventListener('submit', function () { form.elements.namedItem('elapsed').value = String(elapsed()); });

  function choose(name, value) {
    var input = form.querySelector('input[name="' + name + '"][value="' + value + '"]');
    if (!input || input.disabled) return false;
    input.checked = true;
    // The answer takes the focus; a confidence set by a digit leaves it where it was, so → still means "next"
    // (on a focused confidence button the arrows would move the confidence instead).
    if (name === 'answer') input.focus();
    input.dispatchEvent(new Event('change', { bubbles: true }));
    return true;
  }
  function click(id) {
    var button = document.getElementById(id);
    if (button) button.click();
    return !!button;
  }
  // Letters answer, digits rate: no key does both, so rating a case never changes its answer.
  var LETTER_KEYS = { a: 'A', b: 'B', c: 'C', d: 'D' };
  document.addEventListener('keydown', function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || (target.tagName === 'INPUT' && target.type !== 'radio'))) return;
    var key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    var handled = false;
    // On a confidence button the arrows move within the group, as radios do.
    var onConfidence = target && target.name === 'confidence';
    if (/^[1-5]$/.test(key)) {
      // Before there is an answer a digit changes nothing, and the page says why.
      if (locked) return;
      if (chosen('answer') === null) status.textContent = FIRST_ANSWER;
      else choose('confidence', key);
      handled = true;
    } else if (onConfidence && (key === 'ArrowLeft' || key === 'ArrowRight' || key === 'ArrowUp' || key === 'ArrowDown')) return;
    else if (LETTER_KEYS[key]) handled = choose('answer', LETTER_KEYS[key]);
    else if (key === 'n' || key === 'ArrowRight') handled = click('next');
    else if (key === 'p' || key === 'ArrowLeft') handled = click('prev');
    if (handled) event.preventDefault();
  });
})();
