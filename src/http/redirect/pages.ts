// The small HTML pages a scan gets when there is nowhere to send it, or a password is asked for (no script, no external
// resources).

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
    `content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${title}` +
    `</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 ` +
    `1rem;color:#222}h1{font-size:1.4rem}input,button{font:inherit;padding:.5rem;margin:.25rem ` +
    `0}input{width:100%;box-sizing:border-box}.error{color:#a00}</style></head><body><h1>${title}</h1>${body}` +
    `</body></html>\n`
  );
}

export const goneHtml = page(
  'This code is no longer active',
  '<p>The owner of this QR code has paused or removed it, so it does not lead anywhere right now.</p>',
);
export const expiredHtml = page(
  'This code has expired',
  '<p>The campaign behind this QR code has ended, so it does not lead anywhere any more.</p>',
);
export const unanswerableHtml = page(
  'This request could not be answered',
  '<p>Open the link of the QR code again.</p>',
);
export const notFoundHtml = page(
  'Unknown code',
  '<p>This QR code does not lead anywhere: the link is not one of ours, or it was mistyped.</p>',
);

/**
 * The password form: posts to the address it was opened at (no action attribute, so the query string stays), works
 * without script. It names nothing of the code: not its target, not its name.
 */
export function passwordHtml(maxLength: number, wrong: boolean): string {
  const error = wrong ? '<p class="error" role="alert">That password is not right. Try again.</p>' : '';
  return page(
    'This code is protected',
    `<p>Enter the password you were given to continue.</p>${error}<form method="post"><label ` +
      `for="password">Password</label><input id="password" name="password" type="password" required maxlength="` +
      `${maxLength}" autocomplete="off" autofocus><button type="submit">Continue</button></form>`,
  );
}

export function tooManyGuessesHtml(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return page(
    'Too many attempts',
    `<p>Too many wrong passwords were tried from your network for this code. Try again in ` +
      `${escapeHtml(String(minutes))} minute${minutes === 1 ? '' : 's'}.</p>`,
  );
}

/**
 * The per-code ceiling: wrong passwords from many networks together; nobody's answer is checked until the window ends.
 */
export function tooManyGuessesForCodeHtml(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return page(
    'Too many attempts',
    `<p>Too many wrong passwords were tried for this code, from many networks. It takes no answers for now: ` +
      `try again in ${escapeHtml(String(minutes))} minute${minutes === 1 ? '' : 's'}.</p>`,
  );
}
