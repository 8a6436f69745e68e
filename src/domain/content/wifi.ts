// wifi content: the ZXing `WIFI:T:..;S:..;P:..;H:true;;` network-join payload, built from fields or checked when ready.
import { z } from 'zod';
import { invalidContent } from '../errors.js';
import { boundedString, MAX_TEXT_CHARS } from './limits.js';
import { asGiven, structuredContent } from './structured-content.js';

const ENCRYPTIONS = ['WPA', 'WEP', 'nopass'] as const;
export type WifiEncryption = (typeof ENCRYPTIONS)[number];

export interface WifiFields {
  ssid: string;
  password?: string | undefined;
  encryption: WifiEncryption;
  hidden?: boolean | undefined;
}

// 802.11 caps an SSID at 32 octets; a longer one names a network that cannot exist.
const SSID_MAX_BYTES = 32;
const SSID_TOO_LONG = `must be at most ${SSID_MAX_BYTES} bytes in UTF-8 (802.11 limit)`;
// WEP keys are 40/104/128-bit: 5, 13 or 16 characters, or 10, 26 or 32 hex digits.
const WEP_TEXT_LENGTHS = [5, 13, 16];
const WEP_HEX_LENGTHS = [10, 26, 32];

export const wifiFieldsSchema = z.strictObject({
  // A character is at least one octet, so more than 32 characters can never fit (the octet count is checked later).
  ssid: boundedString(SSID_MAX_BYTES, SSID_TOO_LONG).min(1, 'must not be empty'),
  password: boundedString(MAX_TEXT_CHARS).optional(),
  encryption: z.enum(ENCRYPTIONS, { error: 'must be WPA, WEP or nopass' }),
  hidden: z.boolean().optional(),
});

/** The characters the format reserves; each is written with one `\` in front of it. */
const SPECIAL = /[\\;,":]/g;

function escapeValue(value: string): string {
  return value.replace(SPECIAL, '\\$&');
}

/** Builds the payload; the fields must already have passed `checkWifiFields`. */
function buildWifi(fields: WifiFields): string {
  const parts = [`T:${fields.encryption}`, `S:${escapeValue(fields.ssid)}`];
  if (fields.encryption !== 'nopass') parts.push(`P:${escapeValue(fields.password ?? '')}`);
  if (fields.hidden === true) parts.push('H:true');
  return `WIFI:${parts.map((part) => `${part};`).join('')};`;
}

/** The rules between fields that the schema cannot say on its own. */
function checkWifiFields(fields: WifiFields): void {
  if (new TextEncoder().encode(fields.ssid).length > SSID_MAX_BYTES) {
    throw invalidContent('content.ssid', SSID_TOO_LONG);
  }
  const { encryption, password } = fields;
  if (encryption === 'nopass') {
    // Rejected rather than dropped: a password sent for an open network is almost always a mistake
    // in the encryption field, and silently ignoring it would print a code that joins the wrong way.
    if (password !== undefined) throw invalidContent('content.password', 'must be omitted when encryption is nopass');
    return;
  }
  if (password === undefined || password === '') {
    throw invalidContent('content.password', `is required when encryption is ${encryption}`);
  }
  if (encryption === 'WEP' && !isPlausibleWepKey(password)) {
    throw invalidContent('content.password', 'must be a WEP key: 5, 13 or 16 characters, or 10, 26 or 32 hex digits');
  }
}

function isPlausibleWepKey(key: string): boolean {
  if (/^[0-9a-fA-F]+$/.test(key) && WEP_HEX_LENGTHS.includes(key.length)) return true;
  return WEP_TEXT_LENGTHS.includes([...key].length);
}

/** Splits the text after `WIFI:` on unescaped `;`, keeping escapes in place for the value parser. */
function splitFields(body: string): string[] {
  const fields: string[] = [];
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const char = body[i];
    if (char === '\\') {
      if (i === body.length - 1) throw invalidContent('content', 'ends inside a \\ escape');
      i++;
    } else if (char === ';') {
      fields.push(body.slice(start, i));
      start = i + 1;
    }
  }
  if (start !== body.length) throw invalidContent('content', 'every field must end with an unescaped ;');
  return fields;
}

function unescapeValue(value: string): string {
  return value.replace(/\\(.)/gsu, '$1');
}

/** Reads a `key:value` list up to the empty field that closes it (`;;`), refusing duplicates. */
function readKeyValues(fields: string[]): Map<string, string> {
  const values = new Map<string, string>();
  for (const [index, field] of fields.entries()) {
    if (field === '') {
      if (index !== fields.length - 1)
        throw invalidContent('content', 'must end at the closing ;; with nothing after it');
      break;
    }
    const match = /^([A-Za-z][A-Za-z0-9]*):/.exec(field);
    if (!match?.[1]) throw invalidContent('content', `field "${field.slice(0, 20)}" must look like KEY:value`);
    // Keys are case-sensitive, as in ZXing: `s:` is not the network name.
    const key = match[1];
    if (values.has(key)) throw invalidContent('content', `field ${key} must appear only once`);
    values.set(key, unescapeValue(field.slice(match[0].length)));
  }
  return values;
}

function readEncryption(type: string | undefined): WifiEncryption {
  // ZXing reads a missing T as an open network.
  if (type === undefined) return 'nopass';
  const encryption = ENCRYPTIONS.find((known) => known === type);
  if (!encryption) throw invalidContent('content', `T must be WPA, WEP or nopass, not "${type}"`);
  return encryption;
}

function readHidden(hidden: string | undefined): boolean | undefined {
  if (hidden === undefined) return undefined;
  if (!/^(true|false)$/i.test(hidden)) throw invalidContent('content', 'H must be true or false');
  // Not hidden is the default, so `H:false` reads back as no H at all.
  return hidden.toLowerCase() === 'true' ? true : undefined;
}

/**
 * Reads a `WIFI:` payload back into fields, undoing the `\` escapes. Fields may come in any order
 * and unknown ones (e.g. the EAP keys) are tolerated, as ZXing does; S is required. Only the
 * structure is checked: a ready string made elsewhere (say with `P:;` on an open network) still
 * joins on phones, so the object-form rules are not applied to it.
 * Throws `invalid_content` on `content` when the text is not a usable network payload.
 */
export function parseWifi(payload: string): WifiFields {
  if (!payload.startsWith('WIFI:')) throw invalidContent('content', 'must start with WIFI:');
  const values = readKeyValues(splitFields(payload.slice('WIFI:'.length)));
  const ssid = values.get('S');
  if (ssid === undefined || ssid === '')
    throw invalidContent('content', 'must hold a non-empty S (network name) field');
  const fields: WifiFields = { ssid, encryption: readEncryption(values.get('T')) };
  const password = values.get('P');
  if (password !== undefined) fields.password = password;
  const hidden = readHidden(values.get('H'));
  if (hidden) fields.hidden = hidden;
  return fields;
}

export const wifiContent = structuredContent('wifi', wifiFieldsSchema, {
  ready: 'a ready WIFI: string',
  fromString: asGiven(parseWifi),
  fromFields(fields) {
    checkWifiFields(fields);
    return buildWifi(fields);
  },
});
