// Runs the independent encoders (segno, libqrencode) over many payloads in one Python process: versions, and segno
// images.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Debian's interpreter: python3-segno is installed for it, whatever python3 comes first on PATH. */
const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./reference-encoders.py', import.meta.url));

export interface ReferenceVersions {
  /** [payload][level]: the version, or null when the payload does not fit. */
  segno: Array<Array<number | null>>;
  qrencode: Array<Array<number | null>>;
}

export function referenceVersions(
  payloads: string[],
  levels: readonly string[],
  render: Array<[string, string, string]> = [],
): Promise<ReferenceVersions> {
  return new Promise((resolve, reject) => {
    const child = execFile(PYTHON, [SCRIPT], { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }, (error, stdout) => {
      if (error) reject(error);
      else resolve(JSON.parse(stdout) as ReferenceVersions);
    });
    child.stdin!.end(JSON.stringify({ payloads, levels, render }));
  });
}
