import { describe, expect, it } from 'vitest';
import { encodeContent } from '../../../src/domain/content/index.js';
import { blames } from './blames.js';

const encode = (content: unknown) => encodeContent('email', content);

describe('email content from fields', () => {
  it('writes spaces as %20 and every line break as %0D%0A', () => {
    expect(encode({ to: 'ana@example.com', subject: 'Hello there', body: 'one\ntwo\r\nthree\rfour' })).toBe(
      'mailto:ana@example.com?subject=Hello%20there&body=one%0D%0Atwo%0D%0Athree%0D%0Afour',
    );
  });

  it('encodes & = # ? % and non-ASCII in header values so they cannot split the query', () => {
    expect(encode({ to: 'ana@example.com', subject: 'a&b=c#d?e%f ç' })).toBe(
      'mailto:ana@example.com?subject=a%26b%3Dc%23d%3Fe%25f%20%C3%A7',
    );
  });

  it('leaves the query out when there is neither subject nor body', () => {
    expect(encode({ to: 'ana@example.com' })).toBe('mailto:ana@example.com');
  });

  it('percent-encodes the local part only where a URI needs it', () => {
    expect(encode({ to: 'first.last+tag@example.com' })).toBe('mailto:first.last+tag@example.com');
    expect(encode({ to: 'a#b%c/d?e&f=g@example.com' })).toBe('mailto:a%23b%25c%2Fd%3Fe%26f%3Dg@example.com');
    expect(encode({ to: 'josé@example.com' })).toBe('mailto:jos%C3%A9@example.com');
  });

  it.each([
    [{ subject: 'Hi' }, 'content.to', /required/],
    [{ to: 'not an address' }, 'content.to', /email address/],
    [{ to: 'ana@localhost' }, 'content.to', /email address/],
    [{ to: 'ana@example.com,bob@example.com' }, 'content.to', /email address/],
    [{ to: `${'a'.repeat(65)}@example.com` }, 'content.to', /64 bytes/],
    [{ to: 'ana@example.com', subject: 'two\nlines' }, 'content.subject', /single line/],
    [{ to: 'ana@example.com', subject: '' }, 'content.subject', /empty/],
    [{ to: 'ana@example.com', body: 'bad \uD800' }, 'content.body', /lone surrogate/],
    [{ to: 'ana@example.com', cc: 'bob@example.com' }, 'content.cc', /not a field/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode(content)).toThrow(blames(field, detail));
  });
});

describe('email content from a string', () => {
  it('turns a bare address into a mailto: URI', () => {
    expect(encode('ana@example.com')).toBe('mailto:ana@example.com');
  });

  it.each([
    'mailto:ana@example.com',
    'MAILTO:ana@example.com?subject=Hi%20there&body=a%0D%0Ab',
    'mailto:ana@example.com,bob@example.org',
    'mailto:?to=ana@example.com&subject=Hi',
    'mailto:jos%C3%A9@example.com',
  ])('returns the URI %s as given', (uri) => {
    expect(encode(uri)).toBe(uri);
  });

  it.each([
    ['ana@', /email address/],
    ['mailto:', /at least one recipient/],
    ['mailto:ana@example.com?subject=Hi there', /percent-encode spaces/],
    ['mailto:ana@example.com?subject=%E0%A4%A', /percent-encoded UTF-8|percent-encode/],
    ['mailto:ana@example.com?subject', /name=value/],
    ['mailto:ana@example.com,nobody', /email address/],
    ['mailto:ana@example.com#x', /#fragment/],
  ])('rejects %s on content', (content, detail) => {
    expect(() => encode(content)).toThrow(blames('content', detail));
  });
});
