// The logo the render micro benches draw: an SVG made a PNG by sharp, as the renderer takes a stored logo.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { LogoArt } from '../src/domain/branding.js';

/** The SVG as a PNG logo at scale 0.2, named by its digest as stored logos are. */
export async function benchLogo(svg: string): Promise<LogoArt> {
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return {
    id: 'bench-logo',
    digest: createHash('sha256').update(png).digest('base64url'),
    png: new Uint8Array(png),
    scale: 0.2,
  };
}
