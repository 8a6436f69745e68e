// Scans per day as an inline SVG bar chart, drawn on the server: the page needs no script to show it.

export interface ChartDay {
  day: string;
  scans: number;
}

const WIDTH = 600;
const HEIGHT = 160;
const AXIS = 20;

/** Only numbers and YYYY-MM-DD days go into the markup, so nothing in it needs escaping. */
export function scanChartSvg(days: readonly ChartDay[]): string {
  const peak = Math.max(1, ...days.map((d) => d.scans));
  const slot = WIDTH / Math.max(1, days.length);
  const barWidth = Math.max(1, slot - 2);
  const plot = HEIGHT - AXIS;
  const bars = days
    .map((d, i) => {
      const height = Math.round((d.scans / peak) * (plot - 4));
      const x = (i * slot + 1).toFixed(1);
      return `<rect x="${x}" y="${plot - height}" width="${barWidth.toFixed(1)}" height="${height}" class="bar"><title>${d.day}: ${d.scans} scans</title></rect>`;
    })
    .join('');
  const first = days[0]?.day ?? '';
  const last = days.at(-1)?.day ?? '';
  const total = days.reduce((sum, d) => sum + d.scans, 0);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Scans per day from ${first} to ${last}: ${total} in total, at most ${peak === 1 && total === 0 ? 0 : peak} a day" class="scan-chart">` +
    `<line x1="0" y1="${plot}" x2="${WIDTH}" y2="${plot}" class="axis"/>${bars}` +
    `<text x="0" y="${HEIGHT - 4}" class="label">${first}</text><text x="${WIDTH}" y="${HEIGHT - 4}" text-anchor="end" class="label">${last}</text>` +
    `<text x="${WIDTH}" y="12" text-anchor="end" class="label">max ${total === 0 ? 0 : peak}/day</text></svg>`
  );
}
