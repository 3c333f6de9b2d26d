// The fleet map (decision 0044): Leaflet without any tile layer, over the Natural Earth land
// outlines served by this origin (/console/assets/land.geojson), one circle marker per vehicle with
// a stored location (class "vehicle-marker"), each linking to the vehicle's page. The vehicles come
// from the page itself (#fleet-data), so the map makes one request besides its scripts.
(function () {
  'use strict';
  var el = document.getElementById('fleet-map');
  var data = document.getElementById('fleet-data');
  if (!el || !data || typeof L === 'undefined') return;
  var fleet = JSON.parse(data.textContent || '{"vehicles":[]}');
  var map = L.map(el, { worldCopyJump: true, attributionControl: true, zoomSnap: 0.5 });
  map.attributionControl.setPrefix(false);
  map.attributionControl.addAttribution('Land outlines: Natural Earth');
  map.setView([20, 0], 1.5);
  fetch('/console/assets/land.geojson', { credentials: 'same-origin' })
    .then(function (res) {
      return res.json();
    })
    .then(function (land) {
      L.geoJSON(land, { interactive: false, style: { color: '#6b7a8f', weight: 1, fillColor: '#e8ecef', fillOpacity: 1 } }).addTo(map).bringToBack();
      el.setAttribute('data-basemap', 'loaded');
    });
  var points = [];
  fleet.vehicles.forEach(function (v) {
    var marker = L.circleMarker([v.lat, v.lon], { radius: 7, color: '#0b3d91', weight: 2, fillColor: '#2f7df6', fillOpacity: 0.9, className: 'vehicle-marker' });
    marker.bindTooltip(v.name + ' (' + v.status + ')');
    marker.on('click', function () {
      window.location.href = '/console/connections/' + encodeURIComponent(fleet.connectionId) + '/vehicles/' + encodeURIComponent(v.id);
    });
    marker.addTo(map);
    points.push([v.lat, v.lon]);
  });
  if (points.length > 0) map.fitBounds(points, { padding: [60, 60], maxZoom: 5 });
  el.setAttribute('data-markers', String(points.length));
})();
