// Scans per day as an inline SVG bar chart, drawn on the server: the page needs no script to show it.

export interface ChartDay {
  day: string;
  scans: number;
}

export interface ScanChart {
  /** The bars alone: the labels are page text beside it, at the page's font size at any width, never on a bar. */
  svg: string;
  first: string;
  last: string;
  /** The busiest day's scans (0 when there were none). */
  peak: number;
  total: number;
}

const WIDTH = 600;
const HEIGHT = 140;

/** Only numbers and YYYY-MM-DD days go into the markup, so nothing in it needs escaping. */
export function scanChart(days: readonly ChartDay[]): ScanChart {
  const peak = Math.max(0, ...days.map((d) => d.scans));
  const slot = WIDTH / Math.max(1, days.length);
  const barWidth = Math.max(1, slot - 2);
  const bars = days
    .map((d, i) => {
      const height = Math.round((d.scans / Math.max(1, peak)) * (HEIGHT - 4));
      const x = (i * slot + 1).toFixed(1);
      return `<rect x="${x}" y="${HEIGHT - height}" width="${barWidth.toFixed(1)}" height="${height}" class="bar"><title>${d.day}: ${d.scans} scans</title></rect>`;
    })
    .join('');
  const first = days[0]?.day ?? '';
  const last = days.at(-1)?.day ?? '';
  const total = days.reduce((sum, d) => sum + d.scans, 0);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" ` +
    `aria-label="Scans per day from ${first} to ${last}: ${total} in total, at most ${peak} a day" class="scan-chart">` +
    `${bars}<line x1="0" y1="${HEIGHT - 0.5}" x2="${WIDTH}" y2="${HEIGHT - 0.5}" class="axis"/></svg>`;
  return { svg, first, last, peak, total };
}
