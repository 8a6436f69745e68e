// A README's fenced code blocks, so a test runs exactly what the page shows and the page cannot drift from the test.

export interface CodeBlock {
  /** The fence's language (`sh`, `js`, `python`). */
  language: string;
  text: string;
}

/** Every ```-fenced block of a markdown document, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const fences = markdown.matchAll(/^```(\S*)[^\n]*\n([\s\S]*?)^```$/gm);
  return [...fences].map((match) => ({ language: match[1]!, text: match[2]! }));
}

/** The one block of `language` whose text contains `needle`; throws when none or several do. */
export function blockWith(markdown: string, language: string, needle: string): string {
  const found = codeBlocks(markdown).filter((block) => block.language === language && block.text.includes(needle));
  if (found.length !== 1) {
    throw new Error(`expected one ${language} block containing ${JSON.stringify(needle)}, found ${found.length}`);
  }
  return found[0]!.text;
}
