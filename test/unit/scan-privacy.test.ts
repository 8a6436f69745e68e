// How much of a scan is kept: the account's scanPrivacy level, and the scanner's DNT / Sec-GPC over any level.
import { describe, expect, it } from 'vitest';
import { asksNotToBeTracked, keptOfScan } from '../../src/domain/scan-privacy.js';

const saoPaulo = { country: 'BR', region: 'São Paulo', city: 'São Paulo' };

describe('what a scan keeps', () => {
  it('keeps the country alone at `country`, even when a city database placed the scan in a city', () => {
    expect(keptOfScan('country', false, saoPaulo, 'v')).toEqual({
      place: { country: 'BR' },
      visitor: 'v',
      anonymous: false,
    });
  });

  it('keeps region and city at `city`', () => {
    expect(keptOfScan('city', false, saoPaulo, 'v')).toEqual({ place: saoPaulo, visitor: 'v', anonymous: false });
  });

  it('keeps no place and no visitor at `none`, or when the scanner asked not to be tracked at any level', () => {
    const nothing = { place: null, visitor: null, anonymous: true };
    expect(keptOfScan('none', false, saoPaulo, 'v')).toEqual(nothing);
    expect(keptOfScan('city', true, saoPaulo, 'v')).toEqual(nothing);
    expect(keptOfScan('country', true, null, 'v')).toEqual(nothing);
  });

  it('reads DNT: 1 and Sec-GPC: 1 as the signal, and nothing else', () => {
    expect(asksNotToBeTracked({ dnt: '1' })).toBe(true);
    expect(asksNotToBeTracked({ 'sec-gpc': '1' })).toBe(true);
    for (const headers of [{}, { dnt: '0' }, { 'sec-gpc': '0' }, { dnt: 'yes' }])
      expect(asksNotToBeTracked(headers)).toBe(false);
  });
});
