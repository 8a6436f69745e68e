// Image size and correctness: the same code as PNG, WebP and SVG from our service beside qrcode.toBuffer, each decoded
// by zbar and ZXing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import QRCode from 'qrcode';
import { GENERATE_PATH, type BenchScenario } from '../harness.js';

function decodes(bytes: Buffer, format: string, expected: string): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'qrm-bench-decode-'));
  try {
    let png = join(dir, `image.${format}`);
    writeFileSync(png, bytes);
    if (format === 'webp') spawnSync('dwebp', ['-quiet', png, '-o', (png = join(dir, 'image.png'))]);
    if (format === 'svg') spawnSync('rsvg-convert', ['-w', '512', png, '-o', (png = join(dir, 'image.png'))]);
    const zbar = spawnSync('zbarimg', ['-q', '--nodbus', '--raw', '-Sbinary', png]).stdout?.toString();
    const zxing = spawnSync('ZXingReader', ['-format', 'QRCode', '-bytes', png]).stdout?.toString();
    return zbar === expected && zxing === expected;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const sizesScenario: BenchScenario = {
  ids: ['sizes'],
  run: async (context) => {
    const service = await context.embedded();
    const content = 'https://example.com/menu?table=12';
    const naive = await QRCode.toBuffer(content, { width: 512, errorCorrectionLevel: 'M' });
    const lines = [
      '| image (512 px, ECC M, same code) | bytes | vs qrcode.toBuffer | lossless | zbar + ZXing decode |',
      '|---|---:|---:|---|---|',
    ];
    lines.push(
      `| qrcode.toBuffer PNG (baseline) | ${naive.length} | 100% | yes | ` +
        `${decodes(naive, 'png', content) ? 'yes' : 'NO'} |`,
    );
    const sizes: Record<string, number> = {};
    for (const format of ['png', 'webp', 'svg']) {
      const res = await fetch(`http://127.0.0.1:${service.server.port}${GENERATE_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': service.keys[0]! },
        body: JSON.stringify({ content, type: 'url', outputFormat: format }),
      });
      const bytes = Buffer.from(await res.arrayBuffer());
      sizes[format] = bytes.length;
      lines.push(
        `| ours ${format.toUpperCase()} | ${bytes.length} | ${((bytes.length / naive.length) * 100).toFixed(0)}` +
          `% | yes | ${decodes(bytes, format, content) ? 'yes' : 'NO'} |`,
      );
    }
    const webpOverPng = sizes.webp! / sizes.png!;
    lines.push(
      '',
      `WebP is ${webpOverPng.toFixed(2)}× our PNG's bytes, ${(100 - webpOverPng * 100).toFixed(0)}% smaller ` +
        `(the spec says "up to 30% smaller").`,
    );
    return { figures: { webpOverPng }, sections: { sizes: lines.join('\n') } };
  },
};
