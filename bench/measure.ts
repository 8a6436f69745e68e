// Tiny timing helpers for the micro benchmarks: warm up, then count operations in a fixed time.
export interface Measured {
  name: string;
  opsPerSecond: number;
  microsPerOp: number;
}

export async function measure(name: string, op: (i: number) => unknown, seconds = 1): Promise<Measured> {
  for (let i = 0; i < 50; i++) await op(i);
  const budget = BigInt(Math.round(seconds * 1e9));
  const started = process.hrtime.bigint();
  let n = 0;
  while (process.hrtime.bigint() - started < budget) {
    await op(n);
    n++;
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  return { name, opsPerSecond: n / elapsed, microsPerOp: (elapsed / n) * 1e6 };
}

export function machineLine(): string {
  const os = require_os();
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return (
    `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ` +
    `${os.platform()} ${os.release()}`
  );
}

import * as nodeOs from 'node:os';
function require_os(): typeof nodeOs {
  return nodeOs;
}
