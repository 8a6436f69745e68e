// The small HTML pages a scan gets when there is nowhere to send it (no script, no external resources).

function page(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${title}</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}</style></head><body><h1>${title}</h1><p>${message}</p></body></html>\n`;
}

export const goneHtml = page('This code is no longer active', 'The owner of this QR code has paused or removed it, so it does not lead anywhere right now.');
export const notFoundHtml = page('Unknown code', 'This QR code does not lead anywhere: the link is not one of ours, or it was mistyped.');
