// Draws every <figure data-chart> of the page with Chart.js (served from this origin), from the table beside it.
'use strict';
(function () {
  var Chart = window.Chart;
  if (!Chart) return;
  var style = window.getComputedStyle(document.documentElement);
  var accent = style.getPropertyValue('--accent').trim() || '#2563eb';
  var muted = style.getPropertyValue('--muted').trim() || '#6b7280';
  var line = style.getPropertyValue('--line').trim() || '#e5e7eb';
  var figures = document.querySelectorAll('figure[data-chart]');
  for (var i = 0; i < figures.length; i++) draw(figures[i]);

  function draw(figure) {
    var canvas = figure.querySelector('canvas');
    var rows = figure.querySelectorAll('tbody tr[data-value]');
    var labels = [];
    var values = [];
    for (var r = 0; r < rows.length; r++) {
      labels.push(rows[r].querySelector('th').textContent);
      values.push(Number(rows[r].getAttribute('data-value')));
    }
    var horizontal = figure.getAttribute('data-chart') === 'bars';
    var heading = figure.querySelector('thead th:last-child');
    new Chart(canvas, {
      type: 'bar',
      data: {
        labels: labels,
        datasets: [
          { label: heading ? heading.textContent : '', data: values, backgroundColor: accent, borderRadius: 2 },
        ],
      },
      options: {
        indexAxis: horizontal ? 'y' : 'x',
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { legend: { display: false } },
        scales: {
          x: { ticks: { color: muted, maxRotation: 0, autoSkip: true, precision: 0 }, grid: { color: line } },
          y: { ticks: { color: muted, precision: 0 }, grid: { color: line }, beginAtZero: true },
        },
      },
    });
    figure.classList.add('drawn');
  }
})();
