// The operator console's own script (served from /console/assets; decision 0044). It only makes a
// page livelier: every page works without it. While a connection's page shows an open run, it
// fetches the runs table again every 3 s from this origin and swaps it in (the server renders it,
// so the page and the refresh cannot disagree), and stops once no run is open.
(function () {
  'use strict';
  var holder = document.getElementById('runs');
  if (!holder) return;
  var url = holder.getAttribute('data-runs-url');
  var open = function () {
    return holder.querySelector('tr[data-status="requested"], tr[data-status="in_progress"]') !== null;
  };
  var tick = function () {
    if (!open()) return;
    fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then(function (res) {
        return res.ok ? res.text() : Promise.reject(new Error(String(res.status)));
      })
      .then(function (html) {
        holder.innerHTML = html;
        holder.setAttribute('data-refreshed-at', new Date().toISOString());
      })
      .catch(function () {
        /* the next tick tries again */
      })
      .then(function () {
        setTimeout(tick, 3000);
      });
  };
  setTimeout(tick, 3000);
})();
