// QrDecoder on its own small Piscina pool: sharp, zxing-wasm and jsQR run on a worker thread, never on the event loop.
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { ApiError } from '../../domain/errors.js';
import type { DecodeOutcome, QrDecoder } from '../../domain/ports/qr-decoder.js';

/** Under tsx (tests, dev) the thread entry is TypeScript and needs the loader; built code runs plain. */
function threadEntry(): { filename: string; execArgv: string[] } {
  const fromSource = fileURLToPath(import.meta.url).endsWith('.ts');
  const filename = fileURLToPath(new URL(`../../entries/decode-thread.${fromSource ? 'ts' : 'js'}`, import.meta.url));
  return { filename, execArgv: fromSource ? ['--import', 'tsx'] : [] };
}

export class PiscinaQrDecoder implements QrDecoder {
  readonly #pool: Piscina<{ image: Uint8Array; maxPixels: number }, DecodeOutcome>;

  /** One thread, started on the first decode and stopped after a minute idle: decoding is occasional, renders are not. */
  constructor(options: { threads?: number; maxQueue?: number } = {}) {
    const { filename, execArgv } = threadEntry();
    this.#pool = new Piscina({
      filename,
      execArgv,
      minThreads: 0,
      maxThreads: options.threads ?? 1,
      idleTimeout: 60_000,
      maxQueue: options.maxQueue ?? 16,
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
  }

  async decode(image: Uint8Array, maxPixels: number): Promise<DecodeOutcome> {
    try {
      return await this.#pool.run({ image, maxPixels });
    } catch (error) {
      if (error instanceof Error && /queue is full/i.test(error.message))
        throw new ApiError('overloaded', 'too many images are being decoded; retry in a moment', { retryAfterSeconds: 1 });
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.#pool.destroy();
  }
}
